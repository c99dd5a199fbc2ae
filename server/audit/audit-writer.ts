import type SQLite from 'better-sqlite3';
import { Worker } from 'node:worker_threads';
import type { Selectable } from 'kysely';
import type { AuditLogTable } from '../db/tables/audit-log.ts';

export const AUDIT_RETENTION_DAYS = 30;

/** The appliance clock as the writer reads it (server/clock.ts ApplianceClock). */
export interface AuditClock {
  now(): number;
  offsetMs(): number;
}

/** One audit row as written: the table's columns without the generated id. */
export type AuditRecord = Omit<Selectable<AuditLogTable>, 'id' | 'source'> & { source: 'api' | 'console' };

const COLUMNS = [
  'request_id', 'ts', 'source', 'tenant_id', 'tenant_slug', 'chave_id', 'operator_id', 'method', 'path',
  'status', 'error_code', 'duracao_ms', 'client_ip', 'body', 'detail', 'error_message', 'response_body', 'request_headers',
] as const;

/**
 * Audit entries are durable before the response that they record leaves: `writeDurable` resolves
 * once the entry is committed (WAL, so a SIGKILL of the process cannot lose it). Group commit keeps
 * that cheap: entries queued while a batch is being committed go together in the next transaction,
 * so under load one commit serves many requests. Commits run on a worker thread with its own
 * connection when the database file is given (the gateway), inline otherwise. flush() returns once
 * everything queued is committed (read-your-writes for the console and tests); close() flushes.
 */
export class AuditWriter {
  private queue: AuditRecord[] = [];
  /** Resolvers of the queued entries' writeDurable promises, in queue order. */
  private queuedResolvers: Array<() => void> = [];
  /** Resolvers of batches handed to the worker, by batch sequence number. */
  private readonly committing = new Map<number, Array<() => void>>();
  private worker: Worker | null = null;
  private readonly done = new Int32Array(new SharedArrayBuffer(4));
  private sequence = 0;
  private committed = 0;
  private scheduled = false;
  private readonly insertBatch: SQLite.Transaction<(rows: AuditRecord[]) => void>;
  private readonly purgeStmt: SQLite.Statement;
  private readonly touchKey: SQLite.Statement;
  private closed = false;
  private readonly clock: AuditClock | undefined;

  constructor(
    sqlite: SQLite.Database,
    options: { databaseFile?: string; clock?: AuditClock } = {},
  ) {
    this.clock = options.clock;
    if (options.databaseFile) {
      this.worker = new Worker(new URL('./audit-worker.mjs', import.meta.url), {
        workerData: { file: options.databaseFile, columns: COLUMNS, signal: this.done.buffer },
      });
      this.worker.on('message', (message: { committed?: number; error?: string; lost?: number }) => {
        if (message.error) console.error(`audit writer: ${message.lost} entries not written: ${message.error}`);
        if (message.committed !== undefined) this.settle(message.committed);
      });
      // A dead worker must not take the audit log with it: fall back to writing inline.
      this.worker.on('error', (error) => {
        console.error(`audit writer worker failed, writing inline from now on: ${error.message}`);
        this.worker = null;
        this.settle(this.sequence);
      });
      this.worker.unref();
    }
    const insert = sqlite.prepare(
      `INSERT INTO audit_log (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((c) => `@${c}`).join(', ')})`,
    );
    this.touchKey = sqlite.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)');
    this.insertBatch = sqlite.transaction((rows: AuditRecord[]) => {
      const lastUse = new Map<number, string>();
      for (const row of rows) {
        insert.run(row);
        if (row.chave_id !== null && row.source === 'api' && row.status < 400) lastUse.set(row.chave_id, row.ts);
      }
      // "Last used" rides on the audit batch instead of costing a write per request.
      for (const [id, ts] of lastUse) this.touchKey.run(ts, id, ts);
    });
    this.purgeStmt = sqlite.prepare('DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE ts < ? LIMIT 10000)');
  }

  /** Resolves once the entry is committed: await it before the response is sent. */
  writeDurable(record: AuditRecord): Promise<void> {
    return new Promise((resolve) => {
      this.queue.push(this.onApplianceClock(record));
      this.queuedResolvers.push(resolve);
      this.kick();
    });
  }

  /** Same queue, nobody waits (console actions, whose response has already left). */
  write(record: AuditRecord): void {
    this.queue.push(this.onApplianceClock(record));
    this.kick();
  }

  /** Commits everything queued so far before returning (read-your-writes for the console and tests). */
  flush(): void {
    const last = this.sendQueued();
    if (!this.worker || last === 0) return;
    // The worker handles messages in order: its ack of this one means every earlier batch is committed.
    const deadline = Date.now() + 10_000;
    while (Atomics.load(this.done, 0) < last && Date.now() < deadline) {
      Atomics.wait(this.done, 0, Atomics.load(this.done, 0), 100);
    }
    this.settle(Atomics.load(this.done, 0));
  }

  /** One batch in flight at a time; what arrives meanwhile waits for the next commit (group commit). */
  private kick(): void {
    if (this.closed) return this.flush();
    if (this.scheduled || this.committed < this.sequence) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.sendQueued();
    });
  }

  /** Hands the queue to the worker (or commits it inline); returns the batch's sequence number, 0 if nothing was sent. */
  private sendQueued(): number {
    const rows = this.queue;
    const resolvers = this.queuedResolvers;
    this.queue = [];
    this.queuedResolvers = [];
    if (rows.length === 0) return 0;
    if (!this.worker) {
      try {
        this.insertBatch(rows);
      } catch (error) {
        console.error(`audit writer: ${rows.length} entries not written: ${(error as Error).message}`);
      }
      for (const resolve of resolvers) resolve();
      return 0;
    }
    const seq = ++this.sequence;
    this.committing.set(seq, resolvers);
    this.worker.postMessage({ rows: rows.map((row) => COLUMNS.map((c) => row[c])), ack: seq });
    return seq;
  }

  /** Batches up to `upTo` are committed: release their requests, then send what queued meanwhile. */
  private settle(upTo: number): void {
    if (upTo > this.committed) this.committed = upTo;
    for (const [seq, resolvers] of this.committing) {
      if (seq > this.committed) continue;
      this.committing.delete(seq);
      for (const resolve of resolvers) resolve();
    }
    if (this.queue.length > 0 && this.committed >= this.sequence) this.kick();
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
    let total = 0;
    for (;;) {
      const { changes } = this.purgeStmt.run(cutoffIso);
      total += changes;
      if (changes === 0) return total;
    }
  }

  /** Retention counts on the appliance clock: moved 31 days ahead, today's entries are past it. */
  purgeExpired(now = this.clock?.now() ?? Date.now()): number {
    return this.purgeOlderThan(new Date(now - AUDIT_RETENTION_DAYS * 86_400_000).toISOString());
  }

  close(): void {
    this.closed = true;
    this.flush();
    void this.worker?.terminate();
    this.worker = null;
  }
}
