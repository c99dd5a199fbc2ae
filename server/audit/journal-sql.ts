import { JOURNAL_CLASSES, type ClassTotals, type JournalClass, type JournalDeletion } from './journal-budget.ts';

// The journal's statements that gateway.db (sqlite-journal.ts, audit-writer.ts) and the cluster's PostgreSQL
// (postgres-journal.ts) both run, written once: each database passes how it writes the n-th parameter.

/** The n-th parameter of a statement (from 1): `$n` on PostgreSQL, `?` on SQLite. */
export type Parameter = (n: number) => string;
export const postgresParameter: Parameter = (n) => `$${n}`;
export const sqliteParameter: Parameter = () => '?';

/** A row a deletion returns: audit_log's carry `verified`, groups null (deletedChunkOf tells them apart). */
export interface DeletedRow {
  verified: number | null;
  bytes: number;
}

/**
 * The budget's deletions, each at most the last parameter's rows (the purges take a cutoff first).
 * `nullVerified`: a NULL the driver reads as `verified`'s integer (PostgreSQL needs the type said).
 */
export function journalDeletions(p: Parameter, nullVerified: string): Record<JournalDeletion, string> {
  const groups = `RETURNING ${nullVerified} AS verified, bytes`;
  return {
    purge_log: `DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE ts < ${p(1)} LIMIT ${p(2)}) RETURNING verified, bytes`,
    purge_groups: `DELETE FROM audit_unattributed WHERE id IN (SELECT id FROM audit_unattributed WHERE minute < ${p(1)} LIMIT ${p(2)}) ${groups}`,
    shed_groups: `DELETE FROM audit_unattributed WHERE id IN (SELECT id FROM audit_unattributed ORDER BY id LIMIT ${p(1)}) ${groups}`,
    shed_unverified: `DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE verified = 0 ORDER BY id LIMIT ${p(1)}) RETURNING verified, bytes`,
  };
}

/** Adds one class's rows and bytes (`totalsToAdd`) to the running totals. */
export const addToTotals = (p: Parameter) =>
  `UPDATE audit_budget SET rows = rows + ${p(1)}, bytes = bytes + ${p(2)} WHERE kind = ${p(3)}`;

/** The running totals, one row per class. */
export const READ_TOTALS = 'SELECT kind, rows, bytes FROM audit_budget';
export type TotalsRow = { kind: JournalClass } & ClassTotals;

/** What a batch or a deleted chunk adds to the totals (`addToTotals`' parameters): only the classes it moved. */
export function totalsToAdd(delta: Record<JournalClass, ClassTotals>): Array<[number, number, JournalClass]> {
  return JOURNAL_CLASSES.filter((kind) => delta[kind].rows !== 0).map((kind) => [
    delta[kind].rows,
    delta[kind].bytes,
    kind,
  ]);
}
