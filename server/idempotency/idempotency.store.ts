import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import type SQLite from 'better-sqlite3';
import type { IdempotencyRecord } from '../db/tables/idempotency-keys.ts';
import { deriveKey, SecretBox } from '../keys/secret-box.ts';
import { INSPECTED_COLUMNS, type EntryName, type IdempotencyInspection, type InspectedEntry } from './inspection.ts';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export type Reservation =
  /** `entry`: the row this request executes under (complete/release it; its backend token, backendWriteToken). */
  | { kind: 'execute'; entry: OperationKey }
  /** `record.response_headers` and `record.response_body` hold the opened (plaintext) response. */
  | { kind: 'replay'; record: IdempotencyRecord }
  /**
   * `body`: same operation, another body; `operation`: the key is bound to another operation. `stored`: the
   * entry it conflicts with; `fingerprint`: this request's body fingerprint (the journal keeps both, issue 22).
   */
  | { kind: 'conflict'; reason: 'body' | 'operation'; stored: ConflictingEntry; fingerprint: string }
  | { kind: 'in_flight' };

/**
 * An Idempotency-Key's entry. The spec scopes a key per API key: one key names one logical request, so it
 * is bound to one operation, the one the router resolved (`operation`), whatever spelling of the path
 * reached it; the same key on another operation is a conflict.
 */
export interface OperationKey {
  chaveId: number;
  idemKey: string;
  /** The verb and the path as the first request sent it: what the console's inspector shows. */
  method: string;
  path: string;
  /**
   * The operation the key is bound to (operationIdentity: verb, route pattern, parsed path values), e.g.
   * `["POST","/v1/pacientes/:id/prontuarios",{"id":1}]`. Null on rows written before migration 018, whose
   * identity was the verb and the raw path: they match only those for the rest of their 24 h.
   */
  operation: string | null;
}

/** The identity of a resolved operation: its verb, its route pattern and its parsed path values, keys sorted. */
export function operationIdentity(method: string, route: string, params: unknown): string {
  const values = params !== null && typeof params === 'object' ? params : {};
  const sorted = Object.fromEntries(Object.entries(values).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return JSON.stringify([method, route, sorted]);
}

/** What the console's inspector shows of the entry a 422 conflicted with: no response, only metadata. */
export interface ConflictingEntry {
  method: string;
  path: string;
  /** HMAC fingerprint of the body the key was first used with. */
  fingerprint: string;
  request_id: string | null;
}

const conflictingEntry = (row: IdempotencyRecord): ConflictingEntry => ({
  method: row.method,
  path: row.path,
  fingerprint: row.body_hash,
  request_id: row.request_id,
});

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A completed 2xx entry still within its 24 h (the start-time consistency check reads them). */
export interface RecentSuccess {
  operation: OperationKey;
  status: number;
  createdAt: number;
}

/**
 * What the idempotency plugin and the start-time check need of a store: gateway.db's (IdempotencyStore,
 * synchronous) or the cluster's PostgreSQL (server/idempotency/postgres-idempotency.store.ts).
 */
export interface IdempotencyEntries {
  /**
   * `op`: the request's key, verb, raw path and resolved operation (non-null). `bodyHash`: the canonical
   * body's SHA-256 (canonicalBodyHash). `requestId`: the request that executes when it wins, kept in plain
   * text so the console links an entry to its audit row without opening it.
   */
  reserve(
    op: OperationKey,
    bodyHash: string,
    now?: number,
    requestId?: string | null,
  ): Reservation | Promise<Reservation>;
  /** Records the answer (with the audit entry's commit where the store was given one). */
  complete(op: OperationKey, response: StoredResponse): void;
  /** Frees the key so a retry executes again (outcomes that are not final, e.g. a gateway timeout). */
  release(op: OperationKey): void;
  /**
   * Marks a completed entry whose write backend-sim no longer holds (the start-time consistency check): it
   * no longer replays its answer, which is dropped; the retry with the same key and body executes again
   * (reserve), and until then the console's inspector shows the entry as `orphaned`.
   */
  flagOrphan(op: OperationKey): boolean | Promise<boolean>;
  purgeExpired(now?: number): number | Promise<number>;
  /** The newest completed 2xx entries still within their 24 h, newest first. */
  recentSuccesses(limit: number, now?: number): RecentSuccess[] | Promise<RecentSuccess[]>;
}

export const SEAL_VERSION = 1;

/** The columns of a new in-flight row that take a value, in newRowValues' order (both stores insert them). */
export const NEW_ROW_COLUMNS =
  'chave_id, idem_key, method, path, operation, body_hash, lease_until, created_at, expires_at, request_id';

/** A new in-flight row's values for NEW_ROW_COLUMNS: leased for `leaseMs`, kept for IDEMPOTENCY_TTL_MS. */
export function newRowValues(
  op: OperationKey,
  fingerprint: string,
  now: number,
  leaseMs: number,
  requestId: string | null,
): unknown[] {
  return [
    op.chaveId,
    op.idemKey,
    op.method,
    op.path,
    op.operation,
    fingerprint,
    now + leaseMs,
    now,
    now + IDEMPOTENCY_TTL_MS,
    requestId,
  ];
}

/** What a reservation does with the rows a key already has (the expired ones left out). */
export type ReservationStep =
  | { kind: 'insert' }
  | { kind: 'take_over'; entry: OperationKey }
  | { kind: 'answer'; reservation: Reservation };

/**
 * The reservation rule, the same on both databases: no row → insert; the row bound to this operation (a
 * row of an earlier release, without one, answers only its own verb and raw path) → replay, conflict on
 * another body, in flight while its lease runs, taken over once a crash left it; no row of this operation
 * → conflict. `open` opens a completed row's sealed answer.
 */
export function reservationStep(
  rows: IdempotencyRecord[],
  op: OperationKey,
  fingerprint: string,
  now: number,
  open: (entry: OperationKey, record: IdempotencyRecord) => IdempotencyRecord,
): ReservationStep {
  if (rows.length === 0) return { kind: 'insert' };
  const record = rows.find((row) =>
    row.operation === null ? row.method === op.method && row.path === op.path : row.operation === op.operation,
  );
  if (!record)
    return {
      kind: 'answer',
      reservation: { kind: 'conflict', reason: 'operation', stored: conflictingEntry(rows[0]), fingerprint },
    };
  const entry = entryOf(record);
  if (record.body_hash !== fingerprint)
    return {
      kind: 'answer',
      reservation: { kind: 'conflict', reason: 'body', stored: conflictingEntry(record), fingerprint },
    };
  if (record.state === 'completed')
    return { kind: 'answer', reservation: { kind: 'replay', record: open(entry, record) } };
  if (record.state === 'in_flight' && record.lease_until > now)
    return { kind: 'answer', reservation: { kind: 'in_flight' } };
  // Left in flight by a crash (its lease ran out), or orphaned (its write was lost by backend-sim, found
  // at start): this request takes it over and executes, under the same row (and so the same backend
  // token) whatever spelling of the path it came by.
  return { kind: 'take_over', entry };
}

/**
 * Sealing shared by both stores. Cached responses carry patient data, so nothing of them rests in
 * plaintext: the response (headers and body) is sealed with AES-256-GCM under a subkey of the master
 * key, the associated data binding it to its row (API key id, method, path, Idempotency-Key, status,
 * and the operation when the row has one), and the body fingerprint is an HMAC under another subkey.
 */
export class IdempotencySeal {
  private readonly box: SecretBox;
  private readonly fingerprintKey: KeyObject;

  constructor(masterKey: Buffer) {
    this.box = new SecretBox(deriveKey(masterKey, 'clinic-gateway/idempotency/response/v1'));
    this.fingerprintKey = createSecretKey(deriveKey(masterKey, 'clinic-gateway/idempotency/fingerprint/v1'));
  }

  fingerprint(bodyHash: string): string {
    return createHmac('sha256', this.fingerprintKey).update(bodyHash).digest('hex');
  }

  seal(op: OperationKey, status: number, headersJson: string, body: string): Buffer {
    // JSON.stringify never leaves a raw line feed in its output: the first one ends the headers.
    return this.box.sealBytes(`${headersJson}\n${body}`, associatedData(op, status));
  }

  sealResponse(op: OperationKey, response: StoredResponse): Buffer {
    return this.seal(op, response.status, JSON.stringify(response.headers), response.body);
  }

  /** The record with its response opened; throws if the sealed value was altered or moved to another row. */
  opened(op: OperationKey, record: IdempotencyRecord): IdempotencyRecord {
    if (!record.response_sealed) return { ...record, response_headers: null, response_body: null };
    const text = this.box.openBytes(record.response_sealed, associatedData(op, record.status ?? 0));
    const split = text.indexOf('\n');
    return {
      ...record,
      response_headers: text.slice(0, split),
      response_body: text.slice(split + 1),
      response_sealed: null,
    };
  }
}

/**
 * The idempotency store over gateway.db. Reservation is one synchronous SQLite transaction,
 * so concurrent requests with the same key cannot both win, and the record survives restarts.
 *
 * A key has one entry per API key (spec § Idempotency: "Scope: per API key"): found by (API key id,
 * Idempotency-Key), it answers the operation it is bound to and is a conflict for any other.
 * Answers are sealed (IdempotencySeal); rows of earlier releases are sealed in place when the store opens.
 */
type InspectionStatement = 'ofKey' | 'ofIdemKey' | 'live' | 'entry' | 'purge';

export class IdempotencyStore implements IdempotencyEntries, IdempotencyInspection {
  private readonly selectKey: SQLite.Statement;
  private readonly removeExpiredOfKey: SQLite.Statement;
  private readonly insert: SQLite.Statement;
  private readonly takeOver: SQLite.Statement;
  private readonly flagOrphanStmt: SQLite.Statement;
  private readonly remove: SQLite.Statement;
  private readonly completeStmt: SQLite.Statement;
  private readonly purge: SQLite.Statement;
  private readonly selectRecentSuccesses: SQLite.Statement;
  private readonly inspect: Record<InspectionStatement, SQLite.Statement>;
  private readonly reserveTx: SQLite.Transaction<
    (op: OperationKey, fingerprint: string, now: number, requestId: string | null) => Reservation
  >;
  private readonly sealing: IdempotencySeal;

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
    this.sealing = new IdempotencySeal(masterKey);
    const pk = 'chave_id = ? AND idem_key = ? AND method = ? AND path = ?';
    // The primary key starts with (chave_id, idem_key): both statements walk it.
    this.selectKey = sqlite.prepare('SELECT * FROM idempotency_keys WHERE chave_id = ? AND idem_key = ?');
    this.removeExpiredOfKey = sqlite.prepare(
      'DELETE FROM idempotency_keys WHERE chave_id = ? AND idem_key = ? AND expires_at <= ?',
    );
    this.insert = sqlite.prepare(
      `INSERT INTO idempotency_keys (${NEW_ROW_COLUMNS}, state, seal_version)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'in_flight', ${SEAL_VERSION})`,
    );
    this.takeOver = sqlite.prepare(
      `UPDATE idempotency_keys SET state = 'in_flight', status = NULL, response_sealed = NULL, lease_until = ?, request_id = ?
       WHERE ${pk} AND state IN ('in_flight', 'orphaned')`,
    );
    this.flagOrphanStmt = sqlite.prepare(
      `UPDATE idempotency_keys SET state = 'orphaned', response_sealed = NULL, lease_until = 0 WHERE ${pk} AND state = 'completed'`,
    );
    this.remove = sqlite.prepare(`DELETE FROM idempotency_keys WHERE ${pk}`);
    this.completeStmt = sqlite.prepare(
      `UPDATE idempotency_keys SET state = 'completed', status = ?, response_sealed = ?, response_headers = NULL, response_body = NULL
       WHERE ${pk}`,
    );
    this.purge = sqlite.prepare('DELETE FROM idempotency_keys WHERE expires_at <= ?');
    this.selectRecentSuccesses = sqlite.prepare(
      `SELECT chave_id, idem_key, method, path, operation, status, created_at FROM idempotency_keys
       WHERE expires_at > ? AND state = 'completed' AND status BETWEEN 200 AND 299 ORDER BY expires_at DESC LIMIT ?`,
    );
    this.inspect = prepareInspection(sqlite, pk);

    this.reserveTx = sqlite.transaction(
      (op: OperationKey, fingerprint: string, now: number, requestId: string | null): Reservation => {
        let rows = this.selectKey.all(op.chaveId, op.idemKey) as IdempotencyRecord[];
        if (rows.some((row) => row.expires_at <= now)) {
          this.removeExpiredOfKey.run(op.chaveId, op.idemKey, now);
          rows = rows.filter((row) => row.expires_at > now);
        }
        const step = reservationStep(rows, op, fingerprint, now, (entry, record) => this.sealing.opened(entry, record));
        switch (step.kind) {
          case 'insert':
            this.insert.run(...newRowValues(op, fingerprint, now, this.leaseMs, requestId));
            return { kind: 'execute', entry: op };
          case 'take_over':
            this.takeOver.run(
              now + this.leaseMs,
              requestId,
              step.entry.chaveId,
              step.entry.idemKey,
              step.entry.method,
              step.entry.path,
            );
            return { kind: 'execute', entry: step.entry };
          case 'answer':
            return step.reservation;
        }
      },
    );

    this.sealLegacyRows(sqlite);
    // One gateway process per gateway.db: what is still in flight when the store opens was left by a
    // process that died (crash, SIGKILL). Its key is free at once: the retry executes, with the same
    // backend token, and backend-sim replays the write if it had committed (docs/architecture.md).
    sqlite.prepare(`UPDATE idempotency_keys SET lease_until = 0 WHERE state = 'in_flight'`).run();
  }

  reserve(op: OperationKey, bodyHash: string, now = this.clock(), requestId: string | null = null): Reservation {
    return this.reserveTx.immediate(op, this.sealing.fingerprint(bodyHash), now, requestId);
  }

  complete(op: OperationKey, response: StoredResponse): void {
    const sealed = this.sealing.sealResponse(op, response);
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

  flagOrphan(op: OperationKey): boolean {
    return this.flagOrphanStmt.run(op.chaveId, op.idemKey, op.method, op.path).changes > 0;
  }

  purgeExpired(now = this.clock()): number {
    return this.purge.run(now).changes;
  }

  /**
   * The newest completed 2xx entries still within their 24 h, newest first: the writes the start-time
   * consistency check (server/integrity/idempotency-consistency.ts) confirms against backend-sim's markers.
   */
  recentSuccesses(limit: number, now = this.clock()): RecentSuccess[] {
    return (this.selectRecentSuccesses.all(now, limit) as RecentSuccessRow[]).map(recentSuccessOf);
  }

  liveEntriesOfKey(chaveId: number, at: number, limit: number): InspectedEntry[] {
    return this.inspect.ofKey.all(chaveId, at, limit) as InspectedEntry[];
  }

  liveEntriesOfIdemKey(chaveIds: number[], idemKey: string, at: number, limit: number): InspectedEntry[] {
    return this.inspect.ofIdemKey.all(JSON.stringify(chaveIds), idemKey, at, limit) as InspectedEntry[];
  }

  liveEntry(chaveId: number, idemKey: string, at: number): InspectedEntry | undefined {
    return this.inspect.live.get(chaveId, idemKey, at) as InspectedEntry | undefined;
  }

  entry(name: EntryName): InspectedEntry | undefined {
    return this.inspect.entry.get(name.chaveId, name.idemKey, name.method, name.path) as InspectedEntry | undefined;
  }

  purgeEntry(name: EntryName): void {
    this.inspect.purge.run(name.chaveId, name.idemKey, name.method, name.path);
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
        const op = entryOf(row);
        const sealed =
          row.state === 'completed'
            ? this.sealing.seal(op, row.status ?? 0, row.response_headers ?? '{}', row.response_body ?? 'null')
            : null;
        update.run(this.sealing.fingerprint(row.body_hash), sealed, op.chaveId, op.idemKey, op.method, op.path);
      }
      return rows.length;
    });
    let converted = 0;
    for (let n = sealChunk.immediate(); n > 0; n = sealChunk.immediate()) converted += n;
    if (converted > 0) sqlite.pragma('wal_checkpoint(TRUNCATE)');
  }
}

export type RecentSuccessRow = Pick<
  IdempotencyRecord,
  'chave_id' | 'idem_key' | 'method' | 'path' | 'operation' | 'status' | 'created_at'
>;

export const recentSuccessOf = (row: RecentSuccessRow): RecentSuccess => ({
  operation: entryOf(row),
  status: row.status ?? 0,
  createdAt: row.created_at,
});

/** The entry a row is (its primary key and the operation it is bound to). */
export const entryOf = (
  row: Pick<IdempotencyRecord, 'chave_id' | 'idem_key' | 'method' | 'path' | 'operation'>,
): OperationKey => ({
  chaveId: row.chave_id,
  idemKey: row.idem_key,
  method: row.method,
  path: row.path,
  operation: row.operation,
});

/**
 * Binds a sealed response to its row: moved to another key, operation or status, it no longer opens.
 * Rows bound to an operation (migration 018) bind it too; older rows keep the associated data they were sealed with.
 */
const associatedData = (op: OperationKey, status: number): string =>
  JSON.stringify(
    op.operation === null
      ? ['idempotency-response', op.chaveId, op.method, op.path, op.idemKey, status]
      : ['idempotency-response', op.chaveId, op.method, op.path, op.idemKey, status, op.operation],
  );

/** The inspector's statements (IdempotencyInspection); `pk`: the primary key's condition. */
function prepareInspection(sqlite: SQLite.Database, pk: string): Record<InspectionStatement, SQLite.Statement> {
  return {
    ofKey: sqlite.prepare(
      `SELECT ${INSPECTED_COLUMNS} FROM idempotency_keys WHERE chave_id = ? AND expires_at > ? ORDER BY created_at DESC LIMIT ?`,
    ),
    // The primary key starts with (chave_id, idem_key): one lookup per API key of the list.
    ofIdemKey: sqlite.prepare(
      `SELECT ${INSPECTED_COLUMNS} FROM idempotency_keys
       WHERE chave_id IN (SELECT value FROM json_each(?)) AND idem_key = ? AND expires_at > ? ORDER BY created_at DESC LIMIT ?`,
    ),
    live: sqlite.prepare(
      `SELECT ${INSPECTED_COLUMNS} FROM idempotency_keys WHERE chave_id = ? AND idem_key = ? AND expires_at > ? LIMIT 1`,
    ),
    entry: sqlite.prepare(`SELECT ${INSPECTED_COLUMNS} FROM idempotency_keys WHERE ${pk}`),
    purge: sqlite.prepare(`DELETE FROM idempotency_keys WHERE ${pk}`),
  };
}
