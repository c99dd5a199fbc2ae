import { useEffect, useMemo, useState } from 'react';
import { Badge, Button, CopyButton, ErrorBanner, Field, PageHeader } from '../../lib/ui.tsx';
import { useClockOffset, useTenantKeys, useTenants } from './api.ts';
import { curlCommand, signature, stringToSign, WRITE_METHODS } from './signing.ts';

const METHODS = ['GET', 'POST', 'PATCH', 'DELETE'];
const WINDOW_SECONDS = 300;

const LF_STYLE = { color: '#f59e0b', fontWeight: 700 } as const;

/** The string to sign with its line feed shown as \n (and kept as a real line break). */
function VisiblePayload({ payload }: { payload: string }) {
  const parts = payload.split('\n');
  return (
    <pre className="json" data-testid="string-to-sign" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all', margin: 0 }}>
      {parts.map((part, i) => (
        <span key={i}>
          {part}
          {i < parts.length - 1 && (
            <>
              <span aria-label="line feed" title="line feed (LF, 0x0A)" style={LF_STYLE}>
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

export function PlaygroundPage() {
  const tenants = useTenants();
  const offset = useClockOffset();
  const [tenant, setTenant] = useState('');
  const keys = useTenantKeys(tenant);
  const [keyId, setKeyId] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [secret, setSecret] = useState('');
  const [method, setMethod] = useState('GET');
  const [path, setPath] = useState('/v1/ping');
  const [timestamp, setTimestamp] = useState('');
  const [body, setBody] = useState('');
  const [result, setResult] = useState<{ hex: string; engine: string } | null>(null);

  const applianceNow = () => String(Math.floor(Date.now() / 1000) + (offset.data ?? 0));
  // Default timestamp: now on the appliance clock (real time plus the clock page's offset).
  useEffect(() => {
    if (!timestamp && offset.isFetched) setTimestamp(applianceNow());
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [offset.isFetched]);

  const chosenKey = keys.data?.find((k) => String(k.id) === keyId);
  const sendsBody = method !== 'GET';
  const rawBody = sendsBody ? body : '';
  const payload = stringToSign(timestamp, method, path, rawBody);
  const problems = useMemo(() => {
    const list: string[] = [];
    if (!/^\d+$/.test(timestamp)) list.push('The timestamp must be whole Unix seconds.');
    if (!path.startsWith('/')) list.push('The path starts with “/”: the request target as sent, without scheme and host.');
    if (secret && !/^[0-9a-f]{64}$/.test(secret)) list.push('A secret is 64 lowercase hex characters: check for spaces or a missing part.');
    return list;
  }, [timestamp, path, secret]);

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
    ? curlCommand({ origin: window.location.origin, method, pathAndQuery: path, body: rawBody, apiKey, timestamp, signature: result.hex })
    : '';

  return (
    <>
      <PageHeader
        title="Signing playground"
        description="Build a signed request step by step: the exact string the gateway signs, its signature and a curl that sends it. The secret stays in this browser tab: it is used here and never sent."
      />
      <ErrorBanner error={tenants.error ?? keys.error} title="Keys could not be loaded" />
      <div className="grid-2" style={{ alignItems: 'start' }}>
        <section className="card card-pad" aria-label="Request to sign">
          <h2 className="section-title">Key</h2>
          <div className="grid-2">
            <Field id="pg-tenant" label="Clinic">
              <select
                id="pg-tenant"
                value={tenant}
                onChange={(e) => {
                  setTenant(e.target.value);
                  setKeyId('');
                }}
              >
                <option value="">Choose…</option>
                {tenants.data?.map((t) => (
                  <option key={t.slug} value={t.slug}>
                    {t.nome} ({t.slug})
                  </option>
                ))}
              </select>
            </Field>
            <Field id="pg-key" label="Key" hint={chosenKey ? `${chosenKey.api_key_masked} · ${chosenKey.escopos.length} scopes` : 'Optional: to see which key you are signing for.'}>
              <select id="pg-key" value={keyId} disabled={!tenant} onChange={(e) => setKeyId(e.target.value)}>
                <option value="">{tenant ? 'Choose…' : 'Choose a clinic first'}</option>
                {keys.data
                  ?.filter((k) => k.status === 'active')
                  .map((k) => (
                    <option key={k.id} value={k.id}>
                      #{k.id} {k.label || '(no label)'} — {k.api_key_masked}
                    </option>
                  ))}
              </select>
            </Field>
          </div>
          <Field
            id="pg-api-key"
            label="API key (X-API-Key)"
            hint={chosenKey ? `Paste the full key that starts ${chosenKey.api_key_masked.slice(0, 12)}…: the console shows keys masked. It is not signed; the curl needs it.` : 'Not part of the signature; the curl sends it.'}
          >
            <input id="pg-api-key" className="mono" value={apiKey} onChange={(e) => setApiKey(e.target.value.trim())} placeholder="ce_live_…" autoComplete="off" spellCheck={false} />
          </Field>
          <Field id="pg-secret" label="API secret" hint="Computed in the browser (HMAC-SHA256); never sent to the appliance. The console cannot show a secret again: paste the one you stored.">
            <input id="pg-secret" className="mono" type="password" value={secret} onChange={(e) => setSecret(e.target.value.trim())} autoComplete="off" spellCheck={false} />
          </Field>

          <h2 className="section-title">Request</h2>
          <div style={{ display: 'grid', gridTemplateColumns: '8rem minmax(0, 1fr)', gap: '0 12px' }}>
            <Field id="pg-method" label="Method">
              <select id="pg-method" value={method} onChange={(e) => setMethod(e.target.value)}>
                {METHODS.map((m) => (
                  <option key={m}>{m}</option>
                ))}
              </select>
            </Field>
            <Field id="pg-path" label="Path and query" hint="Exactly as sent: same order, same encoding, no host.">
              <input id="pg-path" className="mono" value={path} onChange={(e) => setPath(e.target.value)} spellCheck={false} />
            </Field>
          </div>
          <Field
            id="pg-ts"
            label="Timestamp (X-Timestamp)"
            hint={
              skew === 0
                ? 'Unix seconds, now on the appliance clock.'
                : skew < 0 && skew >= -WINDOW_SECONDS
                  ? `Unix seconds on the appliance clock, taken ${-skew} s ago; the gateway accepts it until ${WINDOW_SECONDS} s have passed (Now takes a fresh one).`
                  : `${Math.abs(skew)} s ${skew > 0 ? 'ahead of' : 'behind'} the appliance clock${Math.abs(skew) > WINDOW_SECONDS ? ': outside the ±300 s window, the gateway answers AUTH_TIMESTAMP_EXPIRED' : ''}.`
            }
          >
            <div style={{ display: 'flex', gap: 8 }}>
              <input id="pg-ts" className="mono" value={timestamp} onChange={(e) => setTimestamp(e.target.value.trim())} inputMode="numeric" />
              <Button onClick={() => setTimestamp(applianceNow())}>Now</Button>
            </div>
          </Field>
          {sendsBody && (
            <Field id="pg-body" label="Body (raw bytes)" hint="Signed byte for byte: the curl sends this exact text. Leave empty for no body.">
              <textarea id="pg-body" className="mono" rows={6} value={body} onChange={(e) => setBody(e.target.value)} spellCheck={false} />
            </Field>
          )}
        </section>

        <section className="card card-pad" aria-label="Signature">
          <h2 className="section-title">String to sign</h2>
          <VisiblePayload payload={payload} />
          <p className="hint" style={{ marginTop: 6 }}>
            {new TextEncoder().encode(payload).length} bytes (UTF-8) · <code style={{ color: '#b45309', fontWeight: 700 }}>\n</code> marks the one line feed (0x0A), a single byte
          </p>
          {problems.map((p) => (
            <div key={p} className="banner banner-warn" role="status">
              {p}
            </div>
          ))}
          <h2 className="section-title">Signature (X-Signature)</h2>
          {result ? (
            <>
              <div className="secret-row">
                <div className="value mono" data-testid="signature" style={{ wordBreak: 'break-all' }}>
                  {result.hex}
                </div>
                <CopyButton value={result.hex} label="Copy signature" />
              </div>
              <p className="hint">
                HMAC-SHA256 by <Badge tone="info">{result.engine}</Badge>, lowercase hex, 64 characters.
              </p>
              <h2 className="section-title">curl</h2>
              <pre className="json" data-testid="curl" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
                {curl}
              </pre>
              <CopyButton value={curl} label="Copy curl" />
              {WRITE_METHODS.has(method) && <p className="hint">Writes need an Idempotency-Key (not signed): the curl makes a fresh one.</p>}
            </>
          ) : (
            <p className="muted">Paste the API secret to compute the signature.</p>
          )}
          <h2 className="section-title">The rules</h2>
          <ul style={{ paddingLeft: 18, margin: 0, lineHeight: 1.6 }}>
            <li>
              The string is <code>timestamp</code> + <code>.</code> + <code>METHOD</code> + one space + <code>path and query</code> + one line feed + <code>raw body</code>.
            </li>
            <li>Line feed only (LF, \n), never CR LF. A GET has no body: the string ends with the line feed.</li>
            <li>The path is the request target as sent, with its query string in the same order and encoding; no scheme, no host.</li>
            <li>The body is the exact bytes sent: re-serializing JSON after signing (spaces, key order) breaks the signature.</li>
            <li>X-Timestamp is Unix seconds within ±300 s of the appliance clock; the signature is lowercase hex, keyed by the secret as text.</li>
          </ul>
        </section>
      </div>
    </>
  );
}
