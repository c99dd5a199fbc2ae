import { useRef, useState, type ReactNode } from 'react';
import { useClinicDirectory } from '../../lib/vocabulary.tsx';
import { FormDialog, NoticeDialog } from '../../lib/dialogs.tsx';
import { ConfirmSlugField } from './ConfirmSlugField.tsx';

/**
 * A clinic action that cannot be undone (reset, drop): offered only where the appliance's policy allows it, run
 * once the clinic's slug is typed back (as the CLI asks), and followed by a notice of what it did. Its words come
 * from the action's verb (`Drop`, `Dropping…`, `dropped`); `children` are the dialog's own warning and options,
 * above the confirmation field. The title names the clinic by its name, its slug beside it on one line.
 */
export function SlugConfirmedDialog<T>({
  slug,
  verb,
  policy,
  action,
  onConfirm,
  done,
  onClose,
  children,
}: {
  slug: string;
  verb: { name: string; doing: string; done: string };
  policy: { data?: { allowed: boolean }; error: unknown };
  action: { data?: T; isPending: boolean; error: unknown };
  onConfirm: () => void;
  done: (result: T) => ReactNode;
  onClose: () => void;
  children: ReactNode;
}) {
  const [typed, setTyped] = useState('');
  // Named as the directory last knew it: a dropped clinic leaves the directory while its notice still shows.
  const known = useClinicDirectory().nameOf(slug);
  const lastKnown = useRef(known);
  if (known) lastKnown.current = known;
  const nome = lastKnown.current;
  const allowed = policy.data?.allowed === true;
  const confirmed = typed.trim() === slug;
  // A slug breaks after its hyphens where a title wraps: it stays whole, the name wraps at its spaces.
  const clinic = nome ? (
    <>
      {nome} <span className="nowrap">({slug})</span>
    </>
  ) : (
    <span className="nowrap">{slug}</span>
  );
  if (action.data !== undefined) {
    return (
      <NoticeDialog
        title={
          <>
            {clinic} {verb.done}
          </>
        }
        onClose={onClose}
      >
        {done(action.data)}
      </NoticeDialog>
    );
  }
  return (
    <FormDialog
      title={
        <>
          {verb.name} {clinic}?
        </>
      }
      label={`${verb.name} clinic`}
      pendingLabel={verb.doing}
      variant="danger"
      pending={action.isPending}
      disabled={!confirmed || !allowed}
      onSubmit={(event) => {
        event.preventDefault();
        if (confirmed && allowed) onConfirm();
      }}
      error={action.error ?? policy.error}
      errorTitle={`The clinic was not ${verb.done}`}
      onClose={onClose}
    >
      {children}
      <ConfirmSlugField
        id={`${verb.name.toLowerCase()}-confirm`}
        slug={slug}
        value={typed}
        disabled={!allowed}
        onChange={setTyped}
      />
    </FormDialog>
  );
}
