import type SQLite from 'better-sqlite3';

export const AUDIT_RETENTION_DAYS = 30;

export interface AuditRecord {
  request_id: string;
  ts: string;
  source: 'api' | 'console';
  tenant_id: number | null;
  tenant_slug: string | null;
  chave_id: number | null;
  operator_id: number | null;
  method: string;
  path: string;
  status: number;
  error_code: string | null;
  duracao_ms: number;
  client_ip: string;
  body: string | null;
  detail: string | null;
}

const COLUMNS = [
  'request_id', 'ts', 'source', 'tenant_id', 'tenant_slug', 'chave_id', 'operator_id', 'method', 'path',
  'status', 'error_code', 'duracao_ms', 'client_ip', 'body', 'detail',
] as const;

/**
 * Audit entries are queued in memory and written in batches, one transaction per batch,
 * off the request's path. close() flushes what is pending, so a graceful shutdown loses nothing.
 */
export class AuditWriter {
  private queue: AuditRecord[] = [];
  private timer: NodeJS.Timeout | null = null;
  private readonly insertBatch: SQLite.Transaction<(rows: AuditRecord[]) => void>;
  private readonly purgeStmt: SQLite.Statement;
  private readonly touchKey: SQLite.Statement;
  private closed = false;

  constructor(
    sqlite: SQLite.Database,
    private readonly options: { flushIntervalMs: number; maxBatch: number },
  ) {
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
    if (this.closed || this.queue.length >= this.options.maxBatch) this.flush();
    else if (!this.timer) this.timer = setTimeout(() => this.flush(), this.options.flushIntervalMs);
  }

  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.queue.length === 0) return;
    const rows = this.queue;
    this.queue = [];
    this.insertBatch(rows);
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
  }
}
