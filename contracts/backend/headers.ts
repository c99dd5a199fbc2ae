/**
 * gateway → backend-sim: the internal headers, named once (server/backend/client.ts sends them,
 * backend-sim reads them). Lower case, as Node presents incoming header names.
 */
export const INTERNAL_HEADERS = {
  /** The internal credential, checked on every call (backend-sim/app.ts). */
  token: 'x-internal-token',
  /** The API key the call runs for: journaled with the writes it makes (`_via_api_chave_id`). */
  chaveId: 'x-chave-id',
  /** The doctor bound to the key (0: none): backend-sim filters what the key may see. */
  medicoFiltroId: 'x-medico-filtro-id',
  /** The gateway's request id, for the backend's log. */
  requestId: 'x-request-id',
  /** A write under an Idempotency-Key: backend-sim replays its marker instead of writing twice (backend-sim/idempotency.ts). */
  idempotencyToken: 'x-idempotency-token',
  /** Answer header: `true` when the answer was replayed from that marker. */
  idempotentReplay: 'x-idempotent-replay',
  /**
   * Answer header of a read: the stamp of the contract schema its `data` was parsed with before it was written,
   * `meta` first (shared-node/contract-stamp.ts); the gateway relays such a `data` without parsing it again.
   */
  contractSchema: 'x-contract-schema',
  /** W3C trace context of the gateway's client span, sent only with tracing on: backend-sim's server span continues it. */
  traceparent: 'traceparent',
} as const;
