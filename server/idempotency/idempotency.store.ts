import type SQLite from 'better-sqlite3';
import type { IdempotencyRecord } from '../db/tables/idempotency-keys.ts';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export type Reservation =
  | { kind: 'execute' }
  | { kind: 'replay'; record: IdempotencyRecord }
  | { kind: 'conflict' }
  | { kind: 'in_flight' };

export interface OperationKey {
  chaveId: number;
  idemKey: string;
  method: string;
  path: string;
}

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * The idempotency store over gateway.db. Reservation is one synchronous SQLite transaction,
 * so concurrent requests with the same key cannot both win, and the record survives restarts.
 */
export class IdempotencyStore {
  private readonly select: SQLite.Statement;
  private readonly insert: SQLite.Statement;
  private readonly takeOver: SQLite.Statement;
  private readonly remove: SQLite.Statement;
  private readonly completeStmt: SQLite.Statement;
  private readonly purge: SQLite.Statement;
  private readonly reserveTx: SQLite.Transaction<(op: OperationKey, bodyHash: string, now: number) => Reservation>;

  constructor(
    sqlite: SQLite.Database,
    /** How long an in-flight entry blocks its key: longer than any request, far shorter than 24 h. */
    private readonly leaseMs: number,
  ) {
    const pk = 'chave_id = ? AND idem_key = ? AND method = ? AND path = ?';
    this.select = sqlite.prepare(`SELECT * FROM idempotency_keys WHERE ${pk}`);
    this.insert = sqlite.prepare(
      `INSERT INTO idempotency_keys (chave_id, idem_key, method, path, body_hash, state, lease_until, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, 'in_flight', ?, ?, ?)`,
    );
    this.takeOver = sqlite.prepare(`UPDATE idempotency_keys SET lease_until = ? WHERE ${pk} AND state = 'in_flight'`);
    this.remove = sqlite.prepare(`DELETE FROM idempotency_keys WHERE ${pk}`);
    this.completeStmt = sqlite.prepare(
      `UPDATE idempotency_keys SET state = 'completed', status = ?, response_headers = ?, response_body = ? WHERE ${pk}`,
    );
    this.purge = sqlite.prepare('DELETE FROM idempotency_keys WHERE expires_at <= ?');

    this.reserveTx = sqlite.transaction((op: OperationKey, bodyHash: string, now: number): Reservation => {
      const ids = [op.chaveId, op.idemKey, op.method, op.path];
      let record = this.select.get(...ids) as IdempotencyRecord | undefined;
      if (record && record.expires_at <= now) {
        this.remove.run(...ids);
        record = undefined;
      }
      if (!record) {
        this.insert.run(...ids, bodyHash, now + this.leaseMs, now, now + IDEMPOTENCY_TTL_MS);
        return { kind: 'execute' };
      }
      if (record.body_hash !== bodyHash) return { kind: 'conflict' };
      if (record.state === 'completed') return { kind: 'replay', record };
      if (record.lease_until > now) return { kind: 'in_flight' };
      // Left in flight by a crash: its lease ran out, so this request takes it over.
      this.takeOver.run(now + this.leaseMs, ...ids);
      return { kind: 'execute' };
    });
  }

  reserve(op: OperationKey, bodyHash: string, now = Date.now()): Reservation {
    return this.reserveTx.immediate(op, bodyHash, now);
  }

  complete(op: OperationKey, response: StoredResponse): void {
    this.completeStmt.run(response.status, JSON.stringify(response.headers), response.body, op.chaveId, op.idemKey, op.method, op.path);
  }

  /** Frees the key so a retry executes again (outcomes that are not final, e.g. a gateway timeout). */
  release(op: OperationKey): void {
    this.remove.run(op.chaveId, op.idemKey, op.method, op.path);
  }

  purgeExpired(now = Date.now()): number {
    return this.purge.run(now).changes;
  }
}
