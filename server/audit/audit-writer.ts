import type SQLite from 'better-sqlite3';
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
 * that cheap: entries queued during one turn of the event loop are committed together in one
 * transaction on the next (setImmediate), so under load one commit serves many requests.
 *
 * The commit runs on the request connection itself. A worker thread with its own connection was
 * measured to cost more CPU per request than it saved (a structured clone and a thread wake-up per
 * batch), and its commits, made by another connection, changed `PRAGMA data_version` and so
 * emptied the key cache on every batch (server/keys/keys.service.ts). flush() commits what is
 * queued at once (read-your-writes for the console and tests); close() flushes.
 */
export class AuditWriter {
  private queue: AuditRecord[] = [];
  /** Resolvers of the queued entries' writeDurable promises, in queue order. */
  private queuedResolvers: Array<() => void> = [];
  /** Other writes of the same connection that ride on the next commit (server/idempotency: a write's answer). */
  private companions: Array<() => void> = [];
  private scheduled = false;
  private readonly insertBatch: SQLite.Transaction<(rows: AuditRecord[], companions: Array<() => void>) => void>;
  private readonly purgeStmt: SQLite.Statement;
  private readonly touchKey: SQLite.Statement;
  private closed = false;
  private readonly clock: AuditClock | undefined;

  constructor(sqlite: SQLite.Database, options: { clock?: AuditClock } = {}) {
    this.clock = options.clock;
    // Positional parameters: binding an array is cheaper than binding an object by name.
    const insert = sqlite.prepare(`INSERT INTO audit_log (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`);
    this.touchKey = sqlite.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)');
    this.insertBatch = sqlite.transaction((rows: AuditRecord[], companions: Array<() => void>) => {
      for (const statement of companions) {
        try {
          statement();
        } catch (error) {
          console.error(`audit writer: a write committed with the audit batch failed: ${(error as Error).message}`);
        }
      }
      const lastUse = new Map<number, string>();
      for (const row of rows) {
        insert.run(
          row.request_id, row.ts, row.source, row.tenant_id, row.tenant_slug, row.chave_id, row.operator_id, row.method, row.path,
          row.status, row.error_code, row.duracao_ms, row.client_ip, row.body, row.detail, row.error_message, row.response_body,
          row.request_headers,
        );
        if (row.chave_id !== null && row.source === 'api' && row.status < 400) lastUse.set(row.chave_id, row.ts);
      }
      // "Last used" rides on the audit batch instead of costing a write per request.
      for (const [id, ts] of lastUse) this.touchKey.run(ts, id, ts);
    });
    this.purgeStmt = sqlite.prepare('DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE ts < ? LIMIT 10000)');
  }

  /** Resolves once the entry is committed: await it before the response is sent. */
  writeDurable(record: AuditRecord): Promise<void> {
    return new Promise((resolve) => this.writeThen(record, resolve));
  }

  /** writeDurable without a promise (the audit hook's callback style): `committed` runs after the commit. */
  writeThen(record: AuditRecord, committed: () => void): void {
    this.queue.push(this.onApplianceClock(record));
    this.queuedResolvers.push(committed);
    this.kick();
  }

  /** Same queue, nobody waits (console actions, whose response has already left). */
  write(record: AuditRecord): void {
    this.queue.push(this.onApplianceClock(record));
    this.kick();
  }

  /**
   * Runs `statement` (a write on the same connection) inside the next audit commit, before that
   * commit's entries: an entry queued after it is never committed without it. One commit then serves
   * both, which spares a write request a commit of its own.
   */
  alongNextCommit(statement: () => void): void {
    this.companions.push(statement);
    this.kick();
  }

  /** Commits everything queued so far before returning (read-your-writes for the console and tests). */
  flush(): void {
    const rows = this.queue;
    const resolvers = this.queuedResolvers;
    const companions = this.companions;
    this.queue = [];
    this.queuedResolvers = [];
    this.companions = [];
    if (rows.length === 0 && companions.length === 0) return;
    try {
      this.insertBatch(rows, companions);
    } catch (error) {
      console.error(`audit writer: ${rows.length} entries not written: ${(error as Error).message}`);
    }
    // In a microtask of their own: the responses they release are not sent from inside the commit's
    // stack (a profile then shows the commit and the sending apart).
    if (resolvers.length > 0) {
      queueMicrotask(function releaseCommitted() {
        for (const resolve of resolvers) resolve();
      });
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
  }
}
