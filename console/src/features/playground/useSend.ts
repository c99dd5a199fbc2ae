import { useState } from 'react';
import { useCanWrite } from '../../lib/role.ts';
import { type SignedRequest, useSendSigned } from './api.ts';
import { newIdempotencyKey, signature, stringToSign, targetAsSent, WRITE_METHODS } from './signing.ts';
import type { PlaygroundDraft } from './usePlaygroundDraft.ts';

/** What the gateway answered to the page's request. */
export interface Sent {
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

/** Sending the draft through the gateway, and its last answer. */
export function useSend(draft: PlaygroundDraft) {
  const relay = useSendSigned();
  // Send is a console write (the gateway relays it): an admin's. A viewer still builds, signs and copies the curl.
  const canWrite = useCanWrite();
  const [signing, setSigning] = useState(false);
  const [sent, setSent] = useState<Sent | null>(null);
  const sending = signing || relay.isPending;
  const { apiKey, secret, path, method, rawBody, origin } = draft;
  const canSend = canWrite && Boolean(apiKey && secret && path.startsWith('/')) && !sending;

  /**
   * Signs with a fresh timestamp and sends through the gateway, which hands the request to /v1 as signed
   * (only the signature travels, never the secret), and shows the answer.
   */
  const send = async () => {
    setSigning(true);
    relay.reset();
    try {
      const ts = draft.applianceNow();
      draft.setTimestamp(ts);
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

  return { send, sending, canSend, canWrite, sent, error: relay.error };
}
