import type SQLite from 'better-sqlite3';
import { deletedChunkOf, type DeletedChunk, type JournalDeletion, type JournalStore } from './journal-budget.ts';
import {
  addToTotals,
  type DeletedRow,
  journalDeletions,
  READ_TOTALS,
  sqliteParameter,
  type TotalsRow,
  totalsToAdd,
} from './journal-sql.ts';

// gateway.db's side of the journal's budget: the JournalStore the budget (journal-budget.ts) reads and deletes
// through, and the page counts it is measured in. The cluster's PostgreSQL has its own (postgres-journal.ts).

const KiB = 1024;
const MiB = 1024 * KiB;

/** The tables whose pages are the journal's share of gateway.db (their indexes included; the rollup too: § G2). */
export const JOURNAL_TABLES = [
  'audit_log',
  'audit_unattributed',
  'audit_budget',
  'audit_probe',
  'journal_minutes',
  'journal_minute_codes',
] as const;
/** The WAL's index (gateway.db-shm): 32 KiB while the WAL stays under 4,062 frames, which its share keeps it. */
export const SHM_BYTES = 32 * KiB;
/** SQLite's frame header: each page in the WAL takes this much more than the page itself. */
const WAL_FRAME_HEADER = 24;

/**
 * The WAL's share of the budget: 1/16 of it, between 256 KiB and 8 MiB. Half of it is where SQLite
 * checkpoints (wal_autocheckpoint) and what the file is cut back to after a checkpoint
 * (journal_size_limit); the journal's transactions are kept under the other half, so the file never
 * holds more than the share (gateway.db-wal carries gateway.db's other writes too: counted wholly here).
 */
export function walShareBytes(maxBytes: number): number {
  return Math.min(8 * MiB, Math.max(256 * KiB, Math.floor(maxBytes / 16)));
}

/**
 * gateway.db's pages in use (all tables): read inside a journal transaction before and after its writes, the
 * difference is what the journal's tables took or gave back.
 */
export function sqlitePagesInUse(sqlite: SQLite.Database): () => number {
  const statement = sqlite
    .prepare(
      'SELECT (SELECT page_count FROM pragma_page_count()) - (SELECT freelist_count FROM pragma_freelist_count())',
    )
    .pluck();
  return () => statement.get() as number;
}

/**
 * gateway.db's journal: prepared statements on the gateway's connection; RETURNING gives each deleted row's class
 * and weight, and SQLite's pages in use read around each transaction what it gave back. Sets the WAL's policy for
 * `maxBytes`: half its share is where SQLite checkpoints and what the file is cut back to afterwards.
 */
export function sqliteJournalStore(sqlite: SQLite.Database, maxBytes: number): JournalStore {
  const pageSize = sqlite.pragma('page_size', { simple: true }) as number;
  const walShare = walShareBytes(maxBytes);
  const walHalf = Math.floor(walShare / 2);
  sqlite.pragma(`wal_autocheckpoint = ${Math.max(1, Math.floor(walHalf / (pageSize + WAL_FRAME_HEADER)))}`);
  sqlite.pragma(`journal_size_limit = ${walHalf}`);
  const deletions = journalDeletions(sqliteParameter, 'NULL');
  const statements = Object.fromEntries(
    Object.entries(deletions).map(([what, sql]) => [what, sqlite.prepare(sql)]),
  ) as Record<JournalDeletion, SQLite.Statement>;
  const probeInsert = sqlite.prepare('INSERT INTO audit_probe (v) VALUES (randomblob(?))');
  const probeDelete = sqlite.prepare('DELETE FROM audit_probe');
  const freePages = sqlite.prepare('PRAGMA freelist_count').pluck();
  const deleteInChunk = sqliteDeletion(sqlite);
  return {
    shared: false,
    pageSize,
    walShareBytes: walShare,
    shmBytes: SHM_BYTES,
    // A transaction's pages: its rows, and a leaf of the one index whose order is random (request_id) per entry;
    // the other indexes end in the id, so a transaction's entries share their leaves.
    batchEntries: Math.max(1, Math.floor(walHalf / pageSize / 2)),
    batchBytes: Math.floor(walHalf / 2),
    journalPages: () => journalPagesOf(sqlite),
    readTotals: () => sqlite.prepare(READ_TOTALS).all() as TotalsRow[],
    probe(bytes) {
      try {
        probeInsert.run(bytes);
        probeDelete.run();
        return true;
      } catch {
        try {
          probeDelete.run();
        } catch {
          // Still failing: the next probe tries again.
        }
        return false;
      }
    },
    reusableBytes() {
      try {
        return (freePages.get() as number) * pageSize;
      } catch {
        return 0;
      }
    },
    deleteChunk: (what, parameter, limit) =>
      deleteInChunk(() => statements[what].all(...(parameter === null ? [limit] : [parameter, limit]))),
    isOpen: () => sqlite.open,
  };
}

/**
 * One deletion of journal rows in an immediate transaction, with its totals (audit_budget) and the pages it gave
 * back (SQLite's pages in use read around it): the budget's deletions above and the operator's prune
 * (journal-prune.ts). `rows` runs the DELETE … RETURNING verified, bytes.
 */
export function sqliteDeletion(sqlite: SQLite.Database): (rows: () => unknown[]) => DeletedChunk {
  const updateTotals = sqlite.prepare(addToTotals(sqliteParameter));
  const pagesInUse = sqlitePagesInUse(sqlite);
  const run = sqlite.transaction((rows: () => unknown[]) => {
    const pagesBefore = pagesInUse();
    const chunk = deletedChunkOf(rows() as DeletedRow[], 0);
    for (const change of totalsToAdd(chunk.delta)) updateTotals.run(...change);
    chunk.pages = pagesInUse() - pagesBefore;
    return chunk;
  });
  return (rows) => run.immediate(rows);
}

/** Pages the journal's tables and indexes take in gateway.db, from SQLite's own page map (dbstat; once, at start). */
export function journalPagesOf(sqlite: SQLite.Database): number {
  const names = sqlite
    .prepare(
      `SELECT name FROM sqlite_schema WHERE type IN ('table', 'index') AND tbl_name IN (${JOURNAL_TABLES.map(() => '?').join(', ')})`,
    )
    .pluck()
    .all(...JOURNAL_TABLES) as string[];
  // One b-tree at a time: dbstat walks only the pages of the name it is given.
  const pagesOf = sqlite.prepare('SELECT count(*) FROM dbstat WHERE name = ?').pluck();
  return names.reduce((sum, name) => sum + (pagesOf.get(name) as number), 0);
}

/**
 * The same count without walking the journal: gateway.db's pages in use less those of every other b-tree (the
 * keys, sessions, idempotency store, schema), read in one snapshot. Its cost follows the other tables, not the
 * journal, so a running gateway can measure again on its event loop after another process pruned a 2 GiB journal
 * (dbstat walks about 435 MB a second here). Past 1 GiB it counts SQLite's lock-byte page too: one page more.
 */
export function journalPagesByComplement(sqlite: SQLite.Database): number {
  const others = sqlite
    .prepare(
      `SELECT name FROM sqlite_schema WHERE type IN ('table', 'index') AND tbl_name NOT IN (${JOURNAL_TABLES.map(() => '?').join(', ')}) AND rootpage > 0`,
    )
    .pluck();
  const pagesOf = sqlite.prepare('SELECT count(*) FROM dbstat WHERE name = ?').pluck();
  const inUse = sqlitePagesInUse(sqlite);
  return sqlite.transaction(() => {
    const names = ['sqlite_schema', ...(others.all(...JOURNAL_TABLES) as string[])];
    return inUse() - names.reduce((sum, name) => sum + (pagesOf.get(name) as number), 0);
  })();
}
