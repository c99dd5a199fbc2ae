import { useState, type ReactNode } from 'react';
import { breakable, Button } from './ui.tsx';

/** Copies text; falls back to a hidden textarea where the Clipboard API is unavailable (plain http). */
export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
    } catch {
      const area = document.createElement('textarea');
      area.value = value;
      area.setAttribute('readonly', '');
      area.style.position = 'fixed';
      area.style.opacity = '0';
      document.body.appendChild(area);
      area.select();
      document.execCommand('copy');
      area.remove();
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };
  return (
    <Button onClick={copy} aria-label={`${label}`} className="btn-sm">
      {copied ? 'Copied ✓' : label}
    </Button>
  );
}

/**
 * One value to copy whole (a secret, a token, a password, a signature) in its box, with its copy button and
 * an optional label above. With `labelId` the label also names the value, a read-only textbox, for a screen
 * reader and for `getByLabel`.
 */
export function CopyableValue({
  value,
  copyLabel,
  testId,
  label,
  labelId,
  className,
}: {
  value: string;
  copyLabel: string;
  testId: string;
  label?: ReactNode;
  labelId?: string;
  className?: string;
}) {
  const named = labelId ? ({ role: 'textbox', 'aria-readonly': 'true', 'aria-labelledby': labelId } as const) : {};
  return (
    <>
      {label && (
        <div className="secret-label" id={labelId}>
          {label}
        </div>
      )}
      <div className="secret-row">
        <div className={className ? `value ${className}` : 'value'} {...named} data-testid={testId}>
          {value}
        </div>
        <CopyButton value={value} label={copyLabel} />
      </div>
    </>
  );
}

/** A command to paste into a terminal (curl, bash), wrapped in its box, with its copy button beside it. */
export function CopyableSnippet({
  text,
  copyLabel,
  testId,
  labelledBy,
}: {
  text: string;
  copyLabel: string;
  testId: string;
  labelledBy?: string;
}) {
  return (
    <section className="snippet" aria-labelledby={labelledBy}>
      <pre className="json" data-testid={testId}>
        {breakable(text)}
      </pre>
      <CopyButton value={text} label={copyLabel} />
    </section>
  );
}
