import type SQLite from 'better-sqlite3';
import { Worker } from 'node:worker_threads';
import type { Selectable } from 'kysely';
import type { AuditLogTable } from '../db/tables/audit-log.ts';

export const AUDIT_RETENTION_DAYS = 30;

/** One audit row as written: the table's columns without the generated id. */
export type AuditRecord = Omit<Selectable<AuditLogTable>, 'id' | 'source'> & { source: 'api' | 'console' };

const COLUMNS = [
  'request_id', 'ts', 'source', 'tenant_id', 'tenant_slug', 'chave_id', 'operator_id', 'method', 'path',
  'status', 'error_code', 'duracao_ms', 'client_ip', 'body', 'detail',
] as const;

/**
 * Audit entries are queued in memory and written in batches, one transaction per batch,
 * off the request's path: on a worker thread when the database file is given (the gateway),
 * inline otherwise. flush() returns once everything queued is committed; close() flushes,
 * so a graceful shutdown loses nothing.
 */
export class AuditWriter {
  private queue: AuditRecord[] = [];
  private worker: Worker | null = null;
  private readonly done = new Int32Array(new SharedArrayBuffer(4));
  private sequence = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly insertBatch: SQLite.Transaction<(rows: AuditRecord[]) => void>;
  private readonly purgeStmt: SQLite.Statement;
  private readonly touchKey: SQLite.Statement;
  private closed = false;

  constructor(
    sqlite: SQLite.Database,
    private readonly options: { flushIntervalMs: number; maxBatch: number; databaseFile?: string },
  ) {
    if (options.databaseFile) {
      this.worker = new Worker(new URL('./audit-worker.mjs', import.meta.url), {
        workerData: { file: options.databaseFile, columns: COLUMNS, signal: this.done.buffer },
      });
      this.worker.on('message', (message: { error?: string; lost?: number }) => {
        if (message.error) console.error(`audit writer: ${message.lost} entries not written: ${message.error}`);
      });
      // A dead worker must not take the audit log with it: fall back to writing inline.
      this.worker.on('error', (error) => {
        console.error(`audit writer worker failed, writing inline from now on: ${error.message}`);
        this.worker = null;
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

  write(record: AuditRecord): void {
    this.queue.push(record);
    if (this.closed) this.flush();
    else if (this.queue.length >= this.options.maxBatch) this.send(false);
    else if (!this.timer) this.timer = setTimeout(() => this.send(false), this.options.flushIntervalMs);
  }

  /** Commits everything queued so far before returning (read-your-writes for the console and tests). */
  flush(): void {
    this.send(true);
  }

  private send(wait: boolean): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const rows = this.queue;
    this.queue = [];
    if (!this.worker) {
      if (rows.length > 0) this.insertBatch(rows);
      return;
    }
    if (rows.length === 0 && !wait) return;
    const ack = wait ? ++this.sequence : 0;
    this.worker.postMessage({ rows: rows.map((row) => COLUMNS.map((c) => row[c])), ack });
    if (!wait) return;
    // The worker handles messages in order: its ack of this one means every earlier batch is committed.
    const deadline = Date.now() + 10_000;
    while (Atomics.load(this.done, 0) < ack && Date.now() < deadline) {
      Atomics.wait(this.done, 0, Atomics.load(this.done, 0), 100);
    }
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

  purgeExpired(now = Date.now()): number {
    return this.purgeOlderThan(new Date(now - AUDIT_RETENTION_DAYS * 86_400_000).toISOString());
  }

  close(): void {
    this.closed = true;
    this.flush();
    void this.worker?.terminate();
    this.worker = null;
  }
}
