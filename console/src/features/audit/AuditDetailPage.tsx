import { href } from '../../lib/router.ts';
import { Badge, ErrorBanner, JsonBlock, Loading, PageHeader, formatDate, statusTone } from '../../lib/ui.tsx';
import { useAuditEntry } from './api.ts';

export function AuditDetailPage({ id }: { id: number }) {
  const entry = useAuditEntry(id);
  const e = entry.data;
  return (
    <>
      <PageHeader title={`Audit entry #${id}`} description={<a href={href('/audit')}>← Back to the audit log</a>} />
      <ErrorBanner error={entry.error} title="The entry could not be loaded" />
      {entry.isPending && <Loading />}
      {e && (
        <div className="detail-grid">
          <section className="card card-pad" aria-label="Request">
            <h3>Request</h3>
            <dl className="props">
              <dt>Request id</dt>
              <dd className="mono" data-testid="detail-request-id">
                {e.request_id}
              </dd>
              <dt>Time</dt>
              <dd>
                {formatDate(e.ts)} <span className="muted mono">{e.ts}</span>
              </dd>
              <dt>Source</dt>
              <dd>{e.source === 'console' ? <Badge tone="info">console</Badge> : <Badge>api</Badge>}</dd>
              {e.operator_username && (
                <>
                  <dt>Operator</dt>
                  <dd>{e.operator_username}</dd>
                </>
              )}
              <dt>Clinic</dt>
              <dd className="mono">{e.tenant_slug ?? '—'}</dd>
              <dt>Key</dt>
              <dd className="mono">{e.chave_id ? `#${e.chave_id}` : '—'}</dd>
              <dt>Method and path</dt>
              <dd className="mono">
                {e.method} {e.path}
              </dd>
              <dt>Status</dt>
              <dd>
                <Badge tone={statusTone(e.status)}>{e.status}</Badge>
              </dd>
              <dt>Error</dt>
              <dd className="mono">{e.error_code ?? '—'}</dd>
              <dt>Duration</dt>
              <dd>{e.duracao_ms} ms</dd>
              <dt>Client address</dt>
              <dd className="mono">{e.client_ip}</dd>
            </dl>
          </section>
          <div>
            <section className="card card-pad" aria-label="Body" style={{ marginBottom: 16 }}>
              <h3>Body (redacted)</h3>
              {e.body === null ? <p className="muted">No body stored (only POST and PATCH bodies are kept).</p> : <JsonBlock value={e.body} />}
            </section>
            <section className="card card-pad" aria-label="Detail">
              <h3>Detail</h3>
              {e.detail === null ? <p className="muted">—</p> : <JsonBlock value={e.detail} />}
            </section>
          </div>
        </div>
      )}
    </>
  );
}
