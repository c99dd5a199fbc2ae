import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { ApiError } from './api.ts';
import { englishMessage, errorSentence } from './messages.ts';

export function Button({
  variant = 'secondary',
  ...props
}: React.ButtonHTMLAttributes<HTMLButtonElement> & { variant?: 'primary' | 'secondary' | 'danger' | 'ghost' }) {
  return <button type="button" {...props} className={`btn btn-${variant} ${props.className ?? ''}`} />;
}

export function PageHeader({ title, description, actions }: { title: string; description?: ReactNode; actions?: ReactNode }) {
  return (
    <header className="page-header">
      <div>
        <h1>{title}</h1>
        {description && <p className="muted">{description}</p>}
      </div>
      {actions && <div className="page-actions">{actions}</div>}
    </header>
  );
}

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
    const origin = active instanceof HTMLElement && active !== document.body && !active.closest('dialog') ? active : handoff;
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
  title: string;
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

export function Field({ label, error, hint, children, id }: { label: string; error?: string; hint?: ReactNode; children: ReactNode; id: string }) {
  return (
    <div className={`field ${error ? 'field-error' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children}
      {hint && !error && <div className="hint">{hint}</div>}
      {error && (
        <div className="error-text" role="alert">
          {englishMessage(error)}
        </div>
      )}
    </div>
  );
}

export function ErrorBanner({ error, title = 'Something went wrong' }: { error: unknown; title?: string }) {
  if (!error) return null;
  const e = error instanceof ApiError ? error : null;
  return (
    <div className="banner banner-error" role="alert">
      <strong>{title}</strong>
      <div>{e ? errorSentence(e) : englishMessage(String((error as Error)?.message ?? error))}</div>
      {e && (
        <div className="banner-meta">
          <code>{e.code}</code>
          {e.requestId && (
            <>
              {' '}
              · request <code>{e.requestId}</code>
            </>
          )}
        </div>
      )}
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <div className="empty-title">{title}</div>
      {children && <div className="muted">{children}</div>}
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="loading" role="status">
      <span className="spinner" aria-hidden="true" />
      {label}
    </div>
  );
}

/** The foot of a list read page by page: how many are shown, and the button for the older ones. */
export function LoadMorePager({
  shown,
  noun,
  nouns,
  query,
}: {
  shown: number;
  noun: string;
  nouns: string;
  query: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => unknown };
}) {
  return (
    <div className="pager">
      <span>
        {shown} {shown === 1 ? noun : nouns} shown
      </span>
      {query.hasNextPage ? (
        <Button onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage}>
          {query.isFetchingNextPage ? 'Loading…' : `Load older ${nouns}`}
        </Button>
      ) : (
        <span>End of {nouns}</span>
      )}
    </div>
  );
}

export function Badge({ tone = 'neutral', children }: { tone?: 'neutral' | 'ok' | 'warn' | 'bad' | 'info'; children: ReactNode }) {
  return <span className={`badge badge-${tone}`}>{children}</span>;
}

export function statusTone(status: number): 'ok' | 'warn' | 'bad' | 'info' {
  if (status >= 500) return 'bad';
  if (status >= 400) return 'warn';
  if (status >= 300) return 'info';
  return 'ok';
}

/** Compact: day, month and time to the minute (the year only when it is not this year); the exact instant goes in a title. */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const sameYear = d.getFullYear() === new Date().getFullYear();
  return d.toLocaleString('en-GB', {
    year: sameYear ? undefined : 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hour12: false,
  });
}

/** Every digit, for a tooltip or a detail page. */
export function formatDateFull(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'medium' })} (${iso})`;
}

export function relativeTime(iso: string | null | undefined): string {
  if (!iso) return 'never';
  const seconds = Math.round((Date.now() - new Date(iso).getTime()) / 1000);
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return `${Math.floor(seconds / 86_400)} d ago`;
}

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

export function JsonBlock({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <span className="muted">—</span>;
  return <pre className="json">{JSON.stringify(value, null, 2)}</pre>;
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
  title: string;
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
