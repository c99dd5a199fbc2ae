import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import type SQLite from 'better-sqlite3';
import type { IdempotencyRecord } from '../db/tables/idempotency-keys.ts';
import { deriveKey, SecretBox } from '../keys/secret-box.ts';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export type Reservation =
  | { kind: 'execute' }
  /** `record.response_headers` and `record.response_body` hold the opened (plaintext) response. */
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

const SEAL_VERSION = 1;

/**
 * The idempotency store over gateway.db. Reservation is one synchronous SQLite transaction,
 * so concurrent requests with the same key cannot both win, and the record survives restarts.
 *
 * Cached responses carry patient data, so nothing of them rests in plaintext: the response (headers
 * and body) is sealed with AES-256-GCM under a subkey of the master key, the associated data binding
 * it to its row (API key id, method, path, Idempotency-Key, status), and the body fingerprint is an
 * HMAC under another subkey. Rows of earlier releases are sealed in place when the store opens.
 */
export class IdempotencyStore {
  private readonly select: SQLite.Statement;
  private readonly insert: SQLite.Statement;
  private readonly takeOver: SQLite.Statement;
  private readonly remove: SQLite.Statement;
  private readonly completeStmt: SQLite.Statement;
  private readonly purge: SQLite.Statement;
  private readonly reserveTx: SQLite.Transaction<(op: OperationKey, fingerprint: string, now: number, requestId: string | null) => Reservation>;
  private readonly box: SecretBox;
  private readonly fingerprintKey: KeyObject;

  constructor(
    sqlite: SQLite.Database,
    /** How long an in-flight entry blocks its key: longer than any request, far shorter than 24 h. */
    private readonly leaseMs: number,
    /** The gateway's master key (DATA_DIR/master.key or MASTER_KEY); the store derives its own subkeys. */
    masterKey: Buffer,
    /** The appliance clock (server/clock.ts): the 24 h lifetime and the leases follow an operator's shift. */
    private readonly clock: () => number = Date.now,
    /**
     * Where a write's answer is committed: by default at once; the gateway passes the audit writer's
     * group commit, so the answer and its audit entry share one commit before the response leaves.
     * Losing it to a crash is safe: the key is freed at the next start and the retry is answered
     * from backend-sim's record of the same write (backendWriteToken).
     */
    private readonly commit: (statement: () => void, rollback?: () => void) => void = (statement) => statement(),
  ) {
    this.box = new SecretBox(deriveKey(masterKey, 'clinic-gateway/idempotency/response/v1'));
    this.fingerprintKey = createSecretKey(deriveKey(masterKey, 'clinic-gateway/idempotency/fingerprint/v1'));
    const pk = 'chave_id = ? AND idem_key = ? AND method = ? AND path = ?';
    this.select = sqlite.prepare(`SELECT * FROM idempotency_keys WHERE ${pk}`);
    this.insert = sqlite.prepare(
      `INSERT INTO idempotency_keys (chave_id, idem_key, method, path, body_hash, state, lease_until, created_at, expires_at, seal_version, request_id)
       VALUES (?, ?, ?, ?, ?, 'in_flight', ?, ?, ?, ${SEAL_VERSION}, ?)`,
    );
    this.takeOver = sqlite.prepare(`UPDATE idempotency_keys SET lease_until = ?, request_id = ? WHERE ${pk} AND state = 'in_flight'`);
    this.remove = sqlite.prepare(`DELETE FROM idempotency_keys WHERE ${pk}`);
    this.completeStmt = sqlite.prepare(
      `UPDATE idempotency_keys SET state = 'completed', status = ?, response_sealed = ?, response_headers = NULL, response_body = NULL
       WHERE ${pk}`,
    );
    this.purge = sqlite.prepare('DELETE FROM idempotency_keys WHERE expires_at <= ?');

    this.reserveTx = sqlite.transaction((op: OperationKey, fingerprint: string, now: number, requestId: string | null): Reservation => {
      const ids = [op.chaveId, op.idemKey, op.method, op.path];
      let record = this.select.get(...ids) as IdempotencyRecord | undefined;
      if (record && record.expires_at <= now) {
        this.remove.run(...ids);
        record = undefined;
      }
      if (!record) {
        this.insert.run(...ids, fingerprint, now + this.leaseMs, now, now + IDEMPOTENCY_TTL_MS, requestId);
        return { kind: 'execute' };
      }
      if (record.body_hash !== fingerprint) return { kind: 'conflict' };
      if (record.state === 'completed') return { kind: 'replay', record: this.opened(op, record) };
      if (record.lease_until > now) return { kind: 'in_flight' };
      // Left in flight by a crash: its lease ran out, so this request takes it over.
      this.takeOver.run(now + this.leaseMs, requestId, ...ids);
      return { kind: 'execute' };
    });

    this.sealLegacyRows(sqlite);
    // One gateway process per gateway.db: what is still in flight when the store opens was left by a
    // process that died (crash, SIGKILL). Its key is free at once: the retry executes, with the same
    // backend token, and backend-sim replays the write if it had committed (docs/architecture.md).
    sqlite.prepare(`UPDATE idempotency_keys SET lease_until = 0 WHERE state = 'in_flight'`).run();
  }

  /**
   * `bodyHash`: the canonical body's SHA-256 (canonicalBodyHash). `requestId`: the request that executes
   * when it wins, kept in plain text so the console links an entry to its audit row without opening it.
   */
  reserve(op: OperationKey, bodyHash: string, now = this.clock(), requestId: string | null = null): Reservation {
    return this.reserveTx.immediate(op, this.fingerprint(bodyHash), now, requestId);
  }

  complete(op: OperationKey, response: StoredResponse): void {
    const sealed = this.seal(op, response.status, JSON.stringify(response.headers), response.body);
    // The commit failed (the journal could not record the request, which is then refused): the key is
    // freed so the retry executes, and backend-sim answers it from its record of the same write.
    this.commit(
      () => this.completeStmt.run(response.status, sealed, op.chaveId, op.idemKey, op.method, op.path),
      () => this.remove.run(op.chaveId, op.idemKey, op.method, op.path),
    );
  }

  /** Frees the key so a retry executes again (outcomes that are not final, e.g. a gateway timeout). */
  release(op: OperationKey): void {
    const remove = () => this.remove.run(op.chaveId, op.idemKey, op.method, op.path);
    this.commit(remove, remove);
  }

  purgeExpired(now = this.clock()): number {
    return this.purge.run(now).changes;
  }

  private fingerprint(bodyHash: string): string {
    return createHmac('sha256', this.fingerprintKey).update(bodyHash).digest('hex');
  }

  private seal(op: OperationKey, status: number, headersJson: string, body: string): Buffer {
    // JSON.stringify never leaves a raw line feed in its output: the first one ends the headers.
    return this.box.sealBytes(`${headersJson}\n${body}`, associatedData(op, status));
  }

  /** The record with its response opened; throws if the sealed value was altered or moved to another row. */
  private opened(op: OperationKey, record: IdempotencyRecord): IdempotencyRecord {
    if (!record.response_sealed) return { ...record, response_headers: null, response_body: null };
    const text = this.box.openBytes(record.response_sealed, associatedData(op, record.status ?? 0));
    const split = text.indexOf('\n');
    return { ...record, response_headers: text.slice(0, split), response_body: text.slice(split + 1), response_sealed: null };
  }

  /**
   * Rows written before sealing (seal_version 0: plaintext response, bare SHA-256 fingerprint) are
   * sealed in place, in chunks, so their keys keep replaying for the rest of their 24 h. secure_delete
   * zeroes the cells they leave, and a TRUNCATE checkpoint drops the WAL frames that still hold them.
   */
  private sealLegacyRows(sqlite: SQLite.Database): void {
    const pick = sqlite.prepare('SELECT * FROM idempotency_keys WHERE seal_version = 0 LIMIT 500');
    const update = sqlite.prepare(
      `UPDATE idempotency_keys SET body_hash = ?, response_sealed = ?, response_headers = NULL, response_body = NULL,
         seal_version = ${SEAL_VERSION}
       WHERE chave_id = ? AND idem_key = ? AND method = ? AND path = ?`,
    );
    const sealChunk = sqlite.transaction(() => {
      const rows = pick.all() as IdempotencyRecord[];
      for (const row of rows) {
        const op = { chaveId: row.chave_id, idemKey: row.idem_key, method: row.method, path: row.path };
        const sealed =
          row.state === 'completed' ? this.seal(op, row.status ?? 0, row.response_headers ?? '{}', row.response_body ?? 'null') : null;
        update.run(this.fingerprint(row.body_hash), sealed, op.chaveId, op.idemKey, op.method, op.path);
      }
      return rows.length;
    });
    let converted = 0;
    for (let n = sealChunk.immediate(); n > 0; n = sealChunk.immediate()) converted += n;
    if (converted > 0) sqlite.pragma('wal_checkpoint(TRUNCATE)');
  }
}

/** Binds a sealed response to its row: moved to another key, operation or status, it no longer opens. */
const associatedData = (op: OperationKey, status: number): string =>
  JSON.stringify(['idempotency-response', op.chaveId, op.method, op.path, op.idemKey, status]);
