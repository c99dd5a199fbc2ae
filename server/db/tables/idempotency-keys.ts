import type { Selectable } from 'kysely';

/** Stored outcomes of writes, per API key and operation (method + path), kept 24 h. */
export interface IdempotencyKeysTable {
  chave_id: number;
  idem_key: string;
  method: string;
  path: string;
  /** SHA-256 of the raw request body: same key + different body is a conflict. */
  body_hash: string;
  /** `in_flight` or `completed`. */
  state: string;
  /** Epoch ms until which an in-flight entry blocks its key; a crash leaves it to expire quickly. */
  lease_until: number;
  status: number | null;
  /** JSON object of response headers worth replaying (Location). */
  response_headers: string | null;
  response_body: string | null;
  created_at: number;
  /** created_at + 24 h. */
  expires_at: number;
}

export type IdempotencyRecord = Selectable<IdempotencyKeysTable>;
