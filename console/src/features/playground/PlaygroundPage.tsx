import { useEffect, useMemo, useState } from 'react';
import { CopyableSnippet, CopyableValue } from '../../lib/copy.tsx';
import { clinicOptions, keyOptions, Select, valueOptions } from '../../lib/forms.tsx';
import { useCanWrite } from '../../lib/role.ts';
import { Badge, breakable, Button, ErrorBanner, Field, PageHeader } from '../../lib/ui.tsx';
import { HttpStatus, httpReason } from '../../lib/vocabulary.tsx';
import { useClockOffset, useFullApiKey, useSendSigned, useTenantKeys, useTenants, type SignedRequest } from './api.ts';
import { curlCommand, newIdempotencyKey, signature, stringToSign, targetAsSent, WRITE_METHODS } from './signing.ts';

const METHODS = ['GET', 'POST', 'PATCH', 'DELETE'];
const WINDOW_SECONDS = 300;

const LF_STYLE = { color: '#f59e0b', fontWeight: 700 } as const;

/** The string to sign with its line feed shown as \n (and kept as a real line break). */
function VisiblePayload({ payload }: { payload: string }) {
  const parts = payload.split('\n');
  return (
    <pre className="json" data-testid="string-to-sign" style={{ margin: 0 }}>
      {parts.map((part, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the lines of one string, in order; the position is the line
        <span key={i}>
          {breakable(part)}
          {i < parts.length - 1 && (
            <>
              <span role="img" aria-label="line feed" title="line feed (LF, 0x0A)" style={LF_STYLE}>
                \n
              </span>
              {'\n'}
            </>
          )}
        </span>
      ))}
    </pre>
  );
}

/** What the gateway answered to the page's request. */
interface Sent {
  method: string;
  target: string;
  timestamp: string;
  signature: string;
  idempotencyKey: string | null;
  body: string;
  status: number;
  headers: Array<[string, string]>;
  text: string;
  ms: number;
}

function prettyBody(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function ResponseView({ sent, origin, apiKey }: { sent: Sent; origin: string; apiKey: string }) {
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

export function PlaygroundPage() {
  const tenants = useTenants();
  const offset = useClockOffset();
  const [tenant, setTenant] = useState('');
  const keys = useTenantKeys(tenant);
  const [keyId, setKeyId] = useState('');
  const fullKey = useFullApiKey(keyId);
  const [apiKey, setApiKey] = useState('');
  // The secret lives in this component's state only: never stored, never sent (only its signature is).
  const [secret, setSecret] = useState('');
  const [method, setMethod] = useState('GET');
  const [path, setPath] = useState('/v1/ping');
  const [timestamp, setTimestamp] = useState('');
  const [body, setBody] = useState('');
  const [result, setResult] = useState<{ hex: string; engine: string } | null>(null);
  const relay = useSendSigned();
  // Send is a console write (the gateway relays it): an admin's. A viewer still builds, signs and copies the curl.
  const canWrite = useCanWrite();
  const [signing, setSigning] = useState(false);
  const [sent, setSent] = useState<Sent | null>(null);
  const sending = signing || relay.isPending;

  const applianceNow = () => String(Math.floor(Date.now() / 1000) + (offset.data ?? 0));
  // Default timestamp: now on the appliance clock (real time plus the clock page's offset).
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, when the offset arrives; a timestamp typed since stays
  useEffect(() => {
    if (!timestamp && offset.isFetched) setTimestamp(applianceNow());
  }, [offset.isFetched]);
  // Choosing a key fills X-API-Key with it (still editable).
  useEffect(() => {
    if (fullKey.data) setApiKey(fullKey.data.api_key);
  }, [fullKey.data]);

  const chosenKey = keys.data?.find((k) => String(k.id) === keyId);
  const sendsBody = method !== 'GET';
  const rawBody = sendsBody ? body : '';
  const origin = window.location.origin;
  let sentTarget = path;
  try {
    sentTarget = targetAsSent(path, origin);
  } catch {
    // Not a URL at all: the problems below say why.
  }
  const payload = stringToSign(timestamp, method, path, rawBody);
  const problems = useMemo(() => {
    const list: string[] = [];
    if (!/^\d+$/.test(timestamp)) list.push('The timestamp must be whole Unix seconds.');
    if (!path.startsWith('/'))
      list.push('The path starts with “/”: the request target as sent, without scheme and host.');
    else if (sentTarget !== path)
      list.push(
        `A browser sends this path as ${sentTarget}: Send signs that; a client sending it as typed signs what it sends.`,
      );
    if (secret && !/^[0-9a-f]{64}$/.test(secret))
      list.push('A secret is 64 lowercase hex characters: check for spaces or a missing part.');
    return list;
  }, [timestamp, path, sentTarget, secret]);

  useEffect(() => {
    let live = true;
    if (!secret) return setResult(null);
    void signature(secret, payload).then((r) => live && setResult(r));
    return () => {
      live = false;
    };
  }, [secret, payload]);

  const skew = /^\d+$/.test(timestamp) ? Number(timestamp) - Number(applianceNow()) : 0;
  const curl = result
    ? curlCommand({ origin, method, pathAndQuery: path, body: rawBody, apiKey, timestamp, signature: result.hex })
    : '';
  const canSend = canWrite && Boolean(apiKey && secret && path.startsWith('/')) && !sending;

  /**
   * Signs with a fresh timestamp and sends through the gateway, which hands the request to /v1 as signed
   * (only the signature travels, never the secret), and shows the answer.
   */
  const send = async () => {
    setSigning(true);
    relay.reset();
    try {
      const ts = applianceNow();
      setTimestamp(ts);
      const target = targetAsSent(path, origin);
      const signed = await signature(secret, stringToSign(ts, method, target, rawBody));
      const idempotencyKey = WRITE_METHODS.has(method) ? newIdempotencyKey() : null;
      const request: SignedRequest = {
        method,
        path: target,
        headers: { 'x-api-key': apiKey, 'x-timestamp': ts, 'x-signature': signed.hex },
      };
      if (idempotencyKey) request.headers['idempotency-key'] = idempotencyKey;
      if (rawBody) {
        request.headers['content-type'] = 'application/json';
        request.body = rawBody;
      }
      setSigning(false);
      const answer = await relay.mutateAsync(request);
      setSent({
        method,
        target,
        timestamp: ts,
        signature: signed.hex,
        idempotencyKey,
        body: rawBody,
        status: answer.status,
        headers: answer.headers,
        text: answer.body,
        ms: answer.duration_ms,
      });
    } catch {
      // relay.error is shown; a signing failure (a malformed path) is listed under the string to sign.
    } finally {
      setSigning(false);
    }
  };

  return (
    <>
      <PageHeader
        title="Signing playground"
        description="Build a signed request step by step, send it through the gateway and read the answer. The secret stays in this page's memory: it signs here and is never sent or stored."
      />
      <ErrorBanner error={tenants.error ?? keys.error ?? fullKey.error} title="Keys could not be loaded" />
      <div className="playground-grid">
        <section className="card card-pad" aria-label="Request to sign">
          <h2 className="card-heading">Key</h2>
          <div>
            <Field id="pg-tenant" label="Clinic">
              <Select
                id="pg-tenant"
                value={tenant}
                onChange={(slug) => {
                  setTenant(slug);
                  setKeyId('');
                }}
                options={clinicOptions(tenants.data)}
                blank="Choose…"
              />
            </Field>
            <Field
              id="pg-key"
              label="Key"
              hint={chosenKey ? `${chosenKey.api_key_masked} · ${chosenKey.escopos.length} scopes` : 'Fills X-API-Key.'}
            >
              <Select
                id="pg-key"
                value={keyId}
                disabled={!tenant}
                onChange={setKeyId}
                options={keyOptions(keys.data?.filter((k) => k.status === 'active'))}
                blank={tenant ? 'Choose…' : 'Choose a clinic'}
              />
            </Field>
          </div>
          <Field
            id="pg-api-key"
            label="API key (X-API-Key)"
            hint={
              chosenKey
                ? 'The chosen key, in full: it is not secret, and not signed.'
                : 'Not part of the signature; sent as is.'
            }
          >
            <input
              id="pg-api-key"
              className="mono"
              value={apiKey}
              onChange={(e) => setApiKey(e.target.value.trim())}
              placeholder="ce_live_…"
              autoComplete="off"
              spellCheck={false}
            />
          </Field>
          <Field
            id="pg-secret"
            label="API secret"
            hint="Paste the secret you stored: the console cannot show it again. HMAC-SHA256 is computed in the browser; the secret is never sent to the appliance, never stored, and gone when you leave the page."
          >
            <input
              id="pg-secret"
              className="mono"
              type="password"
              value={secret}
              onChange={(e) => setSecret(e.target.value.trim())}
              autoComplete="off"
              spellCheck={false}
            />
          </Field>

          <h2 className="card-heading">Request</h2>
          <div style={{ display: 'grid', gridTemplateColumns: '8rem minmax(0, 1fr)', gap: '0 12px' }}>
            <Field id="pg-method" label="Method">
              <Select id="pg-method" value={method} onChange={setMethod} options={valueOptions(METHODS)} />
            </Field>
            <Field id="pg-path" label="Path and query" hint="Exactly as sent: same order, same encoding, no host.">
              <input
                id="pg-path"
                className="mono"
                value={path}
                onChange={(e) => setPath(e.target.value)}
                spellCheck={false}
              />
            </Field>
          </div>
          <Field
            id="pg-ts"
            label="Timestamp (X-Timestamp)"
            hint={
              skew === 0
                ? 'Unix seconds, now on the appliance clock. Send always signs with a fresh one.'
                : skew < 0 && skew >= -WINDOW_SECONDS
                  ? `Unix seconds on the appliance clock, taken ${-skew} s ago; the gateway accepts it until ${WINDOW_SECONDS} s have passed. Send takes a fresh one.`
                  : `${Math.abs(skew)} s ${skew > 0 ? 'ahead of' : 'behind'} the appliance clock${Math.abs(skew) > WINDOW_SECONDS ? ': outside the ±300 s window, the gateway answers AUTH_TIMESTAMP_EXPIRED' : ''}. Send takes a fresh one.`
            }
          >
            <div className="inline-field">
              <input
                id="pg-ts"
                className="mono"
                value={timestamp}
                onChange={(e) => setTimestamp(e.target.value.trim())}
                inputMode="numeric"
              />
              <Button onClick={() => setTimestamp(applianceNow())}>Now</Button>
            </div>
          </Field>
          {sendsBody && (
            <Field
              id="pg-body"
              label="Body (raw bytes)"
              hint="Signed byte for byte: Send and the curl send this exact text. Leave empty for no body."
            >
              <textarea
                id="pg-body"
                className="mono"
                rows={6}
                value={body}
                onChange={(e) => setBody(e.target.value)}
                spellCheck={false}
              />
            </Field>
          )}
          <div className="form-actions" style={{ justifyContent: 'flex-start', alignItems: 'center' }}>
            <Button variant="primary" onClick={() => void send()} disabled={!canSend}>
              {sending ? 'Sending…' : 'Send'}
            </Button>
            <span className="hint">
              {canSend || sending
                ? `Signs ${method} ${sentTarget} with a fresh timestamp${WRITE_METHODS.has(method) ? ' and a new Idempotency-Key' : ''} and sends it through the gateway.`
                : !canWrite
                  ? 'Sending is for admins; a viewer can copy the curl.'
                  : 'Choose a key (or paste its API key) and paste its secret to send.'}
            </span>
          </div>
        </section>

        <section className="card card-pad" aria-label="Signature">
          <h2 className="card-heading">String to sign</h2>
          <VisiblePayload payload={payload} />
          <p className="hint" style={{ marginTop: 6 }}>
            {new TextEncoder().encode(payload).length} bytes (UTF-8) ·{' '}
            <code style={{ color: '#b45309', fontWeight: 700 }}>\n</code> marks the one line feed (0x0A), a single byte
          </p>
          {problems.map((p) => (
            <div key={p} className="banner banner-warn" role="status">
              {p}
            </div>
          ))}
          <h2 className="card-heading">Signature (X-Signature)</h2>
          {result ? (
            <>
              <CopyableValue value={result.hex} className="mono" testId="signature" copyLabel="Copy signature" />
              <p className="hint">
                HMAC-SHA256 by <Badge tone="info">{result.engine}</Badge>, lowercase hex, 64 characters.
              </p>
              <h2 className="card-heading">curl</h2>
              <CopyableSnippet text={curl} testId="curl" copyLabel="Copy curl" />
              {WRITE_METHODS.has(method) && (
                <p className="hint">Writes need an Idempotency-Key (not signed): the curl makes a fresh one.</p>
              )}
            </>
          ) : (
            <p className="muted">Paste the API secret to compute the signature.</p>
          )}
          <h2 className="card-heading">The rules</h2>
          <ul style={{ paddingLeft: 18, margin: 0, lineHeight: 1.6 }}>
            <li>
              The string is <code>timestamp</code> + <code>.</code> + <code>METHOD</code> + one space +{' '}
              <code>path and query</code> + one line feed + <code>raw body</code>.
            </li>
            <li>Line feed only (LF, \n), never CR LF. A GET has no body: the string ends with the line feed.</li>
            <li>
              The path is the request target as sent, with its query string in the same order and encoding; no scheme,
              no host.
            </li>
            <li>
              The body is the exact bytes sent: re-serializing JSON after signing (spaces, key order) breaks the
              signature.
            </li>
            <li>
              X-Timestamp is Unix seconds within ±300 s of the appliance clock; the signature is lowercase hex, keyed by
              the secret as text.
            </li>
          </ul>
        </section>
      </div>
      <ErrorBanner error={relay.error} title="The request could not be sent" />
      {sent && <ResponseView sent={sent} origin={origin} apiKey={apiKey} />}
    </>
  );
}
