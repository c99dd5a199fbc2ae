import type SQLite from 'better-sqlite3';
import type { JournalBudget, JournalStatus } from './journal-budget.ts';

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

/** What the console shows: counts from the budget's totals, sizes from SQLite's page counters (no file scan). */
export function auditStorageStatus(sqlite: SQLite.Database, budget: JournalBudget): AuditStorageStatus {
  // The smallest and largest ids are the oldest and newest entries; their ts is read by primary key.
  const edge = (order: 'ASC' | 'DESC') =>
    (sqlite.prepare(`SELECT ts FROM audit_log ORDER BY id ${order} LIMIT 1`).get() as { ts: string } | undefined)?.ts ?? null;
  const pageSize = sqlite.pragma('page_size', { simple: true }) as number;
  const pages = sqlite.pragma('page_count', { simple: true }) as number;
  const free = sqlite.pragma('freelist_count', { simple: true }) as number;
  const journal = budget.status();
  const t = journal.totals;
  return {
    rows: t.verified.rows + t.unverified.rows + t.unattributed.rows,
    max_rows: budget.maxRows,
    oldest_ts: edge('ASC'),
    newest_ts: edge('DESC'),
    database_bytes: pages * pageSize,
    free_bytes: free * pageSize,
    journal,
  };
}
