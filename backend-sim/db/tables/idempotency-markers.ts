import type { Generated } from 'kysely';

/**
 * One row per write the gateway executed under an Idempotency-Key (token derived from API key id,
 * method, path and key). Inserted with the response in the transaction of the write, just before it
 * commits (backend-sim/db/idempotent-dialect.ts), so a committed write always has its recorded answer. Purged 24 h after the write, like the gateway's idempotency store.
 */
export interface IdempotencyMarkersTable {
  /** Write order (migration 009: appended, not placed by token). */
  id: Generated<number>;
  token: string;
  method: string;
  path: string;
  status: number | null;
  content_type: string | null;
  /** The response body exactly as sent (JSON text). */
  response: string | null;
  /** Epoch milliseconds. */
  created_at: number;
}
