import { Select, valueOptions } from '../../lib/forms.tsx';
import { Button, Field } from '../../lib/ui.tsx';
import { RawInput } from './RawInput.tsx';
import { WRITE_METHODS } from './signing.ts';
import type { useSend } from './useSend.ts';
import { type PlaygroundDraft, WINDOW_SECONDS } from './usePlaygroundDraft.ts';

const METHODS = ['GET', 'POST', 'PATCH', 'DELETE'];

/** How far the timestamp is from the appliance clock, and what the gateway makes of it. */
function timestampHint(skew: number): string {
  if (skew === 0) return 'Unix seconds, now on the appliance clock. Send always signs with a fresh one.';
  if (skew < 0 && skew >= -WINDOW_SECONDS)
    return `Unix seconds on the appliance clock, taken ${-skew} s ago; the gateway accepts it until ${WINDOW_SECONDS} s have passed. Send takes a fresh one.`;
  return `${Math.abs(skew)} s ${skew > 0 ? 'ahead of' : 'behind'} the appliance clock${Math.abs(skew) > WINDOW_SECONDS ? ': outside the ±300 s window, the gateway answers AUTH_TIMESTAMP_EXPIRED' : ''}. Send takes a fresh one.`;
}

/** What is signed (method, path, timestamp, body) and the button that sends it. */
export function RequestFields({ draft, sender }: { draft: PlaygroundDraft; sender: ReturnType<typeof useSend> }) {
  const { method, path, timestamp, body, sendsBody, sentTarget, skew } = draft;
  const { canSend, canWrite, sending } = sender;
  return (
    <>
      <h2 className="card-heading">Request</h2>
      <div style={{ display: 'grid', gridTemplateColumns: '8rem minmax(0, 1fr)', gap: '0 12px' }}>
        <Field id="pg-method" label="Method">
          <Select id="pg-method" value={method} onChange={draft.setMethod} options={valueOptions(METHODS)} />
        </Field>
        <Field id="pg-path" label="Path and query" hint="Exactly as sent: same order, same encoding, no host.">
          <RawInput id="pg-path" value={path} onValue={draft.setPath} />
        </Field>
      </div>
      <Field id="pg-ts" label="Timestamp (X-Timestamp)" hint={timestampHint(skew)}>
        <div className="inline-field">
          <RawInput id="pg-ts" value={timestamp} onValue={draft.setTimestamp} trim inputMode="numeric" />
          <Button onClick={() => draft.setTimestamp(draft.applianceNow())}>Now</Button>
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
            onChange={(e) => draft.setBody(e.target.value)}
            spellCheck={false}
          />
        </Field>
      )}
      <div className="form-actions" style={{ justifyContent: 'flex-start', alignItems: 'center' }}>
        <Button variant="primary" onClick={() => void sender.send()} disabled={!canSend}>
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
    </>
  );
}
