import { useState } from 'react';
import { href, navigate, useLocation } from '../../lib/router.ts';
import { Badge, Button, Dialog, EmptyState, ErrorBanner, Field, Loading, PageHeader, formatDate, formatDateFull } from '../../lib/ui.tsx';
import { useIdempotencyEntries, usePurgeEntry, useTenantKeys, useTenants, type EntryState, type IdempotencyEntry } from './api.ts';

const STATE_LABEL: Record<EntryState, { label: string; tone: 'info' | 'ok' | 'bad' | 'warn'; help: string }> = {
  in_flight: { label: 'In flight', tone: 'info', help: 'The first request is still executing; a retry gets 409 CONCURRENT_REQUEST.' },
  abandoned: { label: 'Abandoned', tone: 'warn', help: 'Left in flight by a crash; its lease is over, so the next retry executes.' },
  completed: { label: 'Completed', tone: 'ok', help: 'A retry with the same body replays this answer; another body gets 422.' },
  stored_503: { label: 'Stored 503', tone: 'bad', help: 'The backend was unavailable; the spec replays this 503 for 24 h. Purge it to let the client retry now.' },
};

/** Picks a clinic, then one of its keys: `#/idempotency?tenant=…&chave_id=…`. */
function KeyPicker({ tenant, keyId }: { tenant: string | undefined; keyId: number | null }) {
  const tenants = useTenants();
  const keys = useTenantKeys(tenant);
  return (
    <div className="toolbar">
      <Field id="idem-tenant" label="Clinic">
        <select id="idem-tenant" value={tenant ?? ''} onChange={(e) => navigate('/idempotency', { tenant: e.target.value })}>
          <option value="">Choose a clinic</option>
          {tenants.data?.map((t) => (
            <option key={t.slug} value={t.slug}>
              {t.slug}
            </option>
          ))}
        </select>
      </Field>
      <Field id="idem-key" label="API key">
        <select
          id="idem-key"
          value={keyId ?? ''}
          disabled={!tenant}
          onChange={(e) => navigate('/idempotency', { tenant, chave_id: e.target.value })}
        >
          <option value="">Choose a key</option>
          {keys.data?.map((k) => (
            <option key={k.id} value={k.id}>
              #{k.id} {k.label || k.api_key_masked}
              {k.status === 'revoked' ? ' (revoked)' : ''}
            </option>
          ))}
        </select>
      </Field>
    </div>
  );
}

/**
 * The idempotency inspector: one key's stored write outcomes (metadata only, the sealed responses are
 * never opened), each linked to the audit entry of the request that executed it, and a purge.
 */
export function IdempotencyPage() {
  const { params } = useLocation();
  const rawKey = Number(params.get('chave_id'));
  const keyId = Number.isInteger(rawKey) && rawKey > 0 ? rawKey : null;
  const entries = useIdempotencyEntries(keyId);
  const tenant = params.get('tenant') ?? entries.data?.key.tenant_slug ?? undefined;
  const purge = usePurgeEntry(keyId);
  const [confirm, setConfirm] = useState<IdempotencyEntry | null>(null);
  const rows = entries.data?.items ?? [];

  return (
    <>
      <PageHeader
        title="Idempotency"
        description="Write outcomes kept 24 h per API key and operation. Responses stay sealed; only their metadata is shown here."
        actions={
          keyId !== null && (
            <Button onClick={() => void entries.refetch()} disabled={entries.isFetching}>
              {entries.isFetching ? 'Refreshing…' : 'Refresh'}
            </Button>
          )
        }
      />
      <KeyPicker tenant={tenant} keyId={keyId} />
      <ErrorBanner error={entries.error} title="The entries could not be loaded" />
      {keyId === null ? (
        <section className="card">
          <EmptyState title="Choose a key">Pick a clinic and one of its keys, or open “Idempotency” from a row of the API keys page.</EmptyState>
        </section>
      ) : entries.isPending ? (
        <Loading />
      ) : (
        <section className="card" aria-label="Idempotency entries">
          <div className="section-title">
            <div>
              <strong>Key #{keyId}</strong> <span className="mono muted">{entries.data?.key.api_key_masked}</span>{' '}
              {entries.data?.key.label && <span className="muted">· {entries.data.key.label}</span>}
            </div>
            <a href={href('/audit', { chave_id: keyId })}>Calls of this key →</a>
          </div>
          {rows.length === 0 ? (
            <EmptyState title="No live entries">Writes sent with an Idempotency-Key appear here for 24 hours.</EmptyState>
          ) : (
            <div className="table-wrap">
              <table className="data" data-testid="idempotency-table">
                <thead>
                  <tr>
                    <th title="Idempotency-Key, then the operation (method and path)">Entry</th>
                    <th>State</th>
                    <th>Fingerprint</th>
                    <th>Lifetime</th>
                    <th>Request</th>
                    <th />
                  </tr>
                </thead>
                <tbody>
                  {rows.map((r) => {
                    const state = STATE_LABEL[r.state];
                    return (
                      <tr key={r.entry} data-idem-key={r.idem_key}>
                        <td style={{ overflowWrap: 'anywhere' }}>
                          <div className="mono">{r.idem_key}</div>
                          <div className="mono muted" style={{ fontSize: 12 }}>
                            {r.method} {r.path}
                          </div>
                        </td>
                        <td title={state.help}>
                          <Badge tone={state.tone}>{state.label}</Badge>
                          {r.status !== null && r.state !== 'stored_503' && <span className="muted mono"> {r.status}</span>}
                        </td>
                        <td className="mono" title={r.fingerprint}>
                          {r.fingerprint.slice(0, 8)}…
                        </td>
                        <td style={{ fontSize: 12.5 }}>
                          <div className="nowrap" title={formatDateFull(r.created_at)}>
                            <span className="muted">First use</span> {formatDate(r.created_at)}
                          </div>
                          <div className="nowrap" title={formatDateFull(r.expires_at)}>
                            <span className="muted">Expires</span> {formatDate(r.expires_at)}
                          </div>
                        </td>
                        <td className="mono nowrap">
                          {r.audit_id !== null ? (
                            <a href={href(`/audit/${r.audit_id}`)} title={r.request_id ?? ''} data-testid="idem-audit-link">
                              …{r.request_id?.slice(-8)}
                            </a>
                          ) : r.request_id ? (
                            <a href={href('/audit', { request_id: r.request_id })} title={r.request_id}>
                              …{r.request_id.slice(-8)}
                            </a>
                          ) : (
                            <span className="muted">—</span>
                          )}
                        </td>
                        <td className="actions">
                          <Button
                            className="btn-sm"
                            variant="danger"
                            disabled={r.state === 'in_flight'}
                            title={r.state === 'in_flight' ? 'Still executing: wait for the answer' : undefined}
                            onClick={() => (purge.reset(), setConfirm(r))}
                            aria-label={`Purge ${r.idem_key}`}
                          >
                            Purge
                          </Button>
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )}
          {entries.data?.truncated && <div className="pager">Showing the 200 newest entries.</div>}
        </section>
      )}
      <Dialog
        open={confirm !== null}
        title="Purge this idempotency entry?"
        onClose={() => setConfirm(null)}
        footer={
          <>
            <Button onClick={() => setConfirm(null)}>Cancel</Button>
            <Button
              variant="danger"
              disabled={purge.isPending}
              onClick={() =>
                confirm &&
                purge.mutate(confirm.entry, {
                  onSuccess: () => setConfirm(null),
                })
              }
            >
              {purge.isPending ? 'Purging…' : 'Purge entry'}
            </Button>
          </>
        }
      >
        {confirm && (
          <>
            <p>
              The next request with Idempotency-Key <code>{confirm.idem_key}</code> on{' '}
              <code>
                {confirm.method} {confirm.path}
              </code>{' '}
              goes to the backend again instead of replaying the stored answer. A write the backend already committed comes back as
              a replay (never a second one); a stored 503 is retried for real. The purge is recorded in the audit log.
            </p>
            <ErrorBanner error={purge.error} title="The entry was not purged" />
          </>
        )}
      </Dialog>
    </>
  );
}
