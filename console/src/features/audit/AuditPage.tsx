import { type InputHTMLAttributes, useState } from 'react';
import { auditQuerySchema } from '../../../../contracts/admin/audit.ts';
import { href, navigate, useLocation } from '../../lib/router.ts';
import { clinicOptions, type Option, SelectField, useFieldErrors, valueOptions } from '../../lib/forms.tsx';
import { ListTable } from '../../lib/table.tsx';
import { Badge, Button, EmptyState, ErrorBanner, Field, LoadMorePager, PageHeader, formatDate } from '../../lib/ui.tsx';
import { ClinicName, Code, HttpStatus, useClinicDirectory } from '../../lib/vocabulary.tsx';
import { actionLabel } from './actions.ts';
import { PruneJournalDialog } from './PruneJournalDialog.tsx';
import { useCanWrite } from '../../lib/role.ts';
import { HarExportButton } from './HarExportButton.tsx';
import { ReceivedPanel } from './ReceivedPanel.tsx';
import {
  FILTER_NAMES,
  useAuditPages,
  useAuditStorage,
  useUnattributed,
  type AuditFilters,
  type AuditStorage,
} from './api.ts';

/** datetime-local ⇄ ISO (the URL and the API carry UTC ISO 8601). */
const toLocalInput = (iso: string | undefined) => {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
const fromLocalInput = (value: string) => (value ? new Date(value).toISOString() : '');

const SOURCES = [
  { value: 'api', label: 'API (/v1)' },
  { value: 'console', label: 'Console actions' },
];

function FiltersForm({ initial }: { initial: AuditFilters }) {
  const tenants = useClinicDirectory();
  const [draft, setDraft] = useState<AuditFilters>(initial);
  const { errors, submit } = useFieldErrors();
  const set = (name: string) => (value: string) => setDraft({ ...draft, [name]: value });
  const typed = (name: string) => (e: React.ChangeEvent<HTMLInputElement>) => set(name)(e.target.value);
  // Each filter's field, its control bound to the draft's `name`.
  const textFilter = (
    name: string,
    id: string,
    label: string,
    error: string | undefined,
    input: InputHTMLAttributes<HTMLInputElement>,
  ) => (
    <Field id={id} label={label} error={error}>
      <input id={id} {...input} value={draft[name] ?? ''} onChange={typed(name)} />
    </Field>
  );
  const selectFilter = (name: string, id: string, label: string, options: Option[] | undefined, blank: string) => (
    <SelectField id={id} label={label} value={draft[name] ?? ''} onChange={set(name)} options={options} blank={blank} />
  );
  const instantFilter = (name: 'from' | 'to', id: string, label: string) => (
    <Field id={id} label={label} error={errors[name]}>
      <input
        id={id}
        type="datetime-local"
        value={toLocalInput(draft[name])}
        onChange={(e) => setDraft({ ...draft, [name]: fromLocalInput(e.target.value) })}
      />
    </Field>
  );
  const apply = submit(auditQuerySchema, draft, () =>
    navigate('/audit', Object.fromEntries(FILTER_NAMES.map((n) => [n, draft[n]?.trim()]))),
  );

  return (
    <form className="card card-pad" onSubmit={apply} noValidate aria-label="Audit filters" style={{ marginBottom: 16 }}>
      <div className="grid-filters">
        {selectFilter('tenant', 'f-tenant', 'Clinic', clinicOptions(tenants.data), 'All clinics')}
        {textFilter('chave_id', 'f-key', 'Key id', errors.chave_id, { inputMode: 'numeric', placeholder: 'e.g. 12' })}
        {selectFilter('method', 'f-method', 'Method', valueOptions(['GET', 'POST', 'PATCH', 'DELETE']), 'Any')}
        {textFilter('path', 'f-path', 'Path starts with', errors.path, { placeholder: '/v1/pacientes' })}
        {textFilter('status', 'f-status', 'Status', errors.status, { inputMode: 'numeric', placeholder: 'e.g. 401' })}
        {textFilter('error_code', 'f-error', 'Error code', undefined, { placeholder: 'e.g. AUTH_KEY_REVOKED' })}
        {textFilter('request_id', 'f-request', 'Request id', undefined, { className: 'mono' })}
        {selectFilter('source', 'f-source', 'Source', SOURCES, 'API and console')}
        {instantFilter('from', 'f-from', 'From')}
        {instantFilter('to', 'f-to', 'To')}
      </div>
      <div className="form-actions">
        <Button
          onClick={() => {
            setDraft({});
            navigate('/audit');
          }}
        >
          Reset
        </Button>
        <Button type="submit" variant="primary">
          Apply filters
        </Button>
      </div>
    </form>
  );
}

const count = (n: number) => n.toLocaleString('en-US');
const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** The journal against its budget: verified history, noise, free space, the oldest entry. */
function StorageLine({ storage: s }: { storage: AuditStorage | undefined }) {
  if (!s) return null;
  const j = s.journal;
  const used = j.totals.verified.bytes + j.totals.unverified.bytes + j.totals.unattributed.bytes;
  const share = Math.max(used / j.max_bytes, s.rows / s.max_rows, j.disk.footprint_bytes / j.max_bytes);
  return (
    <p className="hint" data-testid="audit-storage" style={{ margin: '-8px 0 16px' }}>
      <Badge tone={j.state === 'ok' ? (share >= 0.8 ? 'warn' : 'neutral') : j.state === 'warning' ? 'warn' : 'bad'}>
        {megabytes(used)} / {megabytes(j.max_bytes)}
      </Badge>{' '}
      {count(j.totals.verified.rows)} verified entries, {count(j.totals.unverified.rows)} unverified refusals and{' '}
      {count(j.totals.unattributed.rows)} unattributed groups ({count(s.rows)} / {count(s.max_rows)} rows). Oldest entry{' '}
      {s.oldest_ts ? formatDate(s.oldest_ts) : '—'}. Entries older than {s.retention_days} days are deleted every 10
      minutes; unverified and unattributed entries are held to {megabytes(j.noise_cap_bytes)} (oldest dropped first),
      verified ones are never dropped to make room. On disk the journal takes {megabytes(j.disk.footprint_bytes)} of its{' '}
      {megabytes(j.max_bytes)} (its pages in gateway.db, {megabytes(j.disk.wal_share_bytes + j.disk.shm_bytes)} for the
      WAL). gateway.db {megabytes(s.database_bytes)} ({megabytes(s.free_bytes)} free for reuse)
      {j.free_bytes !== null ? `; ${megabytes(j.free_bytes)} free on disk` : ''}.
    </p>
  );
}

/** Requests that named no existing key, counted per minute, address, status and code: one sample each. */
function UnattributedSection() {
  const groups = useUnattributed();
  const rows = groups.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <section className="card" aria-label="Unattributed requests" style={{ marginTop: 16 }}>
      <div className="card-pad" style={{ paddingBottom: 0 }}>
        <h3 style={{ margin: 0 }}>Unattributed requests</h3>
        <p className="hint">
          Requests that named no existing key (no key, an unknown key, malformed headers, unknown routes, parser
          refusals), counted per minute, client address, status and error code, with the first request of each group as
          a sample.
        </p>
      </div>
      <ErrorBanner error={groups.error} title="The unattributed requests could not be loaded" />
      <ListTable
        pending={groups.isPending}
        rows={rows}
        empty={<EmptyState title="No unattributed requests">Every request kept named an existing key.</EmptyState>}
        testId="unattributed-groups"
        columns={[
          'Minute',
          'Client address',
          'Status',
          'Error',
          { label: 'Requests', style: { textAlign: 'right' } },
          'Sample',
        ]}
        rowKey={(g) => g.id}
        cells={(g) => {
          const sample = typeof g.sample === 'string' ? null : g.sample;
          return (
            <>
              <td className="nowrap">{formatDate(g.first_ts)}</td>
              <td>
                <Code>{g.client_ip}</Code>
              </td>
              <td>
                <HttpStatus status={g.status} />
              </td>
              <td>{g.error_code ? <Code>{g.error_code}</Code> : ''}</td>
              <td className="mono" style={{ textAlign: 'right' }}>
                {count(g.count)}
              </td>
              <td className="path-cell mono" title={sample?.path}>
                {sample ? `${sample.method ?? ''} ${sample.path ?? ''}` : ''}
              </td>
            </>
          );
        }}
        footer={<LoadMorePager shown={rows.length} noun="group" nouns="groups" query={groups} />}
      />
    </section>
  );
}

export function AuditPage() {
  const { params } = useLocation();
  const filters: AuditFilters = {};
  for (const name of FILTER_NAMES) {
    const value = params.get(name);
    if (value) filters[name] = value;
  }
  const pages = useAuditPages(filters);
  const storage = useAuditStorage();
  const unattributed = useUnattributed();
  const clinics = useClinicDirectory();
  const rows = pages.data?.pages.flatMap((p) => p.items) ?? [];
  const filterKey = JSON.stringify(filters);
  const canWrite = useCanWrite();
  const [pruning, setPruning] = useState(false);

  return (
    <>
      <PageHeader
        title="Audit log"
        description="Every API request and console action, the last to arrive first. Bodies are stored redacted and bounded; a body that did not parse is described, never stored."
        actions={
          <>
            {canWrite && <Button onClick={() => setPruning(true)}>Prune journal…</Button>}
            <HarExportButton filters={filters} />
            <Button
              onClick={() => void Promise.all([pages.refetch(), storage.refetch(), unattributed.refetch()])}
              disabled={pages.isFetching}
            >
              {pages.isFetching && !pages.isFetchingNextPage ? 'Refreshing…' : 'Refresh'}
            </Button>
          </>
        }
      />
      {pruning && <PruneJournalDialog onClose={() => setPruning(false)} />}
      <StorageLine storage={storage.data} />
      <FiltersForm key={filterKey} initial={filters} />
      <ReceivedPanel key={`received-${filterKey}`} filters={filters} />
      <ErrorBanner error={pages.error} title="The audit log could not be loaded" />
      <section className="card" aria-label="Audit entries">
        <ListTable
          pending={pages.isPending}
          rows={rows}
          empty={
            <EmptyState title="No entries match these filters">Widen the date range or clear a filter.</EmptyState>
          }
          columns={[
            'Time',
            'Source',
            'Clinic',
            'Key',
            'Request',
            'Status',
            { label: 'ms', style: { textAlign: 'right' } },
          ]}
          rowKey={(r) => r.id}
          row={(r) => ({
            className: 'clickable',
            onClick: () => navigate(`/audit/${r.id}`),
            'data-request-id': r.request_id,
          })}
          cells={(r) => (
            <>
              <td className="col-time">
                <a href={href(`/audit/${r.id}`)} onClick={(e) => e.stopPropagation()} title={r.ts}>
                  {formatDate(r.ts)
                    .split(', ')
                    .map((part) => (
                      <span key={part}>{part}</span>
                    ))}
                </a>
              </td>
              <td className="col-source">
                {r.source === 'console' ? (
                  <span title={r.action ?? undefined} data-action={r.action ?? undefined}>
                    <Badge tone="info">{actionLabel(r.action)}</Badge>
                  </span>
                ) : (
                  <Badge>API</Badge>
                )}
              </td>
              <td className="col-clinic">
                <ClinicName
                  slug={r.tenant_slug}
                  nome={r.tenant_slug ? clinics.nameOf(r.tenant_slug) : undefined}
                  compact
                />
              </td>
              <td className="mono">
                {r.chave_id ? `#${r.chave_id}` : '—'}
                {r.verified === 0 && (
                  <div title="The request named this key but did not prove it holds its secret">
                    <Badge tone="warn">Unverified</Badge>
                  </div>
                )}
              </td>
              <td className="path-cell" title={`${r.method} ${r.path}`}>
                <span className="method">{r.method}</span> {r.path}
              </td>
              <td>
                <HttpStatus status={r.status} />
                {r.error_code && (
                  <div className="error-code">
                    <Code>{r.error_code}</Code>
                  </div>
                )}
              </td>
              <td className="mono" style={{ textAlign: 'right' }}>
                {r.duracao_ms}
              </td>
            </>
          )}
          footer={<LoadMorePager shown={rows.length} noun="entry" nouns="entries" query={pages} />}
        />
      </section>
      <UnattributedSection />
    </>
  );
}
