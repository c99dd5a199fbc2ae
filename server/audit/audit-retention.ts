import type { JournalBudget, JournalStatus } from './journal-budget.ts';
import type { OpenedGatewayDatabase } from '../db/gateway-database.ts';

export interface AuditStorageStatus {
  /** Entries of audit_log (verified and unverified) and unattributed groups. */
  rows: number;
  max_rows: number;
  /** ISO 8601 of the oldest and newest entries kept; null when the log is empty. */
  oldest_ts: string | null;
  newest_ts: string | null;
  /** gateway.db as a whole (audit log, keys, idempotency store), and the part of it free for reuse. */
  database_bytes: number;
  free_bytes: number;
  /** The budget, its use per class, the free-space guard and the journal's state (issue 19). */
  journal: JournalStatus;
}

/**
 * What the console shows: counts from the budget's totals, sizes from the database's own counters (no file
 * scan): SQLite's pages, or PostgreSQL's size of the database (its free space inside the files is not measured).
 */
export async function auditStorageStatus(
  database: OpenedGatewayDatabase,
  budget: JournalBudget,
): Promise<AuditStorageStatus> {
  const journal = budget.status();
  const t = journal.totals;
  const common = { rows: t.verified.rows + t.unverified.rows + t.unattributed.rows, max_rows: budget.maxRows, journal };
  if (database.kind === 'postgres') {
    const { rows } = await database.pool.query<{ oldest: string | null; newest: string | null; size: number }>(
      `SELECT (SELECT ts FROM audit_log ORDER BY id ASC LIMIT 1) AS oldest, (SELECT ts FROM audit_log ORDER BY id DESC LIMIT 1) AS newest,
              pg_database_size(current_database()) AS size`,
    );
    return {
      ...common,
      oldest_ts: rows[0].oldest,
      newest_ts: rows[0].newest,
      database_bytes: Number(rows[0].size),
      free_bytes: 0,
    };
  }
  const { sqlite } = database;
  // The smallest and largest ids are the oldest and newest entries; their ts is read by primary key.
  const edge = (order: 'ASC' | 'DESC') =>
    (sqlite.prepare(`SELECT ts FROM audit_log ORDER BY id ${order} LIMIT 1`).get() as { ts: string } | undefined)?.ts ??
    null;
  const pageSize = sqlite.pragma('page_size', { simple: true }) as number;
  const pages = sqlite.pragma('page_count', { simple: true }) as number;
  const free = sqlite.pragma('freelist_count', { simple: true }) as number;
  return {
    ...common,
    oldest_ts: edge('ASC'),
    newest_ts: edge('DESC'),
    database_bytes: pages * pageSize,
    free_bytes: free * pageSize,
  };
}
