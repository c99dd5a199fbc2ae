import type { IdempotencyRecord } from '../db/tables/idempotency-keys.ts';

/**
 * What the console's idempotency inspector reads of the entries (metadata only: a sealed response is never
 * opened for it) and the one thing it changes (the purge of an entry). Both stores answer it, each in its
 * own SQL (gateway.db: IdempotencyStore; the cluster's PostgreSQL: PostgresIdempotencyStore).
 */
export type InspectedEntry = Pick<
  IdempotencyRecord,
  | 'chave_id'
  | 'idem_key'
  | 'method'
  | 'path'
  | 'state'
  | 'status'
  | 'body_hash'
  | 'created_at'
  | 'expires_at'
  | 'lease_until'
  | 'request_id'
>;

/** The columns of an InspectedEntry, for the stores' SELECTs. */
export const INSPECTED_COLUMNS =
  'chave_id, idem_key, method, path, state, status, body_hash, created_at, expires_at, lease_until, request_id';

/** An entry's primary key. */
export interface EntryName {
  chaveId: number;
  method: string;
  path: string;
  idemKey: string;
}

type Answer<T> = T | Promise<T>;

export interface IdempotencyInspection {
  /** An API key's entries live at `at`, newest first, at most `limit`. */
  liveEntriesOfKey(chaveId: number, at: number, limit: number): Answer<InspectedEntry[]>;
  /** The entries of one Idempotency-Key under any of `chaveIds`, live at `at`, newest first, at most `limit`. */
  liveEntriesOfIdemKey(chaveIds: number[], idemKey: string, at: number, limit: number): Answer<InspectedEntry[]>;
  /** An entry of (API key, Idempotency-Key) live at `at`, if there is one. */
  liveEntry(chaveId: number, idemKey: string, at: number): Answer<InspectedEntry | undefined>;
  /** The entry by its primary key, live or not. */
  entry(name: EntryName): Answer<InspectedEntry | undefined>;
  /** Deletes the entry (whatever its state: the caller decides what may be purged). */
  purgeEntry(name: EntryName): Answer<void>;
}
