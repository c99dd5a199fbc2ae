import { Fragment, type CSSProperties, type ReactNode } from 'react';
import { ApiError } from './api.ts';
import { englishMessage, errorSentence } from './messages.ts';

export function Button({
  variant = 'secondary',
  ...props
}: React.ButtonHTMLAttributes<HTMLButtonElement> & { variant?: 'primary' | 'secondary' | 'danger' | 'ghost' }) {
  return <button type="button" {...props} className={`btn btn-${variant} ${props.className ?? ''}`} />;
}

/** A page's action that adds one more of what it lists: `+ New operator`, `+ New key`. */
export function NewButton({
  noun,
  ...props
}: Omit<React.ButtonHTMLAttributes<HTMLButtonElement>, 'children'> & { noun: string }) {
  return (
    <Button variant="primary" {...props}>
      {`+ New ${noun}`}
    </Button>
  );
}

export function PageHeader({
  title,
  description,
  actions,
}: {
  title: string;
  description?: ReactNode;
  actions?: ReactNode;
}) {
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

export function Field({
  label,
  error,
  hint,
  children,
  id,
}: {
  label: string;
  error?: string;
  hint?: ReactNode;
  children: ReactNode;
  id: string;
}) {
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

/** A card with a titled head (the title, then what is said about the list: a count, a button) and its body. */
export function SectionCard({
  label,
  title,
  meta,
  style,
  children,
}: {
  label: string;
  title: ReactNode;
  meta?: ReactNode;
  style?: CSSProperties;
  children: ReactNode;
}) {
  return (
    <section className="card" aria-label={label} style={style}>
      <div className="section-title">
        <h2>{title}</h2>
        {meta}
      </div>
      {children}
    </section>
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

export function Badge({
  tone = 'neutral',
  children,
}: {
  tone?: 'neutral' | 'ok' | 'warn' | 'bad' | 'info';
  children: ReactNode;
}) {
  // A tone is coloured by its pair of variables in styles.css (`--ok` on `--ok-bg`); neutral keeps the badge's own.
  const colours = tone === 'neutral' ? undefined : { color: `var(--${tone})`, background: `var(--${tone}-bg)` };
  return (
    <span className="badge" style={colours}>
      {children}
    </span>
  );
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

/** Day and time on two lines (`2 Dec` / `04:48`) in a `col-time` cell, every digit in the tooltip; `—` without a date. */
export function DayAndTime({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <>—</>;
  const [day, time] = formatDate(iso).split(', ');
  return (
    <span title={formatDateFull(iso)}>
      <span>{day}</span>
      {time && <span>{time}</span>}
    </span>
  );
}

/** One dated line of an activity cell: "Created 3 Feb, 14:05", every digit in its tooltip; `text` replaces the date ("2 h ago"). */
export function DatedLine({ label, iso, text }: { label: string; iso: string | null | undefined; text?: string }) {
  return (
    <div className="nowrap" title={formatDateFull(iso)}>
      <span className="muted">{label}</span> {text ?? formatDate(iso)}
    </div>
  );
}

export function relativeTime(iso: string | null | undefined): string {
  if (!iso) return 'never';
  const seconds = Math.round((Date.now() - new Date(iso).getTime()) / 1000);
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return `${Math.floor(seconds / 86_400)} d ago`;
}

export function JsonBlock({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <span className="muted">—</span>;
  return <pre className="json">{breakable(JSON.stringify(value, null, 2))}</pre>;
}

/** Past this length text is left whole (a huge body would become thousands of nodes); CSS still wraps it, anywhere. */
const BREAKABLE_MAX = 50_000;

/**
 * Long text without spaces (a code, a path, JSON, a parameter name in a message): a line may break after
 * `_ . / : - ? & =` and, with the block's `overflow-wrap`, inside a piece only when that piece is longer than the
 * whole line, so a narrow column never splits a word ("EXP/IRED", "inv/entou"). `<wbr>` adds no character:
 * the text, its copy and its test reads are unchanged.
 */
export function breakable(text: string): ReactNode {
  if (text.length > BREAKABLE_MAX) return text;
  return text.split(/(?<=[_./:?&=-])/).map((part, i) => (
    // biome-ignore lint/suspicious/noArrayIndexKey: the pieces of one string, in order; the position is the piece
    <Fragment key={i}>
      {i > 0 && <wbr />}
      {part}
    </Fragment>
  ));
}
