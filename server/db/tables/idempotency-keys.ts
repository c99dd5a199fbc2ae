import type { Generated, Selectable } from 'kysely';

/**
 * Stored outcomes of writes, kept 24 h: one entry per (API key, Idempotency-Key), bound to the operation
 * it executed (`operation`). The primary key (chave_id, idem_key, method, path) predates that binding.
 */
export interface IdempotencyKeysTable {
  chave_id: number;
  idem_key: string;
  /** Verb and path as the first request sent them (the path is not decoded: shown as sent). */
  method: string;
  path: string;
  /**
   * The operation the router resolved, `["POST","/v1/pacientes/:id/prontuarios",{"id":1}]` (verb, route
   * pattern, parsed path values): the key answers it whatever spelling of the path, and is a conflict on
   * any other. NULL on rows written before migration 018 (they match their own verb and raw path).
   */
  operation: string | null;
  /**
   * Fingerprint of the request body: same key + different body is a conflict. HMAC-SHA256, under a
   * subkey of the master key, of the canonical body's SHA-256 (a bare hash of a small body holding a
   * CPF could be reversed by trying every CPF). seal_version 0 rows held the bare SHA-256.
   */
  body_hash: string;
  /**
   * `in_flight`, `completed`, or `orphaned`: completed, but the start-time check found that backend-sim no
   * longer holds its write (server/integrity/idempotency-consistency.ts); it replays nothing, its retry executes.
   */
  state: string;
  /** Epoch ms until which an in-flight entry blocks its key; a crash leaves it to expire quickly. */
  lease_until: number;
  status: number | null;
  /** Legacy (seal_version 0) plaintext; always NULL in sealed rows. */
  response_headers: string | null;
  /** Legacy (seal_version 0) plaintext; always NULL in sealed rows. */
  response_body: string | null;
  /**
   * AES-256-GCM (`iv | tag | ciphertext`) of `<headers JSON>\n<body>`, the associated data binding it to
   * this row's key, status and operation (server/idempotency/idempotency.store.ts).
   */
  response_sealed: Buffer | null;
  /** 0: written before sealing (plaintext), converted when the store opens; 1: sealed. */
  seal_version: Generated<number>;
  created_at: number;
  /** created_at + 24 h. */
  expires_at: number;
  /** The request that executed (or is executing) the write: links the entry to its audit row. Null before issue 14. */
  request_id: string | null;
  /**
   * The gateway instance that reserved the entry (GATEWAY_INSTANCE_ID or its random id; migration 021): on
   * PostgreSQL an instance frees at start only the reservations it left. Null on rows written before.
   */
  instance_id: Generated<string | null>;
}

export type IdempotencyRecord = Selectable<IdempotencyKeysTable>;
