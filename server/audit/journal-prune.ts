import type SQLite from 'better-sqlite3';
import type pg from 'pg';
import type { OpenedGatewayDatabase } from '../db/gateway-database.ts';
import { inPostgresTransaction } from '../db/postgres.ts';
import { deletedChunkOf, type DeletedChunk, type JournalBudget, type JournalClass } from './journal-budget.ts';
import { addToBudget } from './postgres-journal.ts';
import { journalPagesByComplement, sqliteDeletion } from './sqlite-journal.ts';
import {
  type DeletedRow,
  journalDeletions,
  type Parameter,
  postgresParameter,
  sqliteParameter,
} from './journal-sql.ts';
import { rollupPruneStatements } from './journal-rollup.ts';

// The operator's prune of the journal (development mode only; docs/decisions.md § P): entries older than a point
// in time, all clinics' or one clinic's, in short transactions with a turn of the event loop between them, each
// moving the budget's totals (audit_budget, and the journal's pages on gateway.db) with what it removed. The
// records of earlier prunes (console action `journal.prune`) are never pruned: only the retention purge takes them.

/** What a prune takes: entries with `ts < before` (an ISO instant in UTC), of one clinic's slug when `tenant` is set. */
export interface PruneFilter {
  before: string;
  tenant: string | null;
}

export interface PruneCount {
  entries: number;
  /** Unattributed groups whose minute ended before `before` (none with `tenant`: they belong to no clinic). */
  groups: number;
}

/** Rows per prune transaction: short enough that requests and the journal's batches wait little between two. */
export const PRUNE_CHUNK_ROWS = 500;

/** A prune's own entry, and every earlier prune's, stay (the CLI's entries are console actions too). */
const KEEP_PRUNE_RECORDS = `NOT (source = 'console' AND coalesce(detail, '') LIKE '{"action":"journal.prune"%')`;

type Part = 'log' | 'groups';

/**
 * The prune's statements in either database's parameters: counting and deleting entries (with a tenant or
 * without), and the unattributed groups (the retention purge's own deletion, cut at `before`'s minute).
 */
function pruneStatements(p: Parameter, nullVerified: string) {
  const where = (tenant: boolean) =>
    `ts < ${p(1)}${tenant ? ` AND tenant_slug = ${p(2)}` : ''} AND ${KEEP_PRUNE_RECORDS}`;
  const variants = (sql: (tenant: boolean) => string) => ({ all: sql(false), tenant: sql(true) });
  return {
    countLog: variants((t) => `SELECT count(*) AS n FROM audit_log WHERE ${where(t)}`),
    deleteLog: variants(
      (t) =>
        `DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE ${where(t)} LIMIT ${p(t ? 3 : 2)}) RETURNING verified, bytes`,
    ),
    countGroups: `SELECT count(*) AS n FROM audit_unattributed WHERE minute < ${p(1)}`,
    deleteGroups: journalDeletions(p, nullVerified).purge_groups,
  };
}

/** A group's minute (`YYYY-MM-DDTHH:MM`) is wholly before `before` when it is less than `before`'s own minute. */
const groupCutoff = (before: string) => before.slice(0, 16);

/** The parameters of one statement: the log's (before, and the tenant when set) or the groups' (the cutoff minute). */
const parametersOf = (part: Part, filter: PruneFilter): string[] =>
  part === 'groups'
    ? [groupCutoff(filter.before)]
    : filter.tenant === null
      ? [filter.before]
      : [filter.before, filter.tenant];

const variantOf = <T>(v: { all: T; tenant: T }, filter: PruneFilter): T => (filter.tenant === null ? v.all : v.tenant);

interface PruneStore {
  count(filter: PruneFilter): PruneCount | Promise<PruneCount>;
  deleteChunk(part: Part, filter: PruneFilter, limit: number): DeletedChunk | Promise<DeletedChunk>;
  /** The rollup's minutes wholly before `before` (of the clinic when set), after its entries (decisions § G1). */
  deleteRollup(filter: PruneFilter): DeletedChunk | Promise<DeletedChunk>;
}

/** The rollup's prune parameters: the cutoff minute, and the clinic's slug when set. */
const rollupParameters = (filter: PruneFilter): string[] =>
  filter.tenant === null ? [groupCutoff(filter.before)] : [groupCutoff(filter.before), filter.tenant];

function sqlitePruneStore(sqlite: SQLite.Database): PruneStore {
  const sql = pruneStatements(sqliteParameter, 'NULL');
  const prepare = (text: string) => sqlite.prepare(text);
  const countLog = { all: prepare(sql.countLog.all).pluck(), tenant: prepare(sql.countLog.tenant).pluck() };
  const deleteLog = { all: prepare(sql.deleteLog.all), tenant: prepare(sql.deleteLog.tenant) };
  const countGroups = prepare(sql.countGroups).pluck();
  const deleteGroups = prepare(sql.deleteGroups);
  const deleteInChunk = sqliteDeletion(sqlite);
  const rollup = rollupPruneStatements(sqliteParameter);
  const deleteRollup = { all: rollup.all.map(prepare), tenant: rollup.tenant.map(prepare) };
  return {
    // The rollup's rows are no entries (no class, no weight): only the pages they gave back are counted.
    deleteRollup: (filter) =>
      deleteInChunk(() => {
        for (const statement of variantOf(deleteRollup, filter)) statement.run(...rollupParameters(filter));
        return [];
      }),
    count: (filter) => ({
      entries: variantOf(countLog, filter).get(...parametersOf('log', filter)) as number,
      groups: filter.tenant === null ? (countGroups.get(...parametersOf('groups', filter)) as number) : 0,
    }),
    deleteChunk: (part, filter, limit) =>
      deleteInChunk(() =>
        (part === 'groups' ? deleteGroups : variantOf(deleteLog, filter)).all(...parametersOf(part, filter), limit),
      ),
  };
}

function postgresPruneStore(pool: pg.Pool): PruneStore {
  const sql = pruneStatements(postgresParameter, 'NULL::integer');
  const count = async (text: string, parameters: string[]) =>
    Number((await pool.query<{ n: string }>(text, parameters)).rows[0].n);
  const rollup = rollupPruneStatements(postgresParameter);
  return {
    deleteRollup: (filter) =>
      inPostgresTransaction(pool, async (client) => {
        for (const text of variantOf(rollup, filter)) await client.query(text, rollupParameters(filter));
        return deletedChunkOf([], 0);
      }),
    async count(filter) {
      const [entries, groups] = await Promise.all([
        count(variantOf(sql.countLog, filter), parametersOf('log', filter)),
        filter.tenant === null ? count(sql.countGroups, parametersOf('groups', filter)) : 0,
      ]);
      return { entries, groups };
    },
    deleteChunk: (part, filter, limit) =>
      inPostgresTransaction(pool, async (client) => {
        const text = part === 'groups' ? sql.deleteGroups : variantOf(sql.deleteLog, filter);
        const { rows } = await client.query<DeletedRow>(text, [...parametersOf(part, filter), limit]);
        const chunk = deletedChunkOf(rows, 0);
        await addToBudget(client, chunk.delta);
        return chunk;
      }),
  };
}

export interface JournalPruner {
  /** How many entries and groups a prune with `filter` would remove now. */
  count(filter: PruneFilter): Promise<PruneCount>;
  /** Removes them in chunks of PRUNE_CHUNK_ROWS (one transaction each, a turn of the event loop between two). */
  prune(filter: PruneFilter): Promise<PruneCount>;
}

/**
 * The prune on the gateway's database. `budget`: the running gateway's, told of every chunk (its totals and pages
 * follow at once); null in a process without one (the CLI), whose removals a running gateway reads from
 * audit_budget within a second (followExternalJournalChanges; on PostgreSQL its budget re-reads every second).
 * `flush`: commits what the journal's writer holds first, so an entry already answered is pruned like the others.
 */
export function journalPruner(
  database: OpenedGatewayDatabase,
  budget: JournalBudget | null,
  flush: () => void | Promise<void> = () => undefined,
): JournalPruner {
  const store = database.kind === 'sqlite' ? sqlitePruneStore(database.sqlite) : postgresPruneStore(database.pool);
  const removeAll = async (part: Part, filter: PruneFilter): Promise<number> => {
    let removed = 0;
    for (;;) {
      const done = budget?.changeStarted();
      let chunk: DeletedChunk;
      try {
        chunk = await store.deleteChunk(part, filter, PRUNE_CHUNK_ROWS);
        budget?.apply({ ...chunk.delta, pages: chunk.pages });
      } finally {
        done?.();
      }
      removed += chunk.rows;
      if (chunk.rows < PRUNE_CHUNK_ROWS) return removed;
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return {
    async count(filter) {
      await flush();
      return store.count(filter);
    },
    async prune(filter) {
      await flush();
      const entries = await removeAll('log', filter);
      const groups = filter.tenant === null ? await removeAll('groups', filter) : 0;
      const rollup = await store.deleteRollup(filter);
      budget?.apply({ pages: rollup.pages });
      return { entries, groups };
    },
  };
}

/**
 * gateway.db changed by another process (the CLI's `journal prune`, or its console-action entries): once a second
 * the running gateway asks SQLite whether another connection committed (`PRAGMA data_version`, no read of the
 * journal) and then whether audit_budget's totals moved; when they did, its budget reads them again, and the
 * journal's pages (measured by what the other tables take, not by walking the journal), so a journal that was full
 * takes requests again without a restart.
 */
export function followExternalJournalChanges(sqlite: SQLite.Database, budget: JournalBudget): () => void {
  const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
  const stored = sqlite.prepare('SELECT kind, rows, bytes FROM audit_budget');
  let version = dataVersion.get() as number;
  const timer = setInterval(() => {
    if (!sqlite.open) return;
    try {
      const now = dataVersion.get() as number;
      if (now === version) return;
      version = now;
      const held = budget.status().totals;
      const moved = (stored.all() as Array<{ kind: JournalClass; rows: number; bytes: number }>).some(
        (row) => row.kind in held && (held[row.kind].rows !== row.rows || held[row.kind].bytes !== row.bytes),
      );
      // Its pages too: what another process removed (or added) is not in the budget's count of them.
      if (moved) void budget.reload(journalPagesByComplement(sqlite));
    } catch {
      // A closing or failing database: the journal's own commits report failures.
    }
  }, 1000);
  timer.unref();
  return () => clearInterval(timer);
}
