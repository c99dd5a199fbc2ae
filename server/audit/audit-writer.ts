import type SQLite from 'better-sqlite3';
import { CRITICAL_PATH_ON, stageDone, stageStart, stageValue } from '../../shared-node/critical-path.ts';
import type { Selectable } from 'kysely';
import { AUDIT_SUMMARY_COLUMNS, type AuditLogTable, type AuditUnattributedTable } from '../db/tables/audit-log.ts';
import { capText, entryBytes, JOURNAL_LIMITS } from './bounded.ts';
import { sqlitePagesInUse } from './sqlite-journal.ts';
import type { ClassTotals, Delta, JournalBudget, JournalClass } from './journal-budget.ts';
import { addToTotals, sqliteParameter, totalsToAdd } from './journal-sql.ts';
import { isStorageFailure } from '../db/storage-failure.ts';
import { SPEC_AUDIT_RETENTION_DAYS } from '../config.ts';
import { rollupOf, sqliteRollupWriter, type BatchRollup } from './journal-rollup.ts';
import { oncePerTurn } from '../once-per-turn.ts';

/** The appliance clock as the writer reads it (server/clock.ts ApplianceClock). */
export interface AuditClock {
  now(): number;
  offsetMs(): number;
}

/**
 * One journal entry as produced: the table's columns without the generated ones, and its class. A
 * `verified` or `unverified` entry becomes an audit_log row; an `unattributed` one is counted in its
 * group of audit_unattributed (minute, client address, status, error code), the first one kept as sample.
 */
export type AuditRecord = Omit<Selectable<AuditLogTable>, 'id' | 'source' | 'verified' | 'bytes' | 'trace_id'> & {
  source: 'api' | 'console';
  journal_class: JournalClass;
  /** The request's W3C trace id (migration 025); absent or null: none (console actions, refusals before routing). */
  trace_id?: string | null;
};

/** Called once the entry's batch is committed (`null`) or failed to commit (the error). */
export type Committed = (error: Error | null) => void;

/**
 * A write that rides on the next commit, in its transaction; `rollback` runs if that commit fails. `Q` is what
 * runs it: nothing on gateway.db (the same connection), the transaction's client on PostgreSQL.
 */
export interface Companion<Q = void> {
  run: (q: Q) => unknown;
  rollback?: (q: Q) => unknown;
}

/** The audit_log columns a batch copies from its AuditRecord as they stand. */
const RECORD_COLUMNS = [
  ...AUDIT_SUMMARY_COLUMNS,
  'body',
  'detail',
  'error_message',
  'response_body',
  'request_headers',
] as const satisfies ReadonlyArray<keyof AuditRecord>;

/** The audit_log columns a batch inserts, in order: the record's, its trace id, then the two the writer computes. */
export const COLUMNS = [...RECORD_COLUMNS, 'trace_id', 'verified', 'bytes'] as const;

interface Group {
  first: AuditRecord;
  count: number;
  lastTs: string;
}

/** One batch as both databases write it: audit_log rows with their weights, unattributed groups merged, keys' last use. */
export interface PreparedBatch {
  /** Each attributed entry's values in COLUMNS order. */
  entries: unknown[][];
  /** Per class: what the attributed entries add (groups are counted by the database: a new group only). */
  delta: Record<JournalClass, ClassTotals>;
  groups: Array<Omit<AuditUnattributedTable, 'id'>>;
  lastUse: Map<number, string>;
  /** The batch's rollup per clinic, key and minute (journal-rollup.ts), written in the same transaction. */
  rollup: BatchRollup;
}

export function prepareBatch(rows: AuditRecord[]): PreparedBatch {
  const delta: Record<JournalClass, ClassTotals> = {
    verified: { rows: 0, bytes: 0 },
    unverified: { rows: 0, bytes: 0 },
    unattributed: { rows: 0, bytes: 0 },
  };
  const entries: unknown[][] = [];
  const lastUse = new Map<number, string>();
  let groups: Map<string, Group> | null = null;
  for (const row of rows) {
    if (row.journal_class === 'unattributed') {
      groups ??= new Map();
      const key = `${row.ts.slice(0, 16)}|${row.client_ip}|${row.status}|${row.error_code ?? ''}`;
      const group = groups.get(key);
      if (group) {
        group.count += 1;
        if (row.ts > group.lastTs) group.lastTs = row.ts;
      } else groups.set(key, { first: row, count: 1, lastTs: row.ts });
      continue;
    }
    const bytes = entryBytes(row);
    const verified = row.journal_class === 'verified' ? 1 : 0;
    entries.push([...RECORD_COLUMNS.map((column) => row[column]), row.trace_id ?? null, verified, bytes]);
    const d = delta[row.journal_class];
    d.rows += 1;
    d.bytes += bytes;
    if (row.chave_id !== null && row.source === 'api' && verified === 1 && row.status < 400)
      lastUse.set(row.chave_id, row.ts);
  }
  return {
    entries,
    delta,
    groups: groups
      ? [...groups.values()].map(({ first, count, lastTs }) => {
          const sample = groupSample(first);
          return {
            minute: first.ts.slice(0, 16),
            client_ip: first.client_ip,
            status: first.status,
            error_code: first.error_code ?? '',
            count,
            first_ts: first.ts,
            last_ts: lastTs,
            sample,
            bytes:
              entryBytes({
                ...first,
                path: '',
                request_headers: null,
                body: null,
                response_body: null,
                detail: null,
                error_message: null,
                trace_id: null,
              }) + sample.length,
          };
        })
      : [],
    lastUse,
    rollup: rollupOf(rows),
  };
}

/**
 * Commits one batch and its companions in one transaction and answers what it added: gateway.db's (synchronous,
 * below) or PostgreSQL's (server/audit/postgres-journal.ts).
 */
export interface BatchCommitter<Q> {
  commit(rows: AuditRecord[], companions: Array<Companion<Q>>): Delta | Promise<Delta>;
  /** Runs a failed batch's rollback outside it. */
  rollback(rollback: (q: Q) => unknown): unknown;
  /** Writes what the committer keeps aside (PostgreSQL: keys' last use), once the last batch is committed. */
  close?(): Promise<void>;
}

/**
 * gateway.db: prepared statements on the request connection, one synchronous transaction per batch; the journal's
 * pages it took are SQLite's pages in use read around its inserts (the companions' writes are not the journal's).
 */
export function sqliteBatchCommitter(sqlite: SQLite.Database): BatchCommitter<void> {
  // Positional parameters: binding an array is cheaper than binding an object by name.
  const insert = sqlite.prepare(
    `INSERT INTO audit_log (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`,
  );
  const upsertGroup = sqlite
    .prepare(
      `INSERT INTO audit_unattributed (minute, client_ip, status, error_code, count, first_ts, last_ts, sample, bytes)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (minute, client_ip, status, error_code) DO UPDATE SET count = count + excluded.count, last_ts = max(last_ts, excluded.last_ts)
     RETURNING count`,
    )
    .pluck();
  const updateTotals = sqlite.prepare(addToTotals(sqliteParameter));
  const touchKey = sqlite.prepare(
    'UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)',
  );
  const pagesInUse = sqlitePagesInUse(sqlite);
  const writeRollup = sqliteRollupWriter(sqlite);
  const insertBatch = sqlite.transaction((rows: AuditRecord[], companions: Array<Companion<void>>): Delta => {
    for (const companion of companions) {
      try {
        companion.run();
      } catch (error) {
        // The file cannot take writes: the whole batch fails and its requests are refused.
        if (isStorageFailure(error)) throw error;
        console.error(`audit writer: a write committed with the audit batch failed: ${(error as Error).message}`);
      }
    }
    const pagesBefore = pagesInUse();
    const batch = prepareBatch(rows);
    for (const values of batch.entries) insert.run(...values);
    for (const g of batch.groups) {
      const total = upsertGroup.get(
        g.minute,
        g.client_ip,
        g.status,
        g.error_code,
        g.count,
        g.first_ts,
        g.last_ts,
        g.sample,
        g.bytes,
      ) as number;
      // A new group starts at this batch's count; an existing one only counts on (its weight is unchanged).
      if (total === g.count) {
        batch.delta.unattributed.rows += 1;
        batch.delta.unattributed.bytes += g.bytes;
      }
    }
    // Inside the pages read around the journal's writes: the rollup's pages are the journal's (decisions § G2).
    writeRollup(batch.rollup);
    for (const change of totalsToAdd(batch.delta)) updateTotals.run(...change);
    const pages = pagesInUse() - pagesBefore;
    // "Last used" rides on the audit batch instead of costing a write per request.
    for (const [id, ts] of batch.lastUse) touchKey.run(ts, id, ts);
    return { ...batch.delta, pages };
  });
  return {
    commit: (rows, companions) => insertBatch(rows, companions),
    rollback: (rollback) => rollback(),
  };
}

/**
 * Audit entries are durable before the response that they record leaves: `writeThen` calls back once
 * the entry is committed (WAL, so a SIGKILL of the process cannot lose it), or with the error when the
 * commit failed, and the caller then refuses the request instead of serving it unrecorded (fail closed).
 * Group commit keeps that cheap: entries queued during one turn of the event loop are committed together
 * in one transaction on the next (setImmediate), so under load one commit serves many requests; the
 * unattributed entries of a batch are merged per group before they reach the database.
 *
 * The commit runs on the request connection itself. A worker thread with its own connection was
 * measured to cost more CPU per request than it saved (a structured clone and a thread wake-up per
 * batch), and its commits, made by another connection, changed `PRAGMA data_version` and so
 * emptied the key cache on every batch (server/keys/keys.service.ts). flush() commits what is
 * queued at once (read-your-writes for the console and tests); close() flushes.
 */
export class AuditWriter<Q = void> {
  private queue: AuditRecord[] = [];
  /** Callbacks of the queued entries, in queue order (undefined: nobody waits). */
  private callbacks: Array<Committed | undefined> = [];
  /** Other writes that ride on the next commit (server/idempotency: a write's answer). */
  private companions: Array<Companion<Q>> = [];
  /** Rollbacks that failed with their commit (the database took no write at all): run once it takes writes again. */
  private deferredRollbacks: Array<(q: Q) => unknown> = [];
  private readonly flushNextTurn = oncePerTurn(() => void this.flush());
  /** An asynchronous committer's batch being committed: the next batch waits for it (one at a time, group commit). */
  private inFlight: Promise<void> | null = null;
  private readonly committer: BatchCommitter<Q>;
  private closed = false;
  private readonly clock: AuditClock | undefined;
  readonly budget: JournalBudget;

  /** `database`: gateway.db's connection (its committer is made here), or any BatchCommitter. */
  /** Days the retention purge keeps: the spec's 30, or AUDIT_RETENTION_DAYS in development mode (config.audit.retentionDays). */
  readonly retentionDays: number;

  constructor(
    database: SQLite.Database | BatchCommitter<Q>,
    options: { clock?: AuditClock; budget: JournalBudget; retentionDays?: number },
  ) {
    this.retentionDays = options.retentionDays ?? SPEC_AUDIT_RETENTION_DAYS;
    this.clock = options.clock;
    this.budget = options.budget;
    this.budget.onRecovered(() => this.runDeferredRollbacks());
    this.committer =
      'prepare' in database ? (sqliteBatchCommitter(database) as unknown as BatchCommitter<Q>) : database;
  }

  /** Resolves once the entry is committed, rejects when its commit failed: await it before the response is sent. */
  writeDurable(record: AuditRecord): Promise<void> {
    return new Promise((resolve, reject) => this.writeThen(record, (error) => (error ? reject(error) : resolve())));
  }

  /** writeDurable without a promise (the audit hook's callback style): `committed` runs after the commit. */
  writeThen(record: AuditRecord, committed: Committed): void {
    this.queue.push(this.onApplianceClock(record));
    if (CRITICAL_PATH_ON) {
      const queued = stageStart();
      this.callbacks.push((error) => {
        stageDone('gateway.journal (answer and entry queued to committed)', queued);
        committed(error);
      });
    } else this.callbacks.push(committed);
    this.kick();
  }

  /**
   * Runs `statement` (a write on the same connection) inside the next audit commit, before that
   * commit's entries: an entry queued after it is never committed without it. One commit then serves
   * both, which spares a write request a commit of its own. `rollback` runs if that commit fails.
   */
  alongNextCommit(statement: (q: Q) => unknown, rollback?: (q: Q) => unknown): void {
    this.companions.push({ run: statement, rollback });
    this.kick();
  }

  /**
   * Commits everything queued so far (read-your-writes for the console and tests): before returning on
   * gateway.db, by the promise's end on PostgreSQL. In transactions of at most budget.batchEntries entries
   * and budget.batchBytes of weight each, so that one commit's pages stay within half the WAL's share
   * (server/audit/journal-budget.ts). The companions ride on the first one; once one fails, the rest are
   * not tried and fail with it (no entry queued after a companion commits without it).
   */
  flush(): void | Promise<void> {
    if (this.inFlight) return this.inFlight.then(() => this.flush());
    const rows = this.queue;
    const callbacks = this.callbacks;
    const companions = this.companions;
    this.queue = [];
    this.callbacks = [];
    this.companions = [];
    if (rows.length === 0 && companions.length === 0) return;
    const chunks: Array<[number, number]> = [];
    let start = 0;
    do {
      let end = start;
      let weight = 0;
      while (end < rows.length && end - start < this.budget.batchEntries) {
        weight += entryBytes(rows[end]);
        if (end > start && weight > this.budget.batchBytes) break;
        end += 1;
      }
      chunks.push([start, end]);
      start = end;
    } while (start < rows.length);
    const run = (index: number, failure: Error | null): void | Promise<void> => {
      for (let i = index; i < chunks.length; i++) {
        const [from, to] = chunks[i];
        if (failure !== null) {
          release(callbacks.slice(from, to), failure);
          continue;
        }
        const outcome = this.commit(rows.slice(from, to), i === 0 ? companions : []);
        if (outcome instanceof Promise) {
          return outcome.then((error) => {
            release(callbacks.slice(from, to), error);
            return run(i + 1, error);
          });
        }
        failure = outcome;
        release(callbacks.slice(from, to), failure);
      }
    };
    const done = run(0, null);
    if (!(done instanceof Promise)) return;
    this.inFlight = done.finally(() => {
      this.inFlight = null;
      // What queued meanwhile is the next batch.
      if (this.queue.length > 0 || this.companions.length > 0) this.kick();
    });
    return this.inFlight;
  }

  /** One transaction: the companions, then the entries; returns its error (the journal then refuses until it recovers). */
  private commit(rows: AuditRecord[], companions: Array<Companion<Q>>): Error | null | Promise<Error | null> {
    let delta: Delta | Promise<Delta>;
    try {
      const started = stageStart();
      delta = this.committer.commit(rows, companions);
      stageDone('gateway.journal_commit (one batch, synchronous part)', started);
      if (CRITICAL_PATH_ON) stageValue('gateway.journal_batch_entries', rows.length);
    } catch (error) {
      return this.failed(rows.length, companions, error as Error);
    }
    if (delta instanceof Promise) {
      const done = this.budget.changeStarted();
      return delta.then(
        (d) => {
          this.budget.apply(d);
          done();
          return null;
        },
        (error: Error) => {
          done();
          return this.failed(rows.length, companions, error);
        },
      );
    }
    this.budget.apply(delta);
    return null;
  }

  private failed(entries: number, companions: Array<Companion<Q>>, failure: Error): Error {
    console.error(`audit writer: ${entries} entries not written, their requests refused: ${failure.message}`);
    this.budget.commitFailed(failure);
    for (const companion of companions) {
      if (!companion.rollback) continue;
      const rollback = companion.rollback;
      try {
        const done = this.committer.rollback(rollback);
        if (done instanceof Promise) done.catch(() => this.deferredRollbacks.push(rollback));
      } catch {
        this.deferredRollbacks.push(rollback);
      }
    }
    return failure;
  }

  /** Rollbacks a failed commit could not make; if the database still takes none, the store's leases free the keys. */
  private runDeferredRollbacks(): void {
    const rollbacks = this.deferredRollbacks;
    this.deferredRollbacks = [];
    for (const rollback of rollbacks) {
      try {
        const done = this.committer.rollback(rollback);
        if (done instanceof Promise)
          done.catch((error: Error) => console.error(`audit writer: a deferred rollback failed: ${error.message}`));
      } catch (error) {
        console.error(`audit writer: a deferred rollback failed: ${(error as Error).message}`);
      }
    }
  }

  /** One commit per turn of the event loop for everything queued during it (group commit). */
  private kick(): void {
    if (this.closed) {
      void this.flush();
      return;
    }
    if (this.inFlight) return;
    this.flushNextTurn();
  }

  /**
   * Producers stamp entries with the real clock (the request's start, the console action); the log keeps
   * appliance time, so its timestamps, its retention and the console's period filters agree with the
   * clock an operator moved in development mode (server/clock.ts). Offset 0: the entry as it came.
   */
  private onApplianceClock(record: AuditRecord): AuditRecord {
    const offset = this.clock?.offsetMs() ?? 0;
    return offset === 0 ? record : { ...record, ts: new Date(Date.parse(record.ts) + offset).toISOString() };
  }

  pending(): number {
    return this.queue.length;
  }

  /** Deletes entries older than the retention, in chunks so the database is never locked for long. */
  purgeOlderThan(cutoffIso: string): number | Promise<number> {
    return this.budget.purgeOlderThan(cutoffIso);
  }

  /** Retention counts on the appliance clock: moved 31 days ahead, today's entries are past it. */
  purgeExpired(now = this.clock?.now() ?? Date.now()): number | Promise<number> {
    return this.purgeOlderThan(new Date(now - this.retentionDays * 86_400_000).toISOString());
  }

  close(): void | Promise<void> {
    this.closed = true;
    const flushed = this.flush();
    const { committer } = this;
    if (!committer.close) return flushed;
    return Promise.resolve(flushed).then(() => committer.close!());
  }
}

/**
 * Calls back the entries of a transaction in a microtask of their own: the responses they release are not
 * sent from inside the commit's stack (a profile then shows the commit and the sending apart).
 */
function release(callbacks: Array<Committed | undefined>, failure: Error | null): void {
  if (callbacks.length === 0) return;
  queueMicrotask(function releaseCommitted() {
    for (const committed of callbacks) committed?.(failure);
  });
}

/** What an unattributed group keeps of its first request: enough to recognise it, bounded tighter than an entry. */
function groupSample(r: AuditRecord): string {
  return JSON.stringify({
    request_id: r.request_id,
    ts: r.ts,
    source: r.source,
    method: r.method,
    path: capText(r.path, JOURNAL_LIMITS.samplePath),
    error_message: r.error_message,
    detail: r.detail,
    body: r.body,
    request_headers: r.request_headers,
  });
}
