import type { Generated, Selectable } from 'kysely';

/**
 * Presign faults switched on through any instance's console API (migration 021, PostgreSQL only; with SQLite
 * they stay in the gateway's memory). Each instance keeps a copy, refreshed on `NOTIFY gateway_storage_faults`.
 */
export interface StorageFaultsTable {
  id: Generated<number>;
  /** A clinic's slug, or `*`. */
  tenant: string;
  failure_rate: number;
  criado_em: string;
  /** Presigns it failed, on every instance. */
  hits: Generated<number>;
}

/**
 * One row per API key: the cluster's token bucket as a theoretical arrival time (GCRA), in milliseconds of the
 * database's clock (server/rate-limit/cluster-limiter.ts). UNLOGGED: lost with a database crash, when every bucket
 * starts full again.
 */
export interface RateLimitBucketsTable {
  chave_id: number;
  tat: number;
}

export type StorageFaultRow = Selectable<StorageFaultsTable>;
