import type pg from 'pg';
import { COLUMNS, prepareBatch, type AuditRecord, type BatchCommitter, type Companion } from './audit-writer.ts';
import {
  deletedChunkOf,
  JOURNAL_CLASSES,
  type ClassTotals,
  type JournalClass,
  type JournalStore,
} from './journal-budget.ts';
import {
  addToTotals,
  type DeletedRow,
  journalDeletions,
  postgresParameter,
  READ_TOTALS,
  type TotalsRow,
  totalsToAdd,
} from './journal-sql.ts';
import type { Queryable } from '../idempotency/postgres-idempotency.store.ts';
import { inPostgresTransaction, prepared } from '../db/postgres.ts';
import { MINUTE_COLUMNS, rollupStatements, sweepCutoff, type BatchRollup } from './journal-rollup.ts';

const ROLLUP = rollupStatements(postgresParameter);

/**
 * The batch's rollup as data-modifying WITH clauses (numbered from parameter `first + 1`), so the fast path stays
 * one statement: one multi-row upsert for the minutes, one for the codes (distinct keys: aggregated in memory).
 */
function rollupClauses(rollup: BatchRollup, first: number): { clauses: string[]; values: unknown[] } {
  const clauses: string[] = [];
  const values: unknown[] = [];
  const p = () => `$${first + values.length}`;
  if (rollup.minutes.length > 0) {
    const arrays = MINUTE_COLUMNS.map((_, i) => {
      values.push(rollup.minutes.map((row) => row[i]));
      return `${p()}::${i === 2 ? 'text' : 'integer'}[]`;
    });
    clauses.push(`rolled_minutes AS (INSERT INTO journal_minutes AS m (${MINUTE_COLUMNS.join(', ')})
      SELECT * FROM unnest(${arrays.join(', ')})
      ON CONFLICT (tenant_id, chave_id, minute) DO UPDATE SET ${MINUTE_COLUMNS.slice(3)
        .map((c) => `${c} = m.${c} + excluded.${c}`)
        .join(', ')})`);
  }
  if (rollup.codes.length > 0) {
    const arrays = [0, 1, 2, 3, 4].map((i) => {
      values.push(rollup.codes.map((row) => row[i]));
      return `${p()}::${i === 2 || i === 3 ? 'text' : 'integer'}[]`;
    });
    clauses.push(`rolled_codes AS (INSERT INTO journal_minute_codes AS c (tenant_id, chave_id, minute, code, count)
      SELECT * FROM unnest(${arrays.join(', ')})
      ON CONFLICT (tenant_id, chave_id, minute, code) DO UPDATE SET count = c.count + excluded.count)`);
  }
  return { clauses, values };
}

/** audit_log's integer columns on PostgreSQL (the baseline migration); the others are text. */
const INTEGER_COLUMNS: ReadonlySet<string> = new Set([
  'tenant_id',
  'chave_id',
  'operator_id',
  'status',
  'duracao_ms',
  'verified',
  'bytes',
]);

/**
 * A batch's entries as one array a column (`unnest`), numbered from parameter `first + 1`: the statement's text is
 * the same whatever the batch's size, so it is prepared once a connection (a named statement), not parsed and
 * planned again for every batch (that was most of a ping's PostgreSQL CPU: `BENCH_ONLY=journal-batch`).
 */
function insertEntries(entries: readonly unknown[][], first: number): { text: string; values: unknown[] } {
  const values = COLUMNS.map((_, i) => entries.map((entry) => entry[i]));
  const arrays = COLUMNS.map((column, i) => `$${first + i + 1}::${INTEGER_COLUMNS.has(column) ? 'integer' : 'text'}[]`);
  return { text: `INSERT INTO audit_log (${COLUMNS.join(', ')}) SELECT * FROM unnest(${arrays.join(', ')})`, values };
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Adds what a batch wrote or a chunk deleted to the shared running totals, in the caller's transaction. */
export async function addToBudget(client: pg.PoolClient, delta: Record<JournalClass, ClassTotals>): Promise<void> {
  for (const change of totalsToAdd(delta)) await client.query(prepared(ADD_TO_TOTALS, change));
}
const ADD_TO_TOTALS = addToTotals(postgresParameter);

/** Tries of one batch that PostgreSQL rolled back for a deadlock or a serialization failure. */
const COMMIT_ATTEMPTS = 4;
const isTransactionConflict = (error: unknown) => {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
};

/** Entries a statement inserts at most (its arrays' length): a batch larger than this goes in chunks. */
const ROWS_PER_INSERT = 1000;

/**
 * The journal on the cluster's PostgreSQL: every instance commits its own batches (group commit per instance),
 * each batch with its companions (a write's idempotent answer) in one transaction on one pooled connection, so
 * an entry is committed before its response leaves, as on gateway.db. The running totals in audit_budget are
 * shared: each batch adds to them in its transaction, and each instance's budget reads them again every second.
 * A batch of attributed entries alone (reads: no companion, no unattributed group) is one statement, so one
 * round trip: the inserts and the totals in a single atomic command. Keys' "last used" is not part of any batch:
 * each instance writes it at most once a second (in key order), off the requests' commits and their locks.
 */
export function postgresBatchCommitter(pool: pg.Pool): BatchCommitter<Queryable> & { close(): Promise<void> } {
  const lastUse = new Map<number, string>();
  const touch = async () => {
    if (lastUse.size === 0) return;
    const entries = [...lastUse].sort(([a], [b]) => a - b);
    lastUse.clear();
    await pool
      .query(
        `UPDATE api_keys k SET last_used_at = v.ts FROM unnest($1::integer[], $2::text[]) AS v(id, ts)
         WHERE k.id = v.id AND (k.last_used_at IS NULL OR k.last_used_at < v.ts)`,
        [entries.map(([id]) => id), entries.map(([, ts]) => ts)],
      )
      .catch(() => undefined);
  };
  // The rollup's sweep: once per new minute a batch writes, off the batches (old rows are no committed entry's).
  let swept = '';
  const sweep = (rollup: BatchRollup) => {
    if (rollup.newest === null || rollup.newest <= swept) return;
    swept = rollup.newest;
    const cutoff = sweepCutoff(rollup.newest);
    void pool
      .query(ROLLUP.sweepMinutes, [cutoff])
      .then(() => pool.query(ROLLUP.sweepCodes, [cutoff]))
      .catch(() => undefined);
  };
  const timer = setInterval(() => void touch(), 1000);
  timer.unref();
  const commitOnce = async (rows: AuditRecord[], companions: Array<Companion<Queryable>>) => {
    const batch = prepareBatch(rows);
    for (const [id, ts] of batch.lastUse) if ((lastUse.get(id) ?? '') < ts) lastUse.set(id, ts);
    if (companions.length === 0 && batch.groups.length === 0 && batch.entries.length <= ROWS_PER_INSERT) {
      const insert = insertEntries(batch.entries, 0);
      const kinds = JOURNAL_CLASSES.filter((kind) => batch.delta[kind].rows !== 0);
      if (kinds.length === 0) return batch.delta;
      const rolled = rollupClauses(batch.rollup, insert.values.length);
      const first = insert.values.length + rolled.values.length;
      // A data-modifying WITH runs to completion whether or not the main statement reads it: one atomic command
      // (the entries, their rollup and the totals).
      await pool.query(
        prepared(
          `WITH ${[`added AS (${insert.text})`, ...rolled.clauses].join(', ')}
           UPDATE audit_budget b SET rows = b.rows + d.rows, bytes = b.bytes + d.bytes
           FROM unnest($${first + 1}::text[], $${first + 2}::bigint[], $${first + 3}::bigint[]) AS d(kind, rows, bytes)
           WHERE b.kind = d.kind`,
          [
            ...insert.values,
            ...rolled.values,
            kinds,
            kinds.map((k) => batch.delta[k].rows),
            kinds.map((k) => batch.delta[k].bytes),
          ],
        ),
      );
      sweep(batch.rollup);
      return batch.delta;
    }
    return inPostgresTransaction(pool, async (client) => {
      for (const companion of companions) await companion.run(client);
      for (let i = 0; i < batch.entries.length; i += ROWS_PER_INSERT) {
        const insert = insertEntries(batch.entries.slice(i, i + ROWS_PER_INSERT), 0);
        await client.query(prepared(insert.text, insert.values));
      }
      // Groups in key order, so two instances' batches never wait on each other's rows in a cycle.
      const groups = [...batch.groups].sort(
        (a, b) =>
          compare(a.minute, b.minute) ||
          compare(a.client_ip, b.client_ip) ||
          a.status - b.status ||
          compare(a.error_code, b.error_code),
      );
      for (const g of groups) {
        const { rows: counted } = await client.query<{ count: number }>(
          `INSERT INTO audit_unattributed AS u (minute, client_ip, status, error_code, count, first_ts, last_ts, sample, bytes)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
             ON CONFLICT (minute, client_ip, status, error_code) DO UPDATE SET count = u.count + excluded.count, last_ts = greatest(u.last_ts, excluded.last_ts)
             RETURNING count`,
          [g.minute, g.client_ip, g.status, g.error_code, g.count, g.first_ts, g.last_ts, g.sample, g.bytes],
        );
        // A new group starts at this batch's count; an existing one only counts on (its weight is unchanged).
        if (counted[0].count === g.count) {
          batch.delta.unattributed.rows += 1;
          batch.delta.unattributed.bytes += g.bytes;
        }
      }
      // The totals, then the rollup: the order in which the one-statement batch above takes the same rows' locks
      // (its main UPDATE runs before the WITH clauses nothing reads), so the two kinds of batch do not wait on
      // each other in a cycle (CI saw a deadlock, 40P01, between them).
      await addToBudget(client, batch.delta);
      const rolled = rollupClauses(batch.rollup, 0);
      if (rolled.clauses.length > 0)
        await client.query(prepared(`WITH ${rolled.clauses.join(', ')} SELECT 1`, rolled.values));
      return batch.delta;
    }).then((delta) => {
      sweep(batch.rollup);
      return delta;
    });
  };
  return {
    /**
     * One batch in one transaction. A deadlock or serialization failure (40P01, 40001: PostgreSQL rolled the whole
     * transaction back, nothing of it committed) is tried again, up to COMMIT_ATTEMPTS times, before the journal
     * reports a failed commit and refuses requests: two instances' batches may still meet in an order PostgreSQL does
     * not promise (the WITH clauses of one statement run in no defined order).
     */
    async commit(rows, companions: Array<Companion<Queryable>>) {
      for (let attempt = 1; ; attempt++) {
        try {
          return await commitOnce(rows, companions);
        } catch (error) {
          if (attempt >= COMMIT_ATTEMPTS || !isTransactionConflict(error)) throw error;
          await new Promise((resolve) => setTimeout(resolve, attempt * (1 + Math.random() * 4)));
        }
      }
    },
    rollback: (rollback) => rollback(pool),
    async close() {
      clearInterval(timer);
      await touch();
    },
  };
}

const DELETIONS = journalDeletions(postgresParameter, 'NULL::integer');

/** PostgreSQL's block size (the default build's): what the journal's pages are counted in. */
const PAGE_SIZE = 8192;

/**
 * The budget's deletions and probe on PostgreSQL. Several instances may shed at once: each chunk locks the rows
 * it deletes (a row another instance deleted first is simply not returned), and the totals move by what each
 * deleted. The budget counts the entries' weight (rows and bytes per class, shared in audit_budget); the files'
 * size is the server's to manage (the console shows the database's size), its write-ahead log too. With the disk
 * low (DATABASE_DISK_DIR) the journal refuses rather than count on space freed inside the relations.
 */
export function postgresJournalStore(pool: pg.Pool, isOpen: () => boolean): JournalStore {
  return {
    shared: true,
    pageSize: PAGE_SIZE,
    walShareBytes: 0,
    shmBytes: 0,
    batchEntries: 1000,
    batchBytes: 4 * 1024 * 1024,
    // Not the relations' size: PostgreSQL keeps deleted tuples' space in its files for reuse (vacuum), so a size
    // that only grows would hold the journal at its line for good. AUDIT_MAX_BYTES bounds the entries' weight here.
    journalPages: () => 0,
    async readTotals() {
      const { rows } = await pool.query<TotalsRow>(READ_TOTALS);
      return rows;
    },
    async probe(bytes) {
      try {
        await pool.query("INSERT INTO audit_probe (v) SELECT decode(repeat('00', $1), 'hex')", [bytes]);
        await pool.query('DELETE FROM audit_probe');
        return true;
      } catch {
        await pool.query('DELETE FROM audit_probe').catch(() => undefined);
        return false;
      }
    },
    reusableBytes: () => 0,
    deleteChunk: (what, parameter, limit) =>
      inPostgresTransaction(pool, async (client) => {
        const { rows } = await client.query<DeletedRow>(
          DELETIONS[what],
          parameter === null ? [limit] : [parameter, limit],
        );
        // Deleted tuples free no file space until vacuum: the relations' size, read every second, says what is taken.
        const chunk = deletedChunkOf(rows, 0);
        await addToBudget(client, chunk.delta);
        return chunk;
      }),
    isOpen,
  };
}
