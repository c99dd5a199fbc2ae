import { ALL_SCOPES, SCOPE_PRESETS } from '../../../../server/admin/schemas.ts';

const PRESET_LABELS: Record<string, string> = { all: 'All scopes', full: 'Full access', 'read-only': 'Read-only', sandbox: 'Sandbox' };

/** Presets offered in the form; `all` is the CLI's alias of `full`. */
const PRESETS = ['full', 'read-only', 'sandbox'].filter((name) => name in SCOPE_PRESETS);

export function presetOf(scopes: readonly string[]): string | null {
  for (const name of PRESETS) {
    const preset = SCOPE_PRESETS[name];
    if (preset.length === scopes.length && preset.every((s) => scopes.includes(s))) return name;
  }
  return null;
}

export const presetLabel = (name: string): string => PRESET_LABELS[name] ?? name;

/** Presets as a segmented control, then every scope as a checkbox (a preset just fills them in). */
export function ScopePicker({ value, onChange, error }: { value: string[]; onChange: (next: string[]) => void; error?: string }) {
  const current = presetOf(value);
  const toggle = (scope: string) => onChange(value.includes(scope) ? value.filter((s) => s !== scope) : ALL_SCOPES.filter((s) => s === scope || value.includes(s)));
  return (
    <div className={`field ${error ? 'field-error' : ''}`}>
      <span className="label" id="scopes-label">
        Scopes
      </span>
      <div className="segmented" role="group" aria-label="Scope preset">
        {PRESETS.map((name) => (
          <button key={name} type="button" aria-pressed={current === name} onClick={() => onChange([...SCOPE_PRESETS[name]])}>
            {presetLabel(name)}
          </button>
        ))}
        <button type="button" aria-pressed={current === null} onClick={() => onChange([])}>
          Custom
        </button>
      </div>
      <div className="scope-grid" role="group" aria-labelledby="scopes-label">
        {ALL_SCOPES.map((scope) => (
          <label key={scope} className="checkbox">
            <input type="checkbox" checked={value.includes(scope)} onChange={() => toggle(scope)} />
            {scope}
          </label>
        ))}
      </div>
      {error ? (
        <div className="error-text" role="alert">
          {error}
        </div>
      ) : (
        <div className="hint">Ping and config need no scope; every other operation needs the scope listed in the API spec.</div>
      )}
    </div>
  );
}
