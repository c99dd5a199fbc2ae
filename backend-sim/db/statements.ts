import type SQLite from 'better-sqlite3';
import { CompiledQuery, type Kysely, type QueryResult } from 'kysely';

/**
 * Prepared statements kept per connection, keyed by SQL text: better-sqlite3 prepares afresh on every
 * `prepare()` (and Kysely's driver calls it for every query), which costs more than running a short
 * list query. Bounded, least recently used out: SQL texts vary with optional filters and `IN (...)` sizes.
 */
const MAX_STATEMENTS = 300;
const caches = new WeakMap<SQLite.Database, Map<string, SQLite.Statement>>();

export function prepared(sqlite: SQLite.Database, sql: string): SQLite.Statement {
  let cache = caches.get(sqlite);
  if (!cache) {
    cache = new Map();
    caches.set(sqlite, cache);
  }
  let stmt = cache.get(sql);
  if (stmt) {
    // Re-inserted: Map keeps insertion order, so the first key is the least recently used.
    cache.delete(sql);
  } else {
    stmt = sqlite.prepare(sql);
    if (cache.size >= MAX_STATEMENTS) cache.delete(cache.keys().next().value!);
  }
  cache.set(sql, stmt);
  return stmt;
}

/** What Kysely's SqliteConnection.executeQuery does, with the statement from the cache. */
export function executeCompiled<R>(sqlite: SQLite.Database, query: CompiledQuery): QueryResult<R> {
  const stmt = prepared(sqlite, query.sql);
  const parameters = query.parameters as unknown[];
  if (stmt.reader) return { rows: stmt.all(parameters) as R[] };
  const { changes, lastInsertRowid } = stmt.run(parameters);
  return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
}

/**
 * Rows of a hand-written statement, run through Kysely (its connection lock, so never inside another
 * request's open write transaction) without building and compiling a query tree: for the list
 * queries, where that costs as much as running them. `db` may be a connection held for several queries.
 */
export async function queryRows<R>(
  db: Pick<Kysely<unknown>, 'executeQuery'>,
  sql: string,
  parameters: readonly unknown[],
): Promise<R[]> {
  return (await db.executeQuery<R>(CompiledQuery.raw(sql, [...parameters]))).rows;
}
