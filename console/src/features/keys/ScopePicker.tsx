import { ALL_SCOPES, SCOPE_DESCRIPTIONS, SCOPE_PRESETS, type Scope } from '../../../../contracts/scopes.ts';

const PRESET_LABELS: Record<string, string> = {
  all: 'All scopes',
  full: 'Full access',
  'read-only': 'Read-only',
  sandbox: 'Sandbox',
};

/** Presets offered in the form; `all` is the CLI's alias of `full`. */
const PRESETS = ['full', 'read-only', 'sandbox'].filter((name) => name in SCOPE_PRESETS);

const ACTIONS = ['read', 'write', 'delete'] as const;

/** The API's resources (wire names, as in the scope strings) in the spec's order, with what an operator calls them. */
const RESOURCES: Array<{ name: string; label: string }> = [
  { name: 'pacientes', label: 'Patients' },
  { name: 'exames', label: 'Exams' },
  { name: 'laudos', label: 'Reports' },
  { name: 'agenda', label: 'Agenda' },
  { name: 'prontuarios', label: 'Patient records' },
  { name: 'catalogos', label: 'Catalogs' },
  { name: 'medicos', label: 'Doctors' },
];

const isScope = (value: string): value is Scope => (ALL_SCOPES as readonly string[]).includes(value);

export function presetOf(scopes: readonly string[]): string | null {
  for (const name of PRESETS) {
    const preset = SCOPE_PRESETS[name];
    if (preset.length === scopes.length && preset.every((s) => scopes.includes(s))) return name;
  }
  return null;
}

export const presetLabel = (name: string): string => PRESET_LABELS[name] ?? name;

/** `pacientes rw`, `exames rwd`: one short chip per resource, for the keys table. */
export function compactScopes(scopes: readonly string[]): Array<{ resource: string; letters: string; title: string }> {
  return RESOURCES.flatMap(({ name, label }) => {
    const granted = ACTIONS.filter((a) => scopes.includes(`${name}:${a}`));
    if (granted.length === 0) return [];
    const title = `${label}: ${granted.map((a) => `${name}:${a} — ${SCOPE_DESCRIPTIONS[`${name}:${a}` as Scope]}`).join('; ')}`;
    return [{ resource: name, letters: granted.map((a) => a[0]).join(''), title }];
  });
}

/**
 * Presets as a segmented control, then the scope matrix: one row per resource, one column per action
 * (read / write / delete); each scope carries the spec's one-line description. A preset just fills it in.
 */
export function ScopePicker({
  value,
  onChange,
  error,
}: {
  value: string[];
  onChange: (next: string[]) => void;
  error?: string;
}) {
  const current = presetOf(value);
  const toggle = (scope: string) =>
    onChange(
      value.includes(scope)
        ? value.filter((s) => s !== scope)
        : ALL_SCOPES.filter((s) => s === scope || value.includes(s)),
    );
  return (
    <div className={`field ${error ? 'field-error' : ''}`}>
      <div className="scope-head">
        <span className="label" id="scopes-label">
          Scopes
        </span>
        <span className="hint" aria-live="polite">
          {value.length} of {ALL_SCOPES.length} scopes
        </span>
      </div>
      {/* biome-ignore lint/a11y/useSemanticElements: a segmented control; a fieldset brings its own box and min-content width */}
      <div className="segmented" role="group" aria-label="Scope preset">
        {PRESETS.map((name) => (
          <button
            key={name}
            type="button"
            aria-pressed={current === name}
            onClick={() => onChange([...SCOPE_PRESETS[name]])}
          >
            {presetLabel(name)}
          </button>
        ))}
        <button type="button" aria-pressed={current === null} onClick={() => onChange([])}>
          Custom
        </button>
      </div>
      <table className="scope-matrix" aria-labelledby="scopes-label">
        <thead>
          <tr>
            <th scope="col">Resource</th>
            {ACTIONS.map((a) => (
              <th scope="col" key={a}>
                {a[0].toUpperCase() + a.slice(1)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {RESOURCES.map(({ name, label }) => (
            <tr key={name}>
              <th scope="row">
                {label}
                <div className="mono muted">{name}</div>
              </th>
              {ACTIONS.map((action) => {
                const scope = `${name}:${action}`;
                if (!isScope(scope))
                  return (
                    <td key={action} className="scope-none" aria-label={`No ${action} scope for ${label}`}>
                      —
                    </td>
                  );
                return (
                  <td key={action} className={value.includes(scope) ? 'scope-on' : ''}>
                    <label className="scope-cell">
                      <input
                        type="checkbox"
                        checked={value.includes(scope)}
                        onChange={() => toggle(scope)}
                        aria-label={scope}
                        aria-describedby={`scope-desc-${name}-${action}`}
                      />
                      <span>
                        <span className="mono scope-name">{action}</span>
                        <span className="scope-desc" id={`scope-desc-${name}-${action}`}>
                          {SCOPE_DESCRIPTIONS[scope]}
                        </span>
                      </span>
                    </label>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      {error ? (
        <div className="error-text" role="alert">
          {error}
        </div>
      ) : (
        <div className="hint">
          Ping and config need no scope; every other operation needs the scope listed in the API spec.
        </div>
      )}
    </div>
  );
}
