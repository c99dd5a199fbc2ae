import { AsyncLocalStorage } from 'node:async_hooks';
import type SQLite from 'better-sqlite3';
import {
  SqliteDialect,
  SqliteDriver,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { BackendError } from '../errors.ts';
import { executeCompiled, prepared } from './statements.ts';

/** Markers are kept as long as the gateway keeps an Idempotency-Key (spec § Idempotency: 24 h). */
export const MARKER_TTL_MS = 24 * 60 * 60 * 1000;
const PURGE_EVERY_MS = 10 * 60 * 1000;
const SAVEPOINT = 'idempotent_write';
const MUTATIONS = new Set(['InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode', 'MergeQueryNode']);

/** What a write request answered, stored with its marker and replayed byte for byte. */
export interface RecordedOutcome {
  method: string;
  path: string;
  /** null only for a marker committed without its answer (see WriteScope.abandon). */
  status: number | null;
  content_type: string | null;
  response: string | null;
}

/**
 * One backend request executing a write under the gateway's idempotency token. Its statements run in
 * this async context (AsyncLocalStorage); the driver below opens the request's write transaction at
 * its first mutation and keeps it open until the response is known, then inserts the marker with the
 * response and commits, so write, marker and response commit together or not at all.
 */
export class WriteScope {
  /** Tenant databases whose write transaction this request holds open. */
  readonly held = new Set<IdempotentDriver>();

  constructor(
    readonly token: string,
    readonly method: string,
    readonly path: string,
    readonly now: () => number,
  ) {}

  run<T>(fn: () => T): T {
    return scopes.run(this, fn);
  }

  /** Stores the response in the marker and commits the request's writes (throws if the commit fails). */
  finish(outcome: { status: number; contentType: string | null; body: string | null }): void {
    let failure: unknown = null;
    for (const driver of [...this.held]) {
      try {
        driver.finish(this, outcome);
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure) throw failure;
  }

  /** The request ended without an answer to record: its writes are rolled back, marker included. */
  abandon(): void {
    for (const driver of [...this.held]) driver.abandon(this);
  }
}

const scopes = new AsyncLocalStorage<WriteScope>();

/** The answer recorded for `token` in this tenant database, if its write committed within 24 h. */
export function recordedOutcome(sqlite: SQLite.Database, token: string, now: number): RecordedOutcome | undefined {
  return prepared(sqlite, 'SELECT method, path, status, content_type, response FROM idempotency_markers WHERE token = ? AND created_at > ?').get(
    token,
    now - MARKER_TTL_MS,
  ) as RecordedOutcome | undefined;
}

/** Kysely's SQLite dialect, with the driver that records idempotency markers for requests in a WriteScope. */
export class IdempotentSqliteDialect extends SqliteDialect {
  constructor(private readonly sqlite: SQLite.Database) {
    super({ database: sqlite });
  }

  override createDriver(): Driver {
    return new IdempotentDriver(this.sqlite);
  }
}

interface OpenWrite {
  scope: WriteScope;
  /** The Kysely transaction running inside it: the one that opened it ('top'), a nested one ('savepoint'), or none. */
  kysely: 'top' | 'savepoint' | null;
  /** The marker's `created_at`: the clock when the write transaction began. */
  createdAt: number;
  /** The connection's total_changes() when the write transaction began: unchanged at the answer means nothing was written. */
  changesBefore: number;
}

/**
 * Kysely's SqliteDriver (its single connection and mutex), plus, for a request in a WriteScope:
 * - a transaction it begins is a write transaction from its BEGIN IMMEDIATE (the write lock taken at
 *   once, as the marker inserted right after BEGIN took it before issue 25), and its COMMIT is deferred:
 *   the connection stays locked for this request (its later queries reuse it, other requests wait)
 *   until `finish` inserts the marker with the response and commits (one statement for the marker,
 *   written once, at the end of the table);
 * - a mutation outside any transaction (autocommit: doctor create, patient PATCH) first opens that
 *   write transaction the same way;
 * - a transaction begun while the request already holds its write transaction is a savepoint.
 * Outside a WriteScope (reads, the seed, the admin API, migrations) it is Kysely's driver unchanged.
 * As inside any Kysely transaction on SQLite, a request must not start a query in parallel with its
 * first write (that query would wait for the lock the write keeps until the answer).
 */
export class IdempotentDriver implements Driver {
  readonly #inner: SqliteDriver;
  readonly #sqlite: SQLite.Database;
  #connection: DatabaseConnection | null = null;
  #open: OpenWrite | null = null;
  #lastPurge = 0;
  /** Prepared on first use: the table exists only once the migrations ran. */
  #statements: ReturnType<typeof markerStatements> | null = null;

  constructor(sqlite: SQLite.Database) {
    this.#sqlite = sqlite;
    this.#inner = new SqliteDriver({ database: sqlite });
  }

  async init(): Promise<void> {
    await this.#inner.init();
  }

  #holder(): WriteScope | null {
    const scope = scopes.getStore();
    return scope && this.#open?.scope === scope ? scope : null;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    // The request holding the open write transaction already has the connection (and its lock).
    if (this.#holder() && this.#connection) return this.#connection;
    const inner = await this.#inner.acquireConnection();
    this.#connection ??= {
      executeQuery: async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
        this.#beforeStatement(query);
        // Kysely's connection, but with statements prepared once per SQL text (statements.ts).
        return executeCompiled<R>(this.#sqlite, query);
      },
      streamQuery: <R>(query: CompiledQuery, chunkSize?: number) => inner.streamQuery<R>(query, chunkSize),
    };
    return this.#connection;
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    // Kept locked until finish/abandon: the write transaction is still open.
    if (this.#holder()) return;
    await this.#inner.releaseConnection();
    void connection;
  }

  async beginTransaction(connection: DatabaseConnection, _settings: TransactionSettings): Promise<void> {
    const scope = scopes.getStore();
    if (scope && this.#open?.scope === scope) {
      if (this.#open.kysely) throw new Error('backend-sim: concurrent transactions in one idempotent write request');
      this.#sqlite.exec(`SAVEPOINT ${SAVEPOINT}`);
      this.#open.kysely = 'savepoint';
      return;
    }
    if (!scope) return this.#inner.beginTransaction(connection);
    this.#sqlite.exec('BEGIN IMMEDIATE');
    this.#startWrite(scope, 'top');
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const open = this.#holder() ? this.#open! : null;
    if (!open) return this.#inner.commitTransaction(connection);
    if (open.kysely === 'savepoint') this.#sqlite.exec(`RELEASE ${SAVEPOINT}`);
    // 'top': the COMMIT waits for the response (finish).
    open.kysely = null;
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const open = this.#holder() ? this.#open! : null;
    if (!open) return this.#inner.rollbackTransaction(connection);
    if (open.kysely === 'savepoint') {
      this.#sqlite.exec(`ROLLBACK TO ${SAVEPOINT}`);
      this.#sqlite.exec(`RELEASE ${SAVEPOINT}`);
      open.kysely = null;
      return;
    }
    // The transaction that opened the write is rolled back: nothing was written, no marker stays.
    this.#open = null;
    open.scope.held.delete(this);
    if (this.#sqlite.inTransaction) this.#sqlite.exec('ROLLBACK');
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return this.#inner.savepoint(connection, name, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return this.#inner.rollbackToSavepoint(connection, name, compile);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return this.#inner.releaseSavepoint(connection, name, compile);
  }

  async destroy(): Promise<void> {
    await this.#inner.destroy();
  }

  /** Inserts the marker with the response and commits write, marker and response at once. */
  finish(scope: WriteScope, outcome: { status: number; contentType: string | null; body: string | null }): void {
    const open = this.#open;
    if (!open || open.scope !== scope) return;
    this.#open = null;
    scope.held.delete(this);
    try {
      if (open.kysely) throw new Error('backend-sim: a transaction of an idempotent write was still running when it answered');
      const markers = this.#markers();
      if (markers.totalChanges.get() === open.changesBefore) {
        // Its only mutation failed (a unique index refused it): nothing to remember, the retry may execute.
        this.#sqlite.exec('ROLLBACK');
        return;
      }
      // An expired marker of the same token is replaced; a live one is left alone (no change).
      const { changes } = markers.record.run(scope.token, scope.method, scope.path, outcome.status, outcome.contentType, outcome.body, open.createdAt, open.createdAt - MARKER_TTL_MS);
      if (changes === 0) {
        // The request hooks replay a recorded token before the handler runs and run one request per
        // token at a time; a live marker here means a second backend process on the same file.
        throw new BackendError('INTERNAL_ERROR', 'Escrita idempotente ja registrada por outra execucao.');
      }
      this.#sqlite.exec('COMMIT');
    } catch (error) {
      if (this.#sqlite.inTransaction) this.#sqlite.exec('ROLLBACK');
      throw error;
    } finally {
      void this.#inner.releaseConnection();
    }
  }

  abandon(scope: WriteScope): void {
    const open = this.#open;
    if (!open || open.scope !== scope) return;
    this.#open = null;
    scope.held.delete(this);
    try {
      if (this.#sqlite.inTransaction) this.#sqlite.exec('ROLLBACK');
    } finally {
      void this.#inner.releaseConnection();
    }
  }

  #markers(): ReturnType<typeof markerStatements> {
    return (this.#statements ??= markerStatements(this.#sqlite));
  }

  /** Autocommit mutations of a request in a WriteScope run inside its write transaction. */
  #beforeStatement(query: CompiledQuery): void {
    const scope = scopes.getStore();
    if (!scope || this.#sqlite.inTransaction) return;
    const kind = query.query.kind;
    if (kind === 'SelectQueryNode') return;
    if (!MUTATIONS.has(kind) && prepared(this.#sqlite, query.sql).readonly) return;
    this.#sqlite.exec('BEGIN IMMEDIATE');
    this.#startWrite(scope, null);
  }

  /** Called right after BEGIN IMMEDIATE: expired markers purged now and then, the state `finish` compares with. */
  #startWrite(scope: WriteScope, kysely: OpenWrite['kysely']): void {
    let createdAt: number;
    let changesBefore: number;
    try {
      const markers = this.#markers();
      createdAt = scope.now();
      if (createdAt - this.#lastPurge > PURGE_EVERY_MS) {
        markers.purge.run(createdAt - MARKER_TTL_MS);
        this.#lastPurge = createdAt;
      }
      changesBefore = markers.totalChanges.get() as number;
    } catch (error) {
      this.#sqlite.exec('ROLLBACK');
      throw error;
    }
    this.#open = { scope, kysely, createdAt, changesBefore };
    scope.held.add(this);
  }
}

function markerStatements(sqlite: SQLite.Database) {
  return {
    record: sqlite.prepare(
      `INSERT INTO idempotency_markers (token, method, path, status, content_type, response, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (token) DO UPDATE SET method = excluded.method, path = excluded.path, status = excluded.status,
         content_type = excluded.content_type, response = excluded.response, created_at = excluded.created_at
       WHERE idempotency_markers.created_at <= ?`,
    ),
    purge: sqlite.prepare('DELETE FROM idempotency_markers WHERE created_at <= ?'),
    totalChanges: sqlite.prepare('SELECT total_changes()').pluck(),
  };
}
