import { useState, type FormEvent } from 'react';
import { auditQuerySchema } from '../../../../server/admin/schemas.ts';
import { href, navigate, useLocation } from '../../lib/router.ts';
import { Badge, Button, EmptyState, ErrorBanner, Field, Loading, PageHeader, formatDate, statusTone } from '../../lib/ui.tsx';
import { FILTER_NAMES, useAuditPages, useAuditStorage, useAuditTenants, type AuditFilters, type AuditStorage } from './api.ts';

/** datetime-local ⇄ ISO (the URL and the API carry UTC ISO 8601). */
const toLocalInput = (iso: string | undefined) => {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
const fromLocalInput = (value: string) => (value ? new Date(value).toISOString() : '');

function FiltersForm({ initial }: { initial: AuditFilters }) {
  const tenants = useAuditTenants();
  const [draft, setDraft] = useState<AuditFilters>(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const set = (name: string) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) => setDraft({ ...draft, [name]: e.target.value });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = auditQuerySchema.safeParse(draft);
    if (!parsed.success) return setErrors(Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0]), i.message])));
    setErrors({});
    navigate('/audit', Object.fromEntries(FILTER_NAMES.map((n) => [n, draft[n]?.trim()])));
  };

  return (
    <form className="card card-pad" onSubmit={submit} noValidate aria-label="Audit filters" style={{ marginBottom: 16 }}>
      <div className="grid-filters">
        <Field id="f-tenant" label="Clinic">
          <select id="f-tenant" value={draft.tenant ?? ''} onChange={set('tenant')}>
            <option value="">All clinics</option>
            {tenants.data?.map((t) => (
              <option key={t.slug} value={t.slug}>
                {t.slug}
              </option>
            ))}
          </select>
        </Field>
        <Field id="f-key" label="Key id" error={errors.chave_id}>
          <input id="f-key" inputMode="numeric" placeholder="e.g. 12" value={draft.chave_id ?? ''} onChange={set('chave_id')} />
        </Field>
        <Field id="f-method" label="Method">
          <select id="f-method" value={draft.method ?? ''} onChange={set('method')}>
            <option value="">Any</option>
            {['GET', 'POST', 'PATCH', 'DELETE'].map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </Field>
        <Field id="f-path" label="Path starts with" error={errors.path}>
          <input id="f-path" placeholder="/v1/pacientes" value={draft.path ?? ''} onChange={set('path')} />
        </Field>
        <Field id="f-status" label="Status" error={errors.status}>
          <input id="f-status" inputMode="numeric" placeholder="e.g. 401" value={draft.status ?? ''} onChange={set('status')} />
        </Field>
        <Field id="f-error" label="Error code">
          <input id="f-error" placeholder="AUTH_INVALID_SIGNATURE" value={draft.error_code ?? ''} onChange={set('error_code')} />
        </Field>
        <Field id="f-request" label="Request id">
          <input id="f-request" className="mono" value={draft.request_id ?? ''} onChange={set('request_id')} />
        </Field>
        <Field id="f-source" label="Source">
          <select id="f-source" value={draft.source ?? ''} onChange={set('source')}>
            <option value="">API and console</option>
            <option value="api">API (/v1)</option>
            <option value="console">Console actions</option>
          </select>
        </Field>
        <Field id="f-from" label="From" error={errors.from}>
          <input id="f-from" type="datetime-local" value={toLocalInput(draft.from)} onChange={(e) => setDraft({ ...draft, from: fromLocalInput(e.target.value) })} />
        </Field>
        <Field id="f-to" label="To" error={errors.to}>
          <input id="f-to" type="datetime-local" value={toLocalInput(draft.to)} onChange={(e) => setDraft({ ...draft, to: fromLocalInput(e.target.value) })} />
        </Field>
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

/** Entries kept against the row cap, the oldest one, the database's size: what the bound looks like now. */
function StorageLine({ storage: s }: { storage: AuditStorage | undefined }) {
  if (!s) return null;
  const share = s.rows / s.max_rows;
  return (
    <p className="hint" data-testid="audit-storage" style={{ margin: '-8px 0 16px' }}>
      <Badge tone={share >= 0.9 ? 'warn' : 'neutral'}>
        {count(s.rows)} / {count(s.max_rows)} entries
      </Badge>{' '}
      Oldest entry {s.oldest_ts ? formatDate(s.oldest_ts) : '—'}. Entries older than {s.retention_days} days, and the oldest
      beyond {count(s.max_rows)} (AUDIT_MAX_ROWS), are deleted every 10 minutes. gateway.db {megabytes(s.database_bytes)}
      ({megabytes(s.free_bytes)} free for reuse).
    </p>
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
  const rows = pages.data?.pages.flatMap((p) => p.items) ?? [];
  const filterKey = JSON.stringify(filters);

  return (
    <>
      <PageHeader
        title="Audit log"
        description="Every API request and console action, newest first. Bodies are stored redacted."
        actions={
          <Button onClick={() => void Promise.all([pages.refetch(), storage.refetch()])} disabled={pages.isFetching}>
            {pages.isFetching && !pages.isFetchingNextPage ? 'Refreshing…' : 'Refresh'}
          </Button>
        }
      />
      <StorageLine storage={storage.data} />
      <FiltersForm key={filterKey} initial={filters} />
      <ErrorBanner error={pages.error} title="The audit log could not be loaded" />
      <section className="card" aria-label="Audit entries">
        {pages.isPending ? (
          <Loading />
        ) : rows.length === 0 ? (
          <EmptyState title="No entries match these filters">Widen the date range or clear a filter.</EmptyState>
        ) : (
          <>
            <div className="table-wrap">
              <table className="data">
                <thead>
                  <tr>
                    <th>Time</th>
                    <th>Source</th>
                    <th>Clinic</th>
                    <th>Key</th>
                    <th>Method</th>
                    <th>Path</th>
                    <th>Status</th>
                    <th>Error</th>
                    <th style={{ textAlign: 'right' }}>ms</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((r) => (
                    <tr key={r.id} className="clickable" onClick={() => navigate(`/audit/${r.id}`)} data-request-id={r.request_id}>
                      <td className="nowrap">
                        <a href={href(`/audit/${r.id}`)} onClick={(e) => e.stopPropagation()}>
                          {formatDate(r.ts)}
                        </a>
                      </td>
                      <td>{r.source === 'console' ? <Badge tone="info">{r.action ?? 'console'}</Badge> : <Badge>api</Badge>}</td>
                      <td className="mono">{r.tenant_slug ?? '—'}</td>
                      <td className="mono">{r.chave_id ? `#${r.chave_id}` : '—'}</td>
                      <td className="mono">{r.method}</td>
                      <td className="path-cell" title={r.path}>
                        {r.path}
                      </td>
                      <td>
                        <Badge tone={statusTone(r.status)}>{r.status}</Badge>
                      </td>
                      <td className="mono">{r.error_code ?? ''}</td>
                      <td className="mono" style={{ textAlign: 'right' }}>
                        {r.duracao_ms}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <div className="pager">
              <span>
                {rows.length} entr{rows.length === 1 ? 'y' : 'ies'} shown
              </span>
              {pages.hasNextPage ? (
                <Button onClick={() => void pages.fetchNextPage()} disabled={pages.isFetchingNextPage}>
                  {pages.isFetchingNextPage ? 'Loading…' : 'Load older entries'}
                </Button>
              ) : (
                <span>End of log</span>
              )}
            </div>
          </>
        )}
      </section>
    </>
  );
}
