import { setTimeout as sleep } from 'node:timers/promises';
import type SQLite from 'better-sqlite3';

/**
 * The audit log's size bound, on top of its 30-day retention (audit-writer.ts purges by age): at most
 * AUDIT_MAX_ROWS entries, the oldest (smallest id: ids follow commit order) deleted first. An entry
 * takes about 0.4-0.55 KB on disk with its six indexes (431 B measured on a 1,000,000-row mix of reads
 * and redacted patient writes; issue 12 saw about 540 B), so the default keeps the audit log near
 * 0.5 GB. SQLite reuses the pages freed: the file stops growing rather than shrinks (VACUUM, offline,
 * gives the space back).
 */
export const DEFAULT_AUDIT_MAX_ROWS = 1_000_000;

export interface AuditStorageStatus {
  rows: number;
  max_rows: number;
  /** ISO 8601 of the oldest and newest entries kept; null when the log is empty. */
  oldest_ts: string | null;
  newest_ts: string | null;
  /** gateway.db as a whole (audit log, keys, idempotency store), and the part of it free for reuse. */
  database_bytes: number;
  free_bytes: number;
}

/** What the console shows: counts from the table, sizes from SQLite's page counters (no file scan). */
export function auditStorageStatus(sqlite: SQLite.Database, maxRows: number): AuditStorageStatus {
  const { rows } = sqlite.prepare('SELECT COUNT(*) AS rows FROM audit_log').get() as { rows: number };
  // The smallest and largest ids are the oldest and newest entries; their ts is read by primary key.
  const edge = (order: 'ASC' | 'DESC') =>
    (sqlite.prepare(`SELECT ts FROM audit_log ORDER BY id ${order} LIMIT 1`).get() as { ts: string } | undefined)?.ts ?? null;
  const pageSize = sqlite.pragma('page_size', { simple: true }) as number;
  const pages = sqlite.pragma('page_count', { simple: true }) as number;
  const free = sqlite.pragma('freelist_count', { simple: true }) as number;
  return {
    rows,
    max_rows: maxRows,
    oldest_ts: edge('ASC'),
    newest_ts: edge('DESC'),
    database_bytes: pages * pageSize,
    free_bytes: free * pageSize,
  };
}

/** Deletes up to `limit` of the oldest entries; one short transaction. Returns how many went. */
export function deleteOldestAuditRows(sqlite: SQLite.Database, limit: number): number {
  return sqlite.prepare('DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log ORDER BY id LIMIT ?)').run(limit).changes;
}

export interface EnforceOptions {
  /** Rows per delete transaction: each holds the write lock for milliseconds only. */
  chunkRows?: number;
  /** Pause between chunks, so the audit writer's group commits and the requests get the event loop in between. */
  pauseMs?: number;
}

const running = new WeakSet<SQLite.Database>();

/**
 * Brings the audit log down to `maxRows` entries, oldest first, in chunks: the excess is counted once,
 * then deleted `chunkRows` at a time with a pause between transactions, so neither the event loop nor
 * the database is held for long whatever the excess (a lowered cap can mean millions of rows). Entries
 * written meanwhile are left to the next run (the gateway runs this every 10 minutes). One run at a time
 * per connection; stops quietly if the connection closes. Returns the number of entries deleted.
 */
export async function enforceAuditRowCap(sqlite: SQLite.Database, maxRows: number, options: EnforceOptions = {}): Promise<number> {
  // 500 rows: about 20 ms per transaction on a loaded 2-core machine (secure_delete zeroes them).
  const chunkRows = options.chunkRows ?? 500;
  const pauseMs = options.pauseMs ?? 5;
  if (running.has(sqlite)) return 0;
  running.add(sqlite);
  try {
    const { rows } = sqlite.prepare('SELECT COUNT(*) AS rows FROM audit_log').get() as { rows: number };
    let excess = rows - maxRows;
    let deleted = 0;
    while (excess > 0 && sqlite.open) {
      const n = deleteOldestAuditRows(sqlite, Math.min(chunkRows, excess));
      if (n === 0) break;
      deleted += n;
      excess -= n;
      if (excess > 0) await sleep(pauseMs);
    }
    return deleted;
  } finally {
    running.delete(sqlite);
  }
}
