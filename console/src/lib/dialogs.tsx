import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { Button, ErrorBanner } from './ui.tsx';

/**
 * Focus goes back where it came from when a dialog goes away (closed or unmounted). A dialog that follows
 * another (issue → secret) inherits the first one's origin. When the origin has gone (a revoked row
 * hidden), the page heading takes focus so the keyboard user is not dropped at the top of the document.
 */
let handoff: HTMLElement | null = null;

function useReturnFocus(open: boolean) {
  useEffect(() => {
    if (!open) return;
    const active = document.activeElement;
    const origin =
      active instanceof HTMLElement && active !== document.body && !active.closest('dialog') ? active : handoff;
    return () => {
      handoff = origin;
      // After React has removed the dialog, and after a following dialog (if any) has opened.
      setTimeout(() => {
        if (handoff === origin) handoff = null;
        if (document.querySelector('dialog[open]')) return;
        if (origin?.isConnected && !(origin as HTMLButtonElement).disabled) return origin.focus();
        const heading = document.querySelector<HTMLElement>('main h1');
        if (heading) {
          heading.tabIndex = -1;
          heading.focus();
        }
      }, 0);
    };
  }, [open]);
}

/** Modal built on <dialog>: focus is trapped by the browser and Escape closes it. */
export function Dialog({
  open,
  title,
  onClose,
  children,
  footer,
  wide,
  dismissible = true,
}: {
  open: boolean;
  title: ReactNode;
  onClose: () => void;
  children: ReactNode;
  footer?: ReactNode;
  wide?: boolean;
  dismissible?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  // Before showModal moves focus into the dialog.
  useReturnFocus(open);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      className={`dialog ${wide ? 'dialog-wide' : ''}`}
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        if (dismissible) onClose();
      }}
    >
      {open && (
        <>
          <header className="dialog-header">
            <h2 id={titleId}>{title}</h2>
            {dismissible && (
              <button type="button" className="icon-btn" aria-label="Close" onClick={onClose}>
                ×
              </button>
            )}
          </header>
          <div className="dialog-body">{children}</div>
          {footer && <footer className="dialog-footer">{footer}</footer>}
        </>
      )}
    </dialog>
  );
}

/** A dialog's one action beside Cancel: its words (others while it runs), its colour, when it may be pressed. */
export interface DialogAction {
  label: string;
  /** Shown instead of `label` while the action runs ("Issuing…"); the label stays when not given. */
  pendingLabel?: string;
  pending: boolean;
  /** Not yet possible (besides while pending), e.g. until the slug is typed back. */
  disabled?: boolean;
  variant?: 'primary' | 'danger';
  /** A danger action is drawn solid red unless `solid` is false. */
  solid?: boolean;
  autoFocus?: boolean;
}

/** Cancel, then the action: the footer of every dialog that asks before it acts. */
function CancelAnd({
  onClose,
  action,
  button,
}: {
  onClose: () => void;
  action: DialogAction;
  button: React.ButtonHTMLAttributes<HTMLButtonElement>;
}) {
  const { label, pendingLabel, pending, disabled, variant = 'primary', solid = true, autoFocus } = action;
  return (
    <>
      <Button onClick={onClose}>Cancel</Button>
      <Button
        {...button}
        variant={variant}
        className={variant === 'danger' && solid ? 'solid' : ''}
        disabled={pending || disabled}
        autoFocus={autoFocus}
      >
        {pending && pendingLabel ? pendingLabel : label}
      </Button>
    </>
  );
}

/**
 * A dialog around one form (issue a key, add an operator, create a clinic…): the form's fields as children,
 * under the banner of what the server refused; Cancel and the submit button in the footer. The form
 * validates itself (`noValidate`): field errors come from the contract's schema and the server, shown by each Field.
 */
export function FormDialog({
  title,
  onSubmit,
  onClose,
  error,
  errorTitle,
  wide,
  children,
  ...action
}: DialogAction & {
  title: ReactNode;
  onSubmit: (event: FormEvent) => void;
  onClose: () => void;
  error: unknown;
  errorTitle: string;
  wide?: boolean;
  children: ReactNode;
}) {
  // The submit button sits in the footer, outside the form: it names the form by id.
  const formId = useId();
  return (
    <Dialog
      open
      title={title}
      onClose={onClose}
      wide={wide}
      footer={<CancelAnd onClose={onClose} action={action} button={{ type: 'submit', form: formId }} />}
    >
      <form id={formId} onSubmit={onSubmit} noValidate>
        <ErrorBanner error={error} title={errorTitle} />
        {children}
      </form>
    </Dialog>
  );
}

/**
 * Asks before an action that cannot be taken back (revoke, rotate, disable, purge): what happens as
 * children, the action's error above them, Cancel and the action in the footer.
 */
export function ConfirmDialog({
  title,
  onConfirm,
  onClose,
  error,
  errorTitle,
  open = true,
  children,
  ...action
}: DialogAction & {
  title: ReactNode;
  onConfirm: () => void;
  onClose: () => void;
  /** The action's failure, shown above the children (a dialog may show it itself, among its children). */
  error?: unknown;
  errorTitle?: string;
  open?: boolean;
  children: ReactNode;
}) {
  return (
    <Dialog
      open={open}
      title={title}
      onClose={onClose}
      footer={<CancelAnd onClose={onClose} action={action} button={{ onClick: onConfirm }} />}
    >
      <ErrorBanner error={error} title={errorTitle} />
      {children}
    </Dialog>
  );
}

/** What an action did, to read and close with Done (a password changed, a clinic reset). */
export function NoticeDialog({
  title,
  onClose,
  children,
}: {
  title: ReactNode;
  onClose: () => void;
  children: ReactNode;
}) {
  return (
    <Dialog
      open
      title={title}
      onClose={onClose}
      footer={
        <Button variant="primary" onClick={onClose}>
          Done
        </Button>
      }
    >
      {children}
    </Dialog>
  );
}

/**
 * Shows a credential once (API secret, operator token): it cannot be dismissed until the operator
 * confirms they stored it. `warning` is the banner; the credential and anything else are the children.
 */
export function ShownOnceDialog({
  title,
  storedLabel,
  warning,
  onClose,
  children,
}: {
  title: ReactNode;
  storedLabel: string;
  warning: ReactNode;
  onClose: () => void;
  children: ReactNode;
}) {
  const [saved, setSaved] = useState(false);
  return (
    <Dialog
      open
      wide
      dismissible={false}
      onClose={onClose}
      title={title}
      footer={
        <>
          <label className="checkbox" style={{ marginRight: 'auto' }}>
            <input type="checkbox" checked={saved} onChange={(e) => setSaved(e.target.checked)} />
            {storedLabel}
          </label>
          <Button variant="primary" onClick={onClose} disabled={!saved}>
            Done
          </Button>
        </>
      }
    >
      <div className="banner banner-warn" role="alert">
        {warning}
      </div>
      {children}
    </Dialog>
  );
}
