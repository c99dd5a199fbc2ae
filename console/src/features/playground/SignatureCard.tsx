import { CopyableSnippet, CopyableValue } from '../../lib/copy.tsx';
import { Badge, breakable } from '../../lib/ui.tsx';
import { WRITE_METHODS } from './signing.ts';
import type { PlaygroundDraft } from './usePlaygroundDraft.ts';

const LF_STYLE = { color: '#f59e0b', fontWeight: 700 } as const;

/** The string to sign with its line feed shown as \n (and kept as a real line break). */
function VisiblePayload({ payload }: { payload: string }) {
  let at = 0;
  const parts = payload.split('\n').map((text) => {
    const start = at;
    at += text.length + 1;
    return { text, start };
  });
  return (
    <pre className="json" data-testid="string-to-sign" style={{ margin: 0 }}>
      {parts.map(({ text, start }, i) => (
        <span key={start}>
          {breakable(text)}
          {i < parts.length - 1 && (
            <>
              {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: the mark's name as the page has always given it */}
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

/** What is signed and its signature: the string to sign, what looks wrong, the X-Signature, the curl, the rules. */
export function SignatureCard({ draft }: { draft: PlaygroundDraft }) {
  const { payload, problems, result, curl, method } = draft;
  return (
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
          The path is the request target as sent, with its query string in the same order and encoding; no scheme, no
          host.
        </li>
        <li>
          The body is the exact bytes sent: re-serializing JSON after signing (spaces, key order) breaks the signature.
        </li>
        <li>
          X-Timestamp is Unix seconds within ±300 s of the appliance clock; the signature is lowercase hex, keyed by the
          secret as text.
        </li>
      </ul>
    </section>
  );
}
