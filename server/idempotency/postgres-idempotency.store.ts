import type pg from 'pg';
import type { IdempotencyRecord } from '../db/tables/idempotency-keys.ts';
import { inPostgresTransaction, prepared } from '../db/postgres.ts';
import { oncePerTurn } from '../once-per-turn.ts';
import {
  IdempotencySeal,
  NEW_ROW_COLUMNS,
  newRowValues,
  recentSuccessOf,
  reservationStep,
  SEAL_VERSION,
  type IdempotencyEntries,
  type OperationKey,
  type RecentSuccess,
  type RecentSuccessRow,
  type Reservation,
  type StoredResponse,
} from './idempotency.store.ts';
import { INSPECTED_COLUMNS, type EntryName, type IdempotencyInspection, type InspectedEntry } from './inspection.ts';

/** Something that runs a parameterised statement: the pool, or the client of an open transaction. */
export type Queryable = Pick<pg.ClientBase, 'query'>;

/** Where a write's answer is committed: by default at once on the pool; the gateway passes the audit batch's transaction. */
export type PostgresCommit = (
  statement: (q: Queryable) => Promise<unknown>,
  rollback?: (q: Queryable) => Promise<unknown>,
) => void;

const PK = 'chave_id = $1 AND idem_key = $2 AND method = $3 AND path = $4';
const pkValues = (op: Pick<OperationKey, 'chaveId' | 'idemKey' | 'method' | 'path'>) => [
  op.chaveId,
  op.idemKey,
  op.method,
  op.path,
];

/** A reservation's first insert, waiting for its turn's statement. */
interface PendingInsert {
  op: OperationKey;
  values: unknown[];
  resolve: (inserted: boolean) => void;
  reject: (error: unknown) => void;
}

/** Rows a grouped reservation statement inserts at most (its arrays' length). */
const INSERTS_PER_STATEMENT = 500;

/** PostgreSQL's types of NEW_ROW_COLUMNS and instance_id, in that order (the baseline migration and 021). */
const GROUPED_INSERT_TYPES = [
  'integer',
  'text',
  'text',
  'text',
  'text',
  'text',
  'bigint',
  'bigint',
  'bigint',
  'text',
  'text',
] as const;

/** The reservations of a turn in one statement: one array a column, whatever their number. */
const GROUPED_INSERT = `INSERT INTO idempotency_keys (${NEW_ROW_COLUMNS}, instance_id, state, seal_version)
  SELECT *, 'in_flight', ${SEAL_VERSION} FROM unnest(${GROUPED_INSERT_TYPES.map((type, i) => `$${i + 1}::${type}[]`).join(', ')})
  ON CONFLICT DO NOTHING
  RETURNING chave_id, idem_key, method, path`;

/** A reservation's identity in a statement's RETURNING (chave_id may come back as a string from a bigint). */
const reservationKey = (chaveId: unknown, idemKey: string, method: string, path: string) =>
  JSON.stringify([String(chaveId), idemKey, method, path]);

/**
 * The idempotency store on the cluster's PostgreSQL: the same rule (reservationStep) and sealing as gateway.db's,
 * correct across instances. One entry per (API key, Idempotency-Key) bound to an operation is a unique index
 * (migration 021), so a reservation is one `INSERT … ON CONFLICT DO NOTHING` (those of one turn of the event loop
 * share one statement, a key once in it): of concurrent requests on any instances exactly one inserts; the
 * others wait for its commit and then find its row (in flight: 409; done:
 * the replay). Only a key that already has an entry pays for a transaction that locks it (FOR UPDATE).
 *
 * Each reservation is tagged with its instance (GATEWAY_INSTANCE_ID): at start an instance frees those it
 * left in flight when it died; those of an instance that does not come back wait for their lease.
 */
export class PostgresIdempotencyStore implements IdempotencyEntries, IdempotencyInspection {
  private readonly sealing: IdempotencySeal;
  private pendingInserts: PendingInsert[] = [];
  private readonly scheduleInserts = oncePerTurn(() => this.flushInserts());
  /** Keys (API key, Idempotency-Key) in a grouped statement not yet answered, and the asks waiting for them. */
  private readonly keysInStatements = new Set<string>();
  private waitingForKey: PendingInsert[] = [];

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: {
      leaseMs: number;
      masterKey: Buffer;
      instanceId: string;
      clock?: () => number;
      commit?: PostgresCommit;
    },
  ) {
    this.sealing = new IdempotencySeal(options.masterKey);
  }

  private get clock(): () => number {
    return this.options.clock ?? Date.now;
  }

  /** What this instance left in flight when it last stopped without finishing (its id came from the environment). */
  async freeOwnReservations(): Promise<number> {
    const result = await this.pool.query(
      `UPDATE idempotency_keys SET lease_until = 0 WHERE state = 'in_flight' AND instance_id = $1`,
      [this.options.instanceId],
    );
    return result.rowCount ?? 0;
  }

  async reserve(
    op: OperationKey,
    bodyHash: string,
    now = this.clock(),
    requestId: string | null = null,
  ): Promise<Reservation> {
    const fingerprint = this.sealing.fingerprint(bodyHash);
    // Bounded: each round either decides or saw a concurrent insert or delete of the same key.
    for (let attempt = 0; attempt < 5; attempt++) {
      const inserted =
        attempt === 0
          ? await this.insertGrouped(op, fingerprint, now, requestId)
          : await this.insert(this.pool, op, fingerprint, now, requestId);
      if (inserted) return { kind: 'execute', entry: op };
      const decided = await this.reserveExisting(op, fingerprint, now, requestId);
      if (decided) return decided;
    }
    // The key changed under us five times in a row: another request is working on it.
    return { kind: 'in_flight' };
  }

  /**
   * A new key's first try: the reservations asked in one turn of the event loop go in one statement (one round
   * trip for all of them, as the journal's group commit does). Each key (API key, Idempotency-Key) appears in a
   * statement once: another ask for a key in a statement not yet answered waits for that answer, then goes in a
   * statement of its own turn, where it meets the first one's row (the first ask is the one that inserts).
   */
  private insertGrouped(
    op: OperationKey,
    fingerprint: string,
    now: number,
    requestId: string | null,
  ): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.pendingInserts.push({
        op,
        values: [...newRowValues(op, fingerprint, now, this.options.leaseMs, requestId), this.options.instanceId],
        resolve,
        reject,
      });
      this.scheduleInserts();
    });
  }

  private flushInserts(): void {
    const group: PendingInsert[] = [];
    const later: PendingInsert[] = [];
    const keys = new Set<string>();
    for (const pending of this.pendingInserts) {
      const key = `${pending.op.chaveId}\u0000${pending.op.idemKey}`;
      // A key already in a statement waits for its answer, so the ask that came first is the one that inserts.
      if (keys.has(key) || this.keysInStatements.has(key)) this.waitingForKey.push(pending);
      else if (group.length >= INSERTS_PER_STATEMENT) later.push(pending);
      else {
        keys.add(key);
        group.push(pending);
      }
    }
    this.pendingInserts = later;
    if (later.length > 0) this.scheduleInserts();
    if (group.length === 0) return;
    for (const key of keys) this.keysInStatements.add(key);
    // One array a column: the statement's text is the same for any number of rows, so it is prepared once.
    const values = GROUPED_INSERT_TYPES.map((_, i) => group.map((pending) => pending.values[i]));
    const answered = () => {
      for (const key of keys) this.keysInStatements.delete(key);
      if (this.waitingForKey.length === 0) return;
      this.pendingInserts = [...this.waitingForKey, ...this.pendingInserts];
      this.waitingForKey = [];
      this.scheduleInserts();
    };
    this.pool
      .query<{ chave_id: number; idem_key: string; method: string; path: string }>(prepared(GROUPED_INSERT, values))
      .then(
        ({ rows }) => {
          answered();
          const inserted = new Set(rows.map((row) => reservationKey(row.chave_id, row.idem_key, row.method, row.path)));
          for (const pending of group)
            pending.resolve(
              inserted.has(reservationKey(pending.op.chaveId, pending.op.idemKey, pending.op.method, pending.op.path)),
            );
        },
        (error: unknown) => {
          answered();
          for (const pending of group) pending.reject(error);
        },
      );
  }

  private async insert(
    q: Queryable,
    op: OperationKey,
    fingerprint: string,
    now: number,
    requestId: string | null,
  ): Promise<boolean> {
    const result = await q.query(
      prepared(
        `INSERT INTO idempotency_keys (${NEW_ROW_COLUMNS}, instance_id, state, seal_version)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'in_flight', ${SEAL_VERSION})
       ON CONFLICT DO NOTHING`,
        [...newRowValues(op, fingerprint, now, this.options.leaseMs, requestId), this.options.instanceId],
      ),
    );
    return result.rowCount === 1;
  }

  /** The key has an entry (or had one a moment ago): decided under a row lock. Null: try the insert again. */
  private async reserveExisting(
    op: OperationKey,
    fingerprint: string,
    now: number,
    requestId: string | null,
  ): Promise<Reservation | null> {
    return inPostgresTransaction(this.pool, async (client) => {
      const { rows } = await client.query<IdempotencyRecord>(
        prepared('SELECT * FROM idempotency_keys WHERE chave_id = $1 AND idem_key = $2 FOR UPDATE', [
          op.chaveId,
          op.idemKey,
        ]),
      );
      const live = rows.filter((row) => row.expires_at > now);
      if (live.length < rows.length) {
        await client.query('DELETE FROM idempotency_keys WHERE chave_id = $1 AND idem_key = $2 AND expires_at <= $3', [
          op.chaveId,
          op.idemKey,
          now,
        ]);
      }
      const step = reservationStep(live, op, fingerprint, now, (entry, record) => this.sealing.opened(entry, record));
      let decided: Reservation | null;
      switch (step.kind) {
        case 'insert':
          decided = (await this.insert(client, op, fingerprint, now, requestId))
            ? { kind: 'execute', entry: op }
            : null;
          break;
        case 'take_over':
          await client.query(
            `UPDATE idempotency_keys SET state = 'in_flight', status = NULL, response_sealed = NULL, lease_until = $5, request_id = $6, instance_id = $7
             WHERE ${PK} AND state IN ('in_flight', 'orphaned')`,
            [...pkValues(step.entry), now + this.options.leaseMs, requestId, this.options.instanceId],
          );
          decided = { kind: 'execute', entry: step.entry };
          break;
        case 'answer':
          decided = step.reservation;
      }
      return decided;
    });
  }

  complete(op: OperationKey, response: StoredResponse): void {
    const sealed = this.sealing.sealResponse(op, response);
    // The commit failed (the journal could not record the request, which is then refused): the key is
    // freed so the retry executes, and backend-sim answers it from its record of the same write.
    this.commit(
      (q) =>
        q.query(
          prepared(
            `UPDATE idempotency_keys SET state = 'completed', status = $5, response_sealed = $6, response_headers = NULL, response_body = NULL WHERE ${PK}`,
            [...pkValues(op), response.status, sealed],
          ),
        ),
      (q) => q.query(prepared(`DELETE FROM idempotency_keys WHERE ${PK}`, pkValues(op))),
    );
  }

  release(op: OperationKey): void {
    const remove = (q: Queryable) => q.query(prepared(`DELETE FROM idempotency_keys WHERE ${PK}`, pkValues(op)));
    this.commit(remove, remove);
  }

  private commit(statement: (q: Queryable) => Promise<unknown>, rollback: (q: Queryable) => Promise<unknown>): void {
    if (this.options.commit) {
      this.options.commit(statement, rollback);
      return;
    }
    statement(this.pool).catch((error: Error) => {
      console.error(`idempotency: an answer was not recorded (${error.message}); its key is freed`);
      return rollback(this.pool).catch(() => undefined);
    });
  }

  async flagOrphan(op: OperationKey): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE idempotency_keys SET state = 'orphaned', response_sealed = NULL, lease_until = 0 WHERE ${PK} AND state = 'completed'`,
      pkValues(op),
    );
    return (result.rowCount ?? 0) > 0;
  }

  async purgeExpired(now = this.clock()): Promise<number> {
    const result = await this.pool.query('DELETE FROM idempotency_keys WHERE expires_at <= $1', [now]);
    return result.rowCount ?? 0;
  }

  async recentSuccesses(limit: number, now = this.clock()): Promise<RecentSuccess[]> {
    const { rows } = await this.pool.query<RecentSuccessRow>(
      `SELECT chave_id, idem_key, method, path, operation, status, created_at FROM idempotency_keys
       WHERE expires_at > $1 AND state = 'completed' AND status BETWEEN 200 AND 299 ORDER BY expires_at DESC LIMIT $2`,
      [now, limit],
    );
    return rows.map(recentSuccessOf);
  }

  async liveEntriesOfKey(chaveId: number, at: number, limit: number): Promise<InspectedEntry[]> {
    const { rows } = await this.pool.query<InspectedEntry>(
      `SELECT ${INSPECTED_COLUMNS} FROM idempotency_keys WHERE chave_id = $1 AND expires_at > $2 ORDER BY created_at DESC LIMIT $3`,
      [chaveId, at, limit],
    );
    return rows;
  }

  async liveEntriesOfIdemKey(
    chaveIds: number[],
    idemKey: string,
    at: number,
    limit: number,
  ): Promise<InspectedEntry[]> {
    const { rows } = await this.pool.query<InspectedEntry>(
      `SELECT ${INSPECTED_COLUMNS} FROM idempotency_keys
       WHERE chave_id = ANY($1::int[]) AND idem_key = $2 AND expires_at > $3 ORDER BY created_at DESC LIMIT $4`,
      [chaveIds, idemKey, at, limit],
    );
    return rows;
  }

  async liveEntry(chaveId: number, idemKey: string, at: number): Promise<InspectedEntry | undefined> {
    const { rows } = await this.pool.query<InspectedEntry>(
      `SELECT ${INSPECTED_COLUMNS} FROM idempotency_keys WHERE chave_id = $1 AND idem_key = $2 AND expires_at > $3 LIMIT 1`,
      [chaveId, idemKey, at],
    );
    return rows[0];
  }

  async entry(name: EntryName): Promise<InspectedEntry | undefined> {
    const { rows } = await this.pool.query<InspectedEntry>(
      `SELECT ${INSPECTED_COLUMNS} FROM idempotency_keys WHERE ${PK}`,
      pkValues(name),
    );
    return rows[0];
  }

  async purgeEntry(name: EntryName): Promise<void> {
    await this.pool.query(`DELETE FROM idempotency_keys WHERE ${PK}`, pkValues(name));
  }
}
