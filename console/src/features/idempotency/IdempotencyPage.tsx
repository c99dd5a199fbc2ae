import { useState, type FormEvent, type ReactNode } from 'react';
import { href, navigate, useLocation } from '../../lib/router.ts';
import { ConfirmDialog } from '../../lib/dialogs.tsx';
import { ClinicSelectField, keyOptions, SelectField } from '../../lib/forms.tsx';
import { useCanWrite } from '../../lib/role.ts';
import { ListTable } from '../../lib/table.tsx';
import {
  Badge,
  Button,
  DatedLine,
  EmptyState,
  ErrorBanner,
  Field,
  Loading,
  PageHeader,
  SectionCard,
  formatDate,
  formatDateFull,
} from '../../lib/ui.tsx';
import { Code, shorten, StatusBadge, useClinicDirectory } from '../../lib/vocabulary.tsx';
import {
  useClinicIdempotency,
  useIdempotencyEntries,
  usePurgeEntry,
  useTenantKeys,
  type ConflictSide,
  type EntryState,
  type IdempotencyConflict,
  type IdempotencyEntry,
  type KeyRef,
} from './api.ts';

const STATE_LABEL: Record<EntryState, { label: string; tone: 'info' | 'ok' | 'bad' | 'warn'; help: string }> = {
  in_flight: {
    label: 'In flight',
    tone: 'info',
    help: 'The first request is still executing; a retry gets 409 CONCURRENT_REQUEST.',
  },
  abandoned: {
    label: 'Abandoned',
    tone: 'warn',
    help: 'Left in flight by a crash; its lease is over, so the next retry executes.',
  },
  completed: {
    label: 'Completed',
    tone: 'ok',
    help: 'A retry with the same body replays this answer; another body gets 422.',
  },
  stored_503: {
    label: 'Stored 503',
    tone: 'bad',
    help: 'The backend was unavailable; the spec replays this 503 for 24 h. Purge it to let the client retry now.',
  },
  orphaned: {
    label: 'Orphaned',
    tone: 'bad',
    help: 'Answered with this status, but at the last start the backend no longer held the write (a damaged database). It replays nothing: a retry with the same key and body executes again.',
  },
};

/** The header's syntax (server/idempotency/idempotency-plugin.ts IDEMPOTENCY_KEY_PATTERN): nothing else was ever stored. */
const IDEMPOTENCY_KEY = /^[A-Za-z0-9_-]{1,64}$/;

type Purging = { keyId: number; entry: IdempotencyEntry };

/** `#/idempotency?tenant=…&idem_key=…&chave_id=…`: a clinic, optionally a value to search and one of its keys. */
function SearchForm({
  tenant,
  idemKey,
  keyId,
}: {
  tenant: string | undefined;
  idemKey: string | undefined;
  keyId: number | null;
}) {
  const clinics = useClinicDirectory();
  const keys = useTenantKeys(tenant);
  const [value, setValue] = useState(idemKey ?? '');
  const [error, setError] = useState<string | undefined>();
  const search = (event: FormEvent) => {
    event.preventDefault();
    const text = value.trim();
    if (text && !IDEMPOTENCY_KEY.test(text))
      return setError('An Idempotency-Key is 1 to 64 letters, digits, “-” or “_”.');
    setError(undefined);
    navigate('/idempotency', { tenant, idem_key: text, chave_id: keyId });
  };
  return (
    // biome-ignore lint/a11y/useSemanticElements: the search landmark is this form itself (a <search> would wrap it)
    <form
      className="card card-pad"
      role="search"
      aria-label="Idempotency search"
      onSubmit={search}
      noValidate
      style={{ marginBottom: 16, paddingBottom: 4 }}
    >
      <div className="grid-search">
        <ClinicSelectField
          id="idem-tenant"
          value={tenant ?? ''}
          onChange={(slug) => navigate('/idempotency', { tenant: slug, idem_key: idemKey })}
          clinics={clinics.data}
          blank="Choose a clinic"
        />
        <Field
          id="idem-value"
          label="Idempotency-Key"
          error={error}
          hint="The header's value, under any key of the clinic."
        >
          <div className="inline-field">
            <input
              id="idem-value"
              className="mono"
              value={value}
              disabled={!tenant}
              placeholder="e.g. 3f1c9a2e-…"
              spellCheck={false}
              onChange={(e) => setValue(e.target.value)}
            />
            <Button type="submit" variant="primary" disabled={!tenant}>
              Search
            </Button>
          </div>
        </Field>
        <SelectField
          id="idem-key"
          label="API key"
          hint="Or every live entry of one key."
          value={keyId ?? ''}
          disabled={!tenant}
          onChange={(id) => navigate('/idempotency', { tenant, idem_key: idemKey, chave_id: id })}
          options={keyOptions(keys.data)}
          blank={tenant ? 'Choose a key' : 'Choose a clinic first'}
        />
      </div>
    </form>
  );
}

function KeyCell({ apiKey }: { apiKey: KeyRef | null }) {
  if (!apiKey) return <span className="muted">—</span>;
  return (
    <div>
      <a href={href('/audit', { chave_id: apiKey.id })} title="Every call of this key">
        #{apiKey.id}
      </a>{' '}
      {apiKey.label && <span title={apiKey.label}>{shorten(apiKey.label, 28)}</span>}
      <div className="muted mono" style={{ fontSize: 12 }}>
        <span className="nowrap">{apiKey.api_key_masked}</span>{' '}
        {apiKey.status !== 'active' && <StatusBadge status={apiKey.status} />}
      </div>
    </div>
  );
}

/** The first 16 hex digits (the whole in the tooltip and in `data-fingerprint`). */
function Fingerprint({ value }: { value: string | null }) {
  if (!value)
    return (
      <span className="muted" title="Refusals journaled before this release recorded no fingerprint">
        not recorded
      </span>
    );
  return (
    <span className="fingerprint-short" title={value} data-fingerprint={value}>
      {value.slice(0, 16)}…
    </span>
  );
}

/** Live entries: of one key, or (`withKey`) of one Idempotency-Key value across the clinic's keys, each with its key. */
function EntriesList({
  onPurge,
  withKey,
  ...states
}: {
  pending?: boolean;
  rows: Array<IdempotencyEntry & { key?: KeyRef }> | undefined;
  /** What is said when there is none: of this key, or with this value. */
  empty: ReactNode;
  onPurge: (p: Purging) => void;
  withKey?: boolean;
}) {
  // Purging is an admin's (the console API refuses a viewer's write anyway).
  const canWrite = useCanWrite();
  return (
    <ListTable
      {...states}
      testId={withKey ? 'idem-search-entries' : 'idempotency-table'}
      columns={[
        withKey === true && 'API key',
        { label: 'Entry', title: 'Idempotency-Key, then the operation (method and path)' },
        'State',
        'Fingerprint',
        'Lifetime',
      ]}
      rowKey={(r) => `${r.key?.id ?? ''} ${r.entry}`}
      row={(r) => ({ 'data-idem-key': r.idem_key, 'data-key-id': r.key?.id })}
      cells={(r) => {
        const state = STATE_LABEL[r.state];
        return (
          <>
            {withKey && (
              <td>
                <KeyCell apiKey={r.key ?? null} />
              </td>
            )}
            <td>
              <Code>{r.idem_key}</Code>
              <div className="muted" style={{ fontSize: 12 }}>
                <Code>{`${r.method} ${r.path}`}</Code>
              </div>
            </td>
            <td className="nowrap">
              <span title={state.help}>
                <Badge tone={state.tone}>{state.label}</Badge>
              </span>
              {r.status !== null && r.state !== 'stored_503' && <span className="muted mono"> {r.status}</span>}
              <div className="mono" style={{ fontSize: 12 }} title="The request that executed it">
                {r.audit_id !== null ? (
                  <a href={href(`/audit/${r.audit_id}`)} title={r.request_id ?? ''} data-testid="idem-audit-link">
                    …{r.request_id?.slice(-8)}
                  </a>
                ) : r.request_id ? (
                  <a href={href('/audit', { request_id: r.request_id })} title={r.request_id}>
                    …{r.request_id.slice(-8)}
                  </a>
                ) : null}
              </div>
            </td>
            <td>
              <Fingerprint value={r.fingerprint} />
            </td>
            <td style={{ fontSize: 12.5 }}>
              <DatedLine label="First use" iso={r.created_at} />
              <DatedLine label="Expires" iso={r.expires_at} />
            </td>
          </>
        );
      }}
      actions={(r) =>
        canWrite && (
          <Button
            className="btn-sm"
            variant="danger"
            disabled={r.state === 'in_flight'}
            title={r.state === 'in_flight' ? 'Still executing: wait for the answer' : undefined}
            onClick={() => onPurge({ keyId: r.key?.id ?? -1, entry: r })}
            aria-label={`Purge ${r.idem_key}${withKey ? ` of key ${r.key?.id}` : ''}`}
          >
            Purge
          </Button>
        )
      }
    />
  );
}

function Side({ side, testId }: { side: ConflictSide | null; testId: string }) {
  if (!side) return <span className="muted">The entry has expired</span>;
  return (
    <div data-testid={testId}>
      <div className="muted" style={{ fontSize: 12 }}>
        <Code>{`${side.method} ${side.path}`}</Code>
      </div>
      <Fingerprint value={side.fingerprint} />
      {side.audit_id !== null && (
        <div style={{ fontSize: 12 }}>
          <a href={href(`/audit/${side.audit_id}`)} title={side.request_id ?? ''}>
            Journal entry
          </a>
        </div>
      )}
    </div>
  );
}

const REASONS = { body: 'Another body', operation: 'Another operation' } as const;

/** The retries refused with 422 IDEMPOTENCY_CONFLICT, each with the first use and this request side by side. */
function ConflictsList({ pending, rows }: { pending: boolean; rows: IdempotencyConflict[] | undefined }) {
  return (
    <ListTable
      pending={pending}
      rows={rows}
      empty={
        <EmptyState title="No conflicts">
          A retry that reuses an Idempotency-Key with another body, or on another operation, is refused with 422 and
          listed here.
        </EmptyState>
      }
      testId="idem-conflicts"
      columns={['Time', 'API key', 'Idempotency-Key', 'Why', 'First use', 'This request']}
      rowKey={(c) => c.audit_id}
      row={(c) => ({ 'data-request-id': c.request_id, 'data-idem-key': c.idem_key ?? undefined })}
      cells={(c) => (
        <>
          <td className="nowrap" title={formatDateFull(c.ts)}>
            <a href={href(`/audit/${c.audit_id}`)}>{formatDate(c.ts)}</a>
          </td>
          <td>
            <KeyCell apiKey={c.key} />
          </td>
          <td>{c.idem_key ? <Code>{c.idem_key}</Code> : <span className="muted">—</span>}</td>
          <td className="nowrap">{c.reason ? REASONS[c.reason] : '—'}</td>
          <td>
            <Side side={c.first} testId="conflict-first" />
          </td>
          <td>
            <Side side={c.sent} testId="conflict-sent" />
          </td>
        </>
      )}
    />
  );
}

/** The clinic-wide view: the entries of one value across the clinic's keys, and its 422 conflicts. */
function ClinicSection({
  tenant,
  idemKey,
  onPurge,
}: {
  tenant: string;
  idemKey: string | undefined;
  onPurge: (p: Purging) => void;
}) {
  const result = useClinicIdempotency(tenant, idemKey);
  const data = result.data;
  return (
    <>
      <ErrorBanner error={result.error} title="The clinic's idempotency could not be loaded" />
      {idemKey !== undefined && (
        <SectionCard
          label="Entries of this Idempotency-Key"
          title={
            <>
              Entries with Idempotency-Key <Code>{idemKey}</Code>
            </>
          }
          meta={
            <Button className="btn-sm" onClick={() => void result.refetch()} disabled={result.isFetching}>
              {result.isFetching ? 'Refreshing…' : 'Refresh'}
            </Button>
          }
          style={{ marginBottom: 16 }}
        >
          <EntriesList
            pending={result.isPending}
            rows={data?.entries}
            empty={
              <EmptyState title="No live entry with this value">
                No key of {data?.tenant.nome ?? tenant} used it in the last 24 hours (or its entry was purged).
              </EmptyState>
            }
            onPurge={onPurge}
            withKey
          />
        </SectionCard>
      )}
      <SectionCard
        label="Idempotency conflicts"
        title="Conflicts (422 IDEMPOTENCY_CONFLICT)"
        meta={
          data && (
            <span className="muted">
              {data.conflicts.length}
              {data.conflicts_truncated ? '+' : ''} {idemKey ? 'with this value' : 'newest'} · from the audit log
            </span>
          )
        }
        style={{ marginBottom: 16 }}
      >
        <ConflictsList pending={result.isPending} rows={data?.conflicts} />
      </SectionCard>
    </>
  );
}

/** One key's live entries, as before issue 22 (from a row of the API keys page, or the key select). */
function KeySection({ keyId, onPurge }: { keyId: number; onPurge: (p: Purging) => void }) {
  const entries = useIdempotencyEntries(keyId);
  return (
    <>
      <ErrorBanner error={entries.error} title="The entries could not be loaded" />
      {entries.isPending ? (
        <Loading />
      ) : (
        <section className="card" aria-label="Idempotency entries" style={{ marginBottom: 16 }}>
          <div className="section-title">
            <div>
              <strong>Key #{keyId}</strong> <span className="mono muted">{entries.data?.key.api_key_masked}</span>{' '}
              {entries.data?.key.label && <span className="muted">· {entries.data.key.label}</span>}
            </div>
            <div className="page-actions">
              <a href={href('/audit', { chave_id: keyId })}>Calls of this key →</a>
              <Button className="btn-sm" onClick={() => void entries.refetch()} disabled={entries.isFetching}>
                {entries.isFetching ? 'Refreshing…' : 'Refresh'}
              </Button>
            </div>
          </div>
          <EntriesList
            rows={entries.data?.items}
            empty={
              <EmptyState title="No live entries">
                Writes sent with an Idempotency-Key appear here for 24 hours.
              </EmptyState>
            }
            onPurge={(p) => onPurge({ ...p, keyId })}
          />
          {entries.data?.truncated && <div className="pager">Showing the 200 newest entries.</div>}
        </section>
      )}
    </>
  );
}

/**
 * The idempotency inspector: search a clinic by Idempotency-Key value across its keys, its 422 conflicts
 * with both bodies' fingerprints, one key's stored write outcomes (metadata only: the sealed responses are
 * never opened), each linked to the audit entry of its request, and a purge.
 */
export function IdempotencyPage() {
  const { params } = useLocation();
  const rawKey = Number(params.get('chave_id'));
  const keyId = Number.isInteger(rawKey) && rawKey > 0 ? rawKey : null;
  const idemKey = params.get('idem_key') || undefined;
  const keyEntries = useIdempotencyEntries(keyId);
  const tenant = params.get('tenant') || keyEntries.data?.key.tenant_slug || undefined;
  const purge = usePurgeEntry();
  const [confirm, setConfirm] = useState<Purging | null>(null);

  return (
    <>
      <PageHeader
        title="Idempotency"
        description="Write outcomes kept 24 h per API key and operation, and the retries refused for reusing a key. Responses stay sealed; only their metadata is shown here."
      />
      <SearchForm key={`${tenant ?? ''} ${idemKey ?? ''}`} tenant={tenant} idemKey={idemKey} keyId={keyId} />
      {!tenant && keyId === null ? (
        <section className="card">
          <EmptyState title="Choose a clinic">
            Then search for an Idempotency-Key value, read its conflicts, or pick one of its keys — or open
            “Idempotency” from a row of the API keys page.
          </EmptyState>
        </section>
      ) : (
        <>
          {keyId !== null && (
            <KeySection
              keyId={keyId}
              onPurge={(p) => {
                purge.reset();
                setConfirm(p);
              }}
            />
          )}
          {tenant && (
            <ClinicSection
              tenant={tenant}
              idemKey={idemKey}
              onPurge={(p) => {
                purge.reset();
                setConfirm(p);
              }}
            />
          )}
        </>
      )}
      <ConfirmDialog
        open={confirm !== null}
        title="Purge this idempotency entry?"
        label="Purge entry"
        pendingLabel="Purging…"
        variant="danger"
        solid={false}
        pending={purge.isPending}
        onConfirm={() =>
          confirm &&
          purge.mutate({ keyId: confirm.keyId, entry: confirm.entry.entry }, { onSuccess: () => setConfirm(null) })
        }
        onClose={() => setConfirm(null)}
      >
        {confirm && (
          <>
            <p>
              The next request of key #{confirm.keyId} with Idempotency-Key <code>{confirm.entry.idem_key}</code> on{' '}
              <code>
                {confirm.entry.method} {confirm.entry.path}
              </code>{' '}
              goes to the backend again instead of replaying the stored answer. A write the backend already committed
              comes back as a replay (never a second one); a stored 503 is retried for real. The purge is recorded in
              the audit log.
            </p>
            <ErrorBanner error={purge.error} title="The entry was not purged" />
          </>
        )}
      </ConfirmDialog>
    </>
  );
}
