import type SQLite from 'better-sqlite3';
import type { Selectable } from 'kysely';
import type { AuditLogTable } from '../db/tables/audit-log.ts';
import { capText, entryBytes, JOURNAL_LIMITS } from './bounded.ts';
import type { ClassTotals, Delta, JournalBudget, JournalClass } from './journal-budget.ts';
import { isStorageFailure } from '../db/storage-failure.ts';

export const AUDIT_RETENTION_DAYS = 30;

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
export type AuditRecord = Omit<Selectable<AuditLogTable>, 'id' | 'source' | 'verified' | 'bytes'> & {
  source: 'api' | 'console';
  journal_class: JournalClass;
};

/** Called once the entry's batch is committed (`null`) or failed to commit (the error). */
export type Committed = (error: Error | null) => void;

/** A write of the same connection that rides on the next commit; `rollback` runs if that commit fails. */
interface Companion {
  run: () => void;
  rollback?: () => void;
}

const COLUMNS = [
  'request_id', 'ts', 'source', 'tenant_id', 'tenant_slug', 'chave_id', 'operator_id', 'method', 'path',
  'status', 'error_code', 'duracao_ms', 'client_ip', 'body', 'detail', 'error_message', 'response_body', 'request_headers',
  'verified', 'bytes',
] as const;


interface Group {
  first: AuditRecord;
  count: number;
  lastTs: string;
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
export class AuditWriter {
  private queue: AuditRecord[] = [];
  /** Callbacks of the queued entries, in queue order (undefined: nobody waits). */
  private callbacks: Array<Committed | undefined> = [];
  /** Other writes of the same connection that ride on the next commit (server/idempotency: a write's answer). */
  private companions: Companion[] = [];
  /** Rollbacks that failed with their commit (the file took no write at all): run once it takes writes again. */
  private deferredRollbacks: Array<() => void> = [];
  private scheduled = false;
  private readonly insertBatch: SQLite.Transaction<(rows: AuditRecord[], companions: Companion[]) => Delta>;
  private closed = false;
  private readonly clock: AuditClock | undefined;
  readonly budget: JournalBudget;

  constructor(sqlite: SQLite.Database, options: { clock?: AuditClock; budget: JournalBudget }) {
    this.clock = options.clock;
    this.budget = options.budget;
    this.budget.onRecovered(() => this.runDeferredRollbacks());
    // Positional parameters: binding an array is cheaper than binding an object by name.
    const insert = sqlite.prepare(`INSERT INTO audit_log (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`);
    const upsertGroup = sqlite.prepare(
      `INSERT INTO audit_unattributed (minute, client_ip, status, error_code, count, first_ts, last_ts, sample, bytes)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (minute, client_ip, status, error_code) DO UPDATE SET count = count + excluded.count, last_ts = max(last_ts, excluded.last_ts)
       RETURNING count`,
    ).pluck();
    const updateTotals = sqlite.prepare('UPDATE audit_budget SET rows = rows + ?, bytes = bytes + ? WHERE kind = ?');
    const touchKey = sqlite.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)');
    const budget = this.budget;
    this.insertBatch = sqlite.transaction((rows: AuditRecord[], companions: Companion[]): Delta => {
      for (const companion of companions) {
        try {
          companion.run();
        } catch (error) {
          // The file cannot take writes: the whole batch fails and its requests are refused.
          if (isStorageFailure(error)) throw error;
          console.error(`audit writer: a write committed with the audit batch failed: ${(error as Error).message}`);
        }
      }
      // The journal's pages: what its inserts took, measured around them (the companions' writes are not the journal's).
      const pagesBefore = budget.pagesInUse();
      const delta: Record<JournalClass, ClassTotals> = {
        verified: { rows: 0, bytes: 0 },
        unverified: { rows: 0, bytes: 0 },
        unattributed: { rows: 0, bytes: 0 },
      };
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
        insert.run(
          row.request_id, row.ts, row.source, row.tenant_id, row.tenant_slug, row.chave_id, row.operator_id, row.method, row.path,
          row.status, row.error_code, row.duracao_ms, row.client_ip, row.body, row.detail, row.error_message, row.response_body,
          row.request_headers, verified, bytes,
        );
        const d = delta[row.journal_class];
        d.rows += 1;
        d.bytes += bytes;
        if (row.chave_id !== null && row.source === 'api' && verified === 1 && row.status < 400) lastUse.set(row.chave_id, row.ts);
      }
      if (groups) {
        for (const { first, count, lastTs } of groups.values()) {
          const sample = groupSample(first);
          const bytes = entryBytes({ ...first, path: '', request_headers: null, body: null, response_body: null, detail: null, error_message: null }) + sample.length;
          const total = upsertGroup.get(
            first.ts.slice(0, 16), first.client_ip, first.status, first.error_code ?? '', count, first.ts, lastTs, sample, bytes,
          ) as number;
          // A new group starts at this batch's count; an existing one only counts on (its weight is unchanged).
          if (total === count) {
            delta.unattributed.rows += 1;
            delta.unattributed.bytes += bytes;
          }
        }
      }
      for (const kind of ['verified', 'unverified', 'unattributed'] as const) {
        if (delta[kind].rows !== 0) updateTotals.run(delta[kind].rows, delta[kind].bytes, kind);
      }
      const pages = budget.pagesInUse() - pagesBefore;
      // "Last used" rides on the audit batch instead of costing a write per request.
      for (const [id, ts] of lastUse) touchKey.run(ts, id, ts);
      return { ...delta, pages };
    });
  }

  /** Resolves once the entry is committed, rejects when its commit failed: await it before the response is sent. */
  writeDurable(record: AuditRecord): Promise<void> {
    return new Promise((resolve, reject) => this.writeThen(record, (error) => (error ? reject(error) : resolve())));
  }

  /** writeDurable without a promise (the audit hook's callback style): `committed` runs after the commit. */
  writeThen(record: AuditRecord, committed: Committed): void {
    this.queue.push(this.onApplianceClock(record));
    this.callbacks.push(committed);
    this.kick();
  }

  /**
   * Runs `statement` (a write on the same connection) inside the next audit commit, before that
   * commit's entries: an entry queued after it is never committed without it. One commit then serves
   * both, which spares a write request a commit of its own. `rollback` runs if that commit fails.
   */
  alongNextCommit(statement: () => void, rollback?: () => void): void {
    this.companions.push({ run: statement, rollback });
    this.kick();
  }

  /**
   * Commits everything queued so far before returning (read-your-writes for the console and tests), in
   * transactions of at most budget.batchEntries entries and budget.batchBytes of weight each, so that one
   * commit's pages stay within half the WAL's share (server/audit/journal-budget.ts). The companions ride
   * on the first one; once one fails, the rest are not tried and fail with it (no entry queued after a
   * companion commits without it).
   */
  flush(): void {
    const rows = this.queue;
    const callbacks = this.callbacks;
    let companions = this.companions;
    this.queue = [];
    this.callbacks = [];
    this.companions = [];
    if (rows.length === 0 && companions.length === 0) return;
    let start = 0;
    let failure: Error | null = null;
    do {
      let end = start;
      let weight = 0;
      while (end < rows.length && end - start < this.budget.batchEntries) {
        weight += entryBytes(rows[end]);
        if (end > start && weight > this.budget.batchBytes) break;
        end += 1;
      }
      if (failure === null) failure = this.commit(rows.slice(start, end), companions);
      release(callbacks.slice(start, end), failure);
      companions = [];
      start = end;
    } while (start < rows.length);
  }

  /** One transaction: the companions, then the entries; returns its error (the journal then refuses until it recovers). */
  private commit(rows: AuditRecord[], companions: Companion[]): Error | null {
    try {
      this.budget.apply(this.insertBatch(rows, companions));
      return null;
    } catch (error) {
      const failure = error as Error;
      console.error(`audit writer: ${rows.length} entries not written, their requests refused: ${failure.message}`);
      this.budget.commitFailed(failure);
      for (const companion of companions) {
        if (!companion.rollback) continue;
        try {
          companion.rollback();
        } catch {
          this.deferredRollbacks.push(companion.rollback);
        }
      }
      return failure;
    }
  }

  /** Rollbacks a failed commit could not make; if the file still takes none, the store's leases free the keys. */
  private runDeferredRollbacks(): void {
    const rollbacks = this.deferredRollbacks;
    this.deferredRollbacks = [];
    for (const rollback of rollbacks) {
      try {
        rollback();
      } catch (error) {
        console.error(`audit writer: a deferred rollback failed: ${(error as Error).message}`);
      }
    }
  }

  /** One commit per turn of the event loop for everything queued during it (group commit). */
  private kick(): void {
    if (this.closed) return this.flush();
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
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
  purgeOlderThan(cutoffIso: string): number {
    return this.budget.purgeOlderThan(cutoffIso);
  }

  /** Retention counts on the appliance clock: moved 31 days ahead, today's entries are past it. */
  purgeExpired(now = this.clock?.now() ?? Date.now()): number {
    return this.purgeOlderThan(new Date(now - AUDIT_RETENTION_DAYS * 86_400_000).toISOString());
  }

  close(): void {
    this.closed = true;
    this.flush();
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
