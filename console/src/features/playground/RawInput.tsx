import type { InputHTMLAttributes } from 'react';

/**
 * A field for text the request carries as typed (a key, a secret, a path, a timestamp): monospaced, never
 * spell-checked or autofilled; `trim` drops the spaces a paste brings along.
 */
export function RawInput({
  value,
  onValue,
  trim = false,
  ...rest
}: Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange'> & {
  id: string;
  value: string;
  onValue: (value: string) => void;
  trim?: boolean;
}) {
  return (
    <input
      className="mono"
      autoComplete="off"
      spellCheck={false}
      {...rest}
      value={value}
      onChange={(e) => onValue(trim ? e.target.value.trim() : e.target.value)}
    />
  );
}
