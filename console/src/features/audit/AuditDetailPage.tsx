import { href } from '../../lib/router.ts';
import { Badge, breakable, ErrorBanner, JsonBlock, Loading, PageHeader, formatDate } from '../../lib/ui.tsx';
import { ClinicName, Code, HttpStatus, useClinicDirectory } from '../../lib/vocabulary.tsx';
import { actionLabel } from './actions.ts';
import { useAuditEntry, type AuditDetail } from './api.ts';

/** Why a response is not in the journal, in words an operator reads once. */
function noResponseReason(e: AuditDetail): string {
  if (e.source === 'console') return 'Console actions record their subject and outcome, not the answer.';
  if (e.status >= 300 && e.status < 400)
    return 'Redirects are never stored: their Location is a time-limited download URL.';
  if (e.status < 400 && e.method === 'GET')
    return 'Successful reads are not copied into the journal; errors and writes are.';
  return 'No response body was recorded for this request.';
}

interface ConflictDetail {
  reason?: string;
  idem_key?: string;
  stored?: { method?: string; path?: string; fingerprint?: string; request_id?: string | null };
  sent_fingerprint?: string;
}

/**
 * An entry's detail without what the page shows on its own: the console action (Request card) and an
 * idempotency conflict (its own card). `rest` is null when nothing is left, so no empty card is drawn.
 */
function splitDetail(detail: unknown): {
  action: string | null;
  conflict: ConflictDetail | null;
  violations: ContractViolationItem[] | null;
  rest: unknown;
} {
  if (detail === null || detail === undefined) return { action: null, conflict: null, violations: null, rest: null };
  if (typeof detail !== 'object' || Array.isArray(detail))
    return { action: null, conflict: null, violations: null, rest: detail };
  const { action, idempotency_conflict, contract_violations, ...others } = detail as Record<string, unknown>;
  return {
    violations: Array.isArray(contract_violations) ? (contract_violations as ContractViolationItem[]) : null,
    action: typeof action === 'string' ? action : null,
    conflict:
      idempotency_conflict && typeof idempotency_conflict === 'object'
        ? (idempotency_conflict as ConflictDetail)
        : null,
    rest: Object.keys(others).length > 0 ? others : null,
  };
}

/** A violation of the contract the contract guard saw on this call (issue 33; server/proxy/contract-checks.ts). */
interface ContractViolationItem {
  operation: string;
  rule: string;
  seen: string;
}

/** The contract guard's violations of this call: operation, rule, what was seen (redacted). */
function ViolationsCard({ violations, omitted }: { violations: ContractViolationItem[]; omitted: unknown }) {
  return (
    <section className="card card-pad" aria-label="Contract violations" style={{ marginBottom: 16 }}>
      <h3>Contract violations</h3>
      <ul data-testid="detail-contract-violations" style={{ margin: 0, paddingLeft: 18 }}>
        {violations.map((v) => (
          <li key={`${v.operation} ${v.rule}`} data-rule={v.rule}>
            <Code>{v.operation}</Code> <span className="mono">{breakable(v.rule)}</span>: {v.seen}
          </li>
        ))}
      </ul>
      {typeof omitted === 'number' && omitted > 0 && <p className="muted">and {omitted} more (the journal keeps 8).</p>}
    </section>
  );
}

/** A 422 IDEMPOTENCY_CONFLICT: the entry the key was first used for, and what this request sent. */
function ConflictCard({ conflict }: { conflict: ConflictDetail }) {
  return (
    <section className="card card-pad" aria-label="Idempotency conflict" style={{ marginBottom: 16 }}>
      <h3>Idempotency conflict</h3>
      <dl className="props">
        <dt>Idempotency-Key</dt>
        <dd className="mono">{conflict.idem_key ?? '—'}</dd>
        <dt>Why</dt>
        <dd>
          {conflict.reason === 'operation'
            ? 'The key was first used on another operation.'
            : 'The key was first used with another body.'}
        </dd>
        <dt>First use</dt>
        <dd className="mono">
          {conflict.stored?.method} {conflict.stored?.path}
        </dd>
        <dt>First body</dt>
        <dd className="fingerprint" data-testid="conflict-first-fingerprint">
          {conflict.stored?.fingerprint ?? '—'}
        </dd>
        <dt>This body</dt>
        <dd className="fingerprint" data-testid="conflict-sent-fingerprint">
          {conflict.sent_fingerprint ?? '—'}
        </dd>
      </dl>
      <p className="hint" style={{ marginBottom: 0 }}>
        Fingerprints are keyed HMACs of each body's canonical SHA-256: equal bodies give equal fingerprints, and neither
        can be turned back into the body.
      </p>
    </section>
  );
}

/** A request as the integrator sent it and what the gateway answered: the journal's one page per call. */
export function AuditDetailPage({ id }: { id: number }) {
  const entry = useAuditEntry(id);
  const clinics = useClinicDirectory();
  const e = entry.data;
  const headers = e?.request_headers ? Object.entries(e.request_headers) : [];
  const { action, conflict, violations, rest } = splitDetail(e?.detail);
  return (
    <>
      <PageHeader title={`Audit entry #${id}`} description={<a href={href('/audit')}>← Back to the audit log</a>} />
      <ErrorBanner error={entry.error} title="The entry could not be loaded" />
      {entry.isPending && <Loading />}
      {e && (
        <div className="detail-grid">
          <div>
            <section className="card card-pad" aria-label="Request" style={{ marginBottom: 16 }}>
              <h3>Request</h3>
              <dl className="props">
                <dt>Request id</dt>
                <dd className="mono" data-testid="detail-request-id">
                  {e.request_id}
                </dd>
                <dt>Time</dt>
                <dd>
                  {formatDate(e.ts)} <span className="muted mono nowrap">{e.ts}</span>
                </dd>
                <dt>Source</dt>
                <dd>{e.source === 'console' ? <Badge tone="info">Console</Badge> : <Badge>API</Badge>}</dd>
                {e.source === 'console' && (
                  <>
                    <dt>Action</dt>
                    <dd data-testid="detail-action">
                      {actionLabel(action)} {action && <span className="muted mono nowrap">({action})</span>}
                    </dd>
                  </>
                )}
                {e.operator_username && (
                  <>
                    <dt>Operator</dt>
                    <dd>{e.operator_username}</dd>
                  </>
                )}
                <dt>Clinic</dt>
                <dd>
                  <ClinicName slug={e.tenant_slug} nome={e.tenant_slug ? clinics.nameOf(e.tenant_slug) : undefined} />
                </dd>
                <dt>Key</dt>
                <dd className="mono" data-testid="detail-key">
                  {e.chave_id ? (
                    <a href={href('/audit', { chave_id: e.chave_id })} title="Every call of this key">
                      #{e.chave_id}
                    </a>
                  ) : (
                    '—'
                  )}
                  {e.verified === 0 && (
                    <>
                      {' '}
                      <Badge tone="warn">Unverified</Badge>
                      <div className="hint" style={{ fontFamily: 'inherit' }}>
                        The request named this key but did not prove it holds its secret (revoked key, clock,
                        signature…).
                      </div>
                    </>
                  )}
                </dd>
                <dt>Method and path</dt>
                <dd>
                  <Code>{`${e.method} ${e.path}`}</Code>
                </dd>
                <dt>Duration</dt>
                <dd>{e.duracao_ms} ms</dd>
                <dt>Client address</dt>
                <dd className="mono">{e.client_ip}</dd>
                {e.source === 'api' && (
                  <>
                    <dt>Trace id</dt>
                    <dd className="mono" data-testid="detail-trace-id">
                      {e.trace_id ? breakable(e.trace_id) : '—'}
                      <div className="hint" style={{ fontFamily: 'inherit' }}>
                        {e.trace_id
                          ? 'The W3C trace this call belongs to: look it up in your tracing backend.'
                          : 'No trace: the call sent no traceparent and tracing was off.'}
                      </div>
                    </dd>
                  </>
                )}
              </dl>
            </section>
            <section className="card card-pad" aria-label="Request headers" style={{ marginBottom: 16 }}>
              <h3>Request headers</h3>
              {headers.length === 0 ? (
                <p className="muted">No headers recorded.</p>
              ) : (
                <dl className="props" data-testid="detail-headers">
                  {headers.map(([name, value]) => (
                    <div key={name} style={{ display: 'contents' }}>
                      <dt className="mono">{name}</dt>
                      <dd className="mono" style={{ overflowWrap: 'anywhere' }}>
                        {value}
                      </dd>
                    </div>
                  ))}
                </dl>
              )}
              <p className="hint" style={{ marginBottom: 0 }}>
                X-Signature, Authorization and Cookie are never recorded. Headers outside the known set show only their
                name.
              </p>
            </section>
            <section className="card card-pad" aria-label="Body">
              <h3>Request body (redacted)</h3>
              {e.body === null ? (
                <p className="muted">No body stored (only POST and PATCH bodies are kept).</p>
              ) : (
                <JsonBlock value={e.body} />
              )}
            </section>
          </div>
          <div>
            <section className="card card-pad" aria-label="Response" style={{ marginBottom: 16 }}>
              <h3>Response</h3>
              <dl className="props">
                <dt>Status</dt>
                <dd data-testid="detail-status">
                  <HttpStatus status={e.status} />
                </dd>
                <dt>Error code</dt>
                <dd data-testid="detail-error-code">{e.error_code ? <Code>{e.error_code}</Code> : '—'}</dd>
                <dt>Message</dt>
                <dd data-testid="detail-error-message">{e.error_message ? breakable(e.error_message) : '—'}</dd>
              </dl>
              <h4 style={{ margin: '12px 0 6px' }}>Body (redacted)</h4>
              {e.response_body === null ? (
                <p className="muted" data-testid="detail-no-response">
                  {noResponseReason(e)}
                </p>
              ) : (
                <div data-testid="detail-response">
                  <JsonBlock value={e.response_body} />
                </div>
              )}
            </section>
            {conflict && <ConflictCard conflict={conflict} />}
            {violations && (
              <ViolationsCard
                violations={violations}
                omitted={(rest as Record<string, unknown> | null)?.contract_violations_omitted}
              />
            )}
            {rest !== null && (
              <section className="card card-pad" aria-label="Detail" style={{ marginBottom: 16 }}>
                <h3>Detail</h3>
                <JsonBlock value={rest} />
              </section>
            )}
          </div>
        </div>
      )}
    </>
  );
}
