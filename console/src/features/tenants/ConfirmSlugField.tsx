import { Field } from '../../lib/ui.tsx';

/** The slug typed back before a reset or a drop, which cannot be undone (the CLI asks the same). */
export function ConfirmSlugField({
  id,
  slug,
  value,
  disabled,
  onChange,
}: {
  id: string;
  slug: string;
  value: string;
  disabled: boolean;
  onChange: (value: string) => void;
}) {
  return (
    <Field id={id} label={`Type ${slug} to confirm`}>
      <input
        id={id}
        value={value}
        autoComplete="off"
        disabled={disabled}
        onChange={(e) => onChange(e.target.value)}
        // biome-ignore lint/a11y/noAutofocus: a dialog opens on its first field
        autoFocus
      />
    </Field>
  );
}
