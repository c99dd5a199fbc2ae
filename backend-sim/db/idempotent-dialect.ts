import { AsyncLocalStorage } from 'node:async_hooks';
import {
  CRITICAL_PATH_ON,
  reportCriticalPathAtExit,
  stageDone,
  stageStart,
  stageValue,
} from '../../shared-node/critical-path.ts';
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
import { statementSpans, traceStatement } from './sql-spans.ts';

/** Markers are kept as long as the gateway keeps an Idempotency-Key (spec § Idempotency: 24 h). */
export const MARKER_TTL_MS = 24 * 60 * 60 * 1000;
const PURGE_EVERY_MS = 10 * 60 * 1000;
/** A request's part of the shared write transaction. */
const REQUEST_SAVEPOINT = 'escrita_idempotente';
/** A Kysely transaction begun inside a request's part. */
const NESTED_SAVEPOINT = 'idempotent_write';
/** A group commits once it holds this many writes, or is this old, even while requests keep coming. */
const GROUP_MAX_WRITES = 64;
const GROUP_MAX_MS = 20;
const MUTATIONS = new Set(['InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode', 'MergeQueryNode']);

/** What a write request answered, stored with its marker and replayed byte for byte. */
export interface RecordedOutcome {
  method: string;
  path: string;
  /** null only for a marker committed without its answer (before migration 009 a marker was inserted first). */
  status: number | null;
  content_type: string | null;
  response: string | null;
}

/**
 * One backend request executing a write under the gateway's idempotency token. Its statements run in
 * this async context (AsyncLocalStorage); the driver below opens the request's part of the write
 * transaction at its first mutation and keeps it until the response is known, then inserts the marker
 * with the response; write, marker and response commit together or not at all, and `finish` resolves
 * only once they are committed.
 */
export class WriteScope {
  /** Tenant databases where this request's write part is open. */
  readonly held = new Set<IdempotentDriver>();
  /** The commits this request's answer waits for: of each group it wrote in or read uncommitted rows of. */
  readonly commits = new Set<Promise<void>>();

  constructor(
    readonly token: string,
    readonly method: string,
    readonly path: string,
    readonly now: () => number,
  ) {}

  run<T>(fn: () => T): T {
    return scopes.run(this, fn);
  }

  /**
   * Stores the response in the marker and resolves once the request's writes, and every write it read,
   * are committed (rejects if a commit fails: then nothing of the request was committed).
   */
  async finish(outcome: { status: number; contentType: string | null; body: string | null }): Promise<void> {
    const started = stageStart();
    let failure: unknown = null;
    for (const driver of [...this.held]) {
      try {
        driver.finish(this, outcome);
      } catch (error) {
        failure ??= error;
      }
    }
    for (const commit of this.commits) {
      try {
        await commit;
      } catch (error) {
        failure ??= error;
      }
    }
    stageDone('backend.finish_to_committed', started);
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
  return prepared(
    sqlite,
    'SELECT method, path, status, content_type, response FROM idempotency_markers WHERE token = ? AND created_at > ?',
  ).get(token, now - MARKER_TTL_MS) as RecordedOutcome | undefined;
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
  group: CommitGroup;
  /** The Kysely transaction running inside it: the one that opened it ('top'), a nested one ('savepoint'), or none. */
  kysely: 'top' | 'savepoint' | null;
  /** The marker's `created_at`: the clock when the request's part began. */
  createdAt: number;
  /** The connection's total_changes() when the request's part began: unchanged at the answer means nothing was written. */
  changesBefore: number;
}

/** One write transaction shared by the parts of several write requests, committed once for all of them. */
class CommitGroup {
  readonly committed: Promise<void>;
  readonly opened = performance.now();
  /** Requests whose write and marker it holds. */
  writes = 0;
  #settle!: (error: unknown) => void;

  constructor() {
    this.committed = new Promise<void>((resolve, reject) => {
      this.#settle = (error) => (error === null ? resolve() : reject(error));
    });
    // Awaited by the answers that depend on it; one no answer waits for must not be an unhandled rejection.
    this.committed.catch(() => {});
  }

  settle(error: unknown): void {
    this.#settle(error);
  }

  full(): boolean {
    return this.writes >= GROUP_MAX_WRITES || performance.now() - this.opened >= GROUP_MAX_MS;
  }
}

/**
 * Kysely's SQLite driver (one connection, used by one request at a time), plus, for requests in a
 * WriteScope, group commit (issue 25 § 3, decisions P25-B2):
 * - a request's first mutation (a Kysely transaction, or an autocommit statement: doctor create, patient
 *   PATCH) opens its part: a savepoint in the group's write transaction, begun (BEGIN IMMEDIATE) by the
 *   first part. The connection stays with the request (its later queries reuse it, other requests wait)
 *   until `finish` inserts the marker with the response and releases the part (a part that changed
 *   nothing, or fails, is rolled back alone). A transaction begun inside the part is a nested savepoint.
 * - Once released, the group's transaction stays open for the requests that come next: write requests
 *   add their parts, and their reads (which see the group's rows) make their answers wait for its
 *   commit too. It commits when the connection falls idle (at the end of the event-loop turn), when a
 *   read outside a write request needs the connection (so such reads only ever see committed rows), and
 *   at 64 writes or 20 ms. Every answer waits for that COMMIT: a crash before it loses the group's
 *   writes, none of which was answered, and their retries execute them again.
 * Outside a WriteScope (reads, the seed, the admin API, migrations) statements run as with Kysely's
 * driver, after any open group committed. As inside any Kysely transaction on SQLite, a request must
 * not start a query in parallel with its first write (that query would wait for the connection the
 * write keeps until the answer).
 */
export class IdempotentDriver implements Driver {
  readonly #inner: SqliteDriver;
  readonly #sqlite: SQLite.Database;
  readonly #connection: DatabaseConnection;
  /** The connection is with a request (or handed to the next waiter). */
  #busy = false;
  readonly #waiting: Array<() => void> = [];
  /** The open write transaction and what waits for its commit. */
  #group: CommitGroup | null = null;
  #commitSoon: NodeJS.Immediate | null = null;
  /** The request whose part is open: it keeps the connection until its answer. */
  #open: OpenWrite | null = null;
  #lastPurge = 0;
  /** Prepared on first use: the table exists only once the migrations ran. */
  #statements: ReturnType<typeof markerStatements> | null = null;

  constructor(sqlite: SQLite.Database) {
    reportCriticalPathAtExit('backend-sim');
    this.#sqlite = sqlite;
    this.#inner = new SqliteDriver({ database: sqlite });
    this.#connection = {
      executeQuery: async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
        this.#beforeStatement(query);
        // Kysely's connection, but with statements prepared once per SQL text (statements.ts); a span when traced.
        if (statementSpans.on) return traceStatement(query.sql, () => executeCompiled<R>(this.#sqlite, query));
        return executeCompiled<R>(this.#sqlite, query);
      },
      streamQuery: <R>(query: CompiledQuery) => streamRows<R>(this.#sqlite, query),
    };
  }

  async init(): Promise<void> {
    await this.#inner.init();
  }

  #holder(): WriteScope | null {
    const scope = scopes.getStore();
    return scope && this.#open?.scope === scope ? scope : null;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    // The request whose part is open already has the connection.
    if (this.#holder()) return this.#connection;
    if (this.#busy) {
      const waited = stageStart();
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
      stageDone('backend.connection_wait (behind another request)', waited);
    }
    this.#busy = true;
    const group = this.#group;
    if (group) {
      const scope = scopes.getStore();
      // Reads from here on see the group's uncommitted rows: a write request's answer waits for their
      // commit; anything else gets them committed first.
      if (scope) scope.commits.add(group.committed);
      else this.#commit();
    }
    return this.#connection;
  }

  async releaseConnection(): Promise<void> {
    // Kept until finish/abandon: the request's part is still open.
    if (this.#holder()) return;
    this.#release();
  }

  async beginTransaction(connection: DatabaseConnection, _settings: TransactionSettings): Promise<void> {
    const scope = scopes.getStore();
    if (scope && this.#open?.scope === scope) {
      if (this.#open.kysely) throw new Error('backend-sim: concurrent transactions in one idempotent write request');
      this.#sqlite.exec(`SAVEPOINT ${NESTED_SAVEPOINT}`);
      this.#open.kysely = 'savepoint';
      return;
    }
    if (!scope) return this.#inner.beginTransaction(connection);
    this.#startWrite(scope, 'top');
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const open = this.#holder() ? this.#open! : null;
    if (!open) return this.#inner.commitTransaction(connection);
    if (open.kysely === 'savepoint') this.#sqlite.exec(`RELEASE ${NESTED_SAVEPOINT}`);
    // 'top': the part stays open until the answer (finish).
    open.kysely = null;
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const open = this.#holder() ? this.#open! : null;
    if (!open) return this.#inner.rollbackTransaction(connection);
    if (open.kysely === 'savepoint') {
      this.#sqlite.exec(`ROLLBACK TO ${NESTED_SAVEPOINT}`);
      this.#sqlite.exec(`RELEASE ${NESTED_SAVEPOINT}`);
      open.kysely = null;
      return;
    }
    // The transaction that opened the part is rolled back: nothing of the request stays, no marker.
    this.#open = null;
    open.scope.held.delete(this);
    this.#rollbackPart(open);
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return this.#inner.savepoint(connection, name, compile);
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    return this.#inner.rollbackToSavepoint(connection, name, compile);
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    return this.#inner.releaseSavepoint(connection, name, compile);
  }

  async destroy(): Promise<void> {
    // Shutting down: what the group holds was answered by nobody yet; committed, its answers can still leave.
    if (this.#group && !this.#open) this.#commit();
    this.#group?.settle(new Error('backend-sim: the database closed with a write request still running'));
    this.#group = null;
    if (this.#commitSoon) clearImmediate(this.#commitSoon);
    await this.#inner.destroy();
  }

  /** Inserts the marker with the response and releases the request's part (its commit: see CommitGroup). */
  finish(scope: WriteScope, outcome: { status: number; contentType: string | null; body: string | null }): void {
    const open = this.#open;
    if (!open || open.scope !== scope) return;
    this.#open = null;
    scope.held.delete(this);
    try {
      if (open.kysely)
        throw new Error('backend-sim: a transaction of an idempotent write was still running when it answered');
      this.#assertGroupAlive(open.group);
      const markers = this.#markers();
      if (markers.totalChanges.get() === open.changesBefore) {
        // Its only mutation failed (a unique index refused it): nothing to remember, the retry may execute.
        this.#rollbackPart(open);
        return;
      }
      // An expired marker of the same token is replaced; a live one is left alone (no change).
      const { changes } = markers.record.run(
        scope.token,
        scope.method,
        scope.path,
        outcome.status,
        outcome.contentType,
        outcome.body,
        open.createdAt,
        open.createdAt - MARKER_TTL_MS,
      );
      if (changes === 0) {
        // The request hooks replay a recorded token before the handler runs and run one request per
        // token at a time; a live marker here means a second backend process on the same file.
        throw new BackendError('INTERNAL_ERROR', 'Escrita idempotente ja registrada por outra execucao.');
      }
      this.#sqlite.exec(`RELEASE ${REQUEST_SAVEPOINT}`);
      open.group.writes++;
    } catch (error) {
      this.#rollbackPart(open);
      throw error;
    } finally {
      this.#release();
    }
  }

  abandon(scope: WriteScope): void {
    const open = this.#open;
    if (!open || open.scope !== scope) return;
    this.#open = null;
    scope.held.delete(this);
    try {
      this.#rollbackPart(open);
    } finally {
      this.#release();
    }
  }

  #markers(): ReturnType<typeof markerStatements> {
    this.#statements ??= markerStatements(this.#sqlite);
    return this.#statements;
  }

  /** Autocommit mutations of a request in a WriteScope run inside its part. */
  #beforeStatement(query: CompiledQuery): void {
    const scope = scopes.getStore();
    if (!scope || this.#open?.scope === scope) return;
    const kind = query.query.kind;
    if (kind === 'SelectQueryNode') return;
    if (!MUTATIONS.has(kind) && prepared(this.#sqlite, query.sql).readonly) return;
    this.#startWrite(scope, null);
  }

  /** Opens the request's part: in the open group, or in a new one (BEGIN IMMEDIATE: the write lock at once). */
  #startWrite(scope: WriteScope, kysely: OpenWrite['kysely']): void {
    let group = this.#group;
    if (group && !this.#sqlite.inTransaction) {
      // SQLite rolled the group's transaction back by itself (an I/O or disk-full error): its answers fail.
      this.#group = null;
      group.settle(new Error('backend-sim: the write transaction was rolled back by SQLite'));
      group = null;
    }
    if (!group) {
      this.#sqlite.exec('BEGIN IMMEDIATE');
      group = this.#group = new CommitGroup();
    }
    scope.commits.add(group.committed);
    let createdAt: number;
    let changesBefore: number;
    this.#sqlite.exec(`SAVEPOINT ${REQUEST_SAVEPOINT}`);
    try {
      const markers = this.#markers();
      createdAt = scope.now();
      if (createdAt - this.#lastPurge > PURGE_EVERY_MS) {
        markers.purge.run(createdAt - MARKER_TTL_MS);
        this.#lastPurge = createdAt;
      }
      changesBefore = markers.totalChanges.get() as number;
    } catch (error) {
      this.#sqlite.exec(`ROLLBACK TO ${REQUEST_SAVEPOINT}`);
      this.#sqlite.exec(`RELEASE ${REQUEST_SAVEPOINT}`);
      throw error;
    }
    this.#open = { scope, group, kysely, createdAt, changesBefore };
    scope.held.add(this);
  }

  /** Undoes the request's part alone; the group's other parts stay. */
  #rollbackPart(open: OpenWrite): void {
    if (!this.#sqlite.inTransaction) return;
    this.#sqlite.exec(`ROLLBACK TO ${REQUEST_SAVEPOINT}`);
    this.#sqlite.exec(`RELEASE ${REQUEST_SAVEPOINT}`);
    void open;
  }

  #assertGroupAlive(group: CommitGroup): void {
    if (this.#group === group && this.#sqlite.inTransaction) return;
    throw new Error('backend-sim: the write transaction was rolled back by SQLite');
  }

  /** The connection goes to the next request waiting for it; the open group commits now, soon or later. */
  #release(): void {
    const group = this.#group;
    if (group?.full()) this.#commit();
    const next = this.#waiting.shift();
    if (next) {
      next();
      return;
    }
    this.#busy = false;
    if (this.#group && !this.#commitSoon) {
      // Idle: what other requests of this turn of the event loop write joins the group, then it commits.
      this.#commitSoon = setImmediate(() => {
        this.#commitSoon = null;
        if (this.#busy || !this.#group) return; // the request using the connection commits it as it releases
        this.#commit();
      });
    }
  }

  /** Commits the group's transaction (only ever with no part open) and settles its answers. */
  #commit(): void {
    const group = this.#group;
    if (!group) return;
    this.#group = null;
    try {
      if (!this.#sqlite.inTransaction) throw new Error('backend-sim: the write transaction was rolled back by SQLite');
      const started = stageStart();
      this.#sqlite.exec('COMMIT');
      stageDone('backend.group_commit', started);
      if (CRITICAL_PATH_ON) stageValue('backend.group_writes', group.writes);
      group.settle(null);
    } catch (error) {
      if (this.#sqlite.inTransaction) this.#sqlite.exec('ROLLBACK');
      group.settle(error);
    }
  }
}

/** Kysely's SqliteConnection.streamQuery, on the statement cache. */
async function* streamRows<R>(sqlite: SQLite.Database, query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
  const stmt = prepared(sqlite, query.sql);
  if (!stmt.reader) throw new Error('Sqlite driver only supports streaming of select queries');
  for (const row of stmt.iterate(query.parameters as unknown[])) yield { rows: [row as R] };
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
