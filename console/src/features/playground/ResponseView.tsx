import { CopyableSnippet } from '../../lib/copy.tsx';
import { breakable } from '../../lib/ui.tsx';
import { HttpStatus, httpReason } from '../../lib/vocabulary.tsx';
import { curlCommand } from './signing.ts';
import type { Sent } from './useSend.ts';

function prettyBody(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export function ResponseView({ sent, origin, apiKey }: { sent: Sent; origin: string; apiKey: string }) {
  const curl = curlCommand({
    origin,
    method: sent.method,
    pathAndQuery: sent.target,
    body: sent.body,
    apiKey,
    timestamp: sent.timestamp,
    signature: sent.signature,
    idempotencyKey: sent.idempotencyKey ?? undefined,
  });
  return (
    <section className="card card-pad" aria-label="Response" data-testid="response" style={{ marginTop: 16 }}>
      <h2 className="card-heading">Response</h2>
      <div className="response-status">
        <span data-testid="response-status" data-status={sent.status}>
          <HttpStatus status={sent.status} />
        </span>
        <span>{httpReason(sent.status)}</span>
        <span className="muted">
          {sent.method} <code>{sent.target}</code> · {sent.ms} ms · signed at {sent.timestamp}
        </span>
      </div>
      <div className="detail-grid">
        <div>
          <h3>Headers</h3>
          <dl className="props headers" data-testid="response-headers">
            {sent.headers.map(([name, value]) => (
              <div key={name} style={{ display: 'contents' }}>
                <dt>{name}</dt>
                <dd>{value}</dd>
              </div>
            ))}
          </dl>
        </div>
        <div>
          <h3>Body</h3>
          <pre className="json" data-testid="response-body">
            {breakable(prettyBody(sent.text) || '(empty)')}
          </pre>
        </div>
      </div>
      <h3 style={{ marginTop: 16 }}>This request as curl</h3>
      <CopyableSnippet text={curl} testId="sent-curl" copyLabel="Copy curl of this request" />
      <p className="hint" style={{ marginBottom: 0 }}>
        The same bytes, timestamp and signature
        {sent.idempotencyKey ? ' and Idempotency-Key (a repeat is answered as a replay)' : ''}: it works until the
        timestamp leaves the ±300 s window.
      </p>
    </section>
  );
}
