import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Selectable } from 'kysely';
import type { AuditUnattributedTable } from '../../server/db/tables/audit-log.ts';
import type { TestStack } from './stack.ts';
import { IdempotencyStore, type IdempotencyEntries } from '../../server/idempotency/idempotency.store.ts';
import { PostgresIdempotencyStore } from '../../server/idempotency/postgres-idempotency.store.ts';
import { loadMasterKey } from '../../server/keys/secret-box.ts';

/** A row of audit_unattributed, its sample parsed. */
export type UnattributedGroup = Omit<Selectable<AuditUnattributedTable>, 'sample'> & { sample: Record<string, any> };

// The synchronous helpers read gateway.db (the SQLite-only tests); the asynchronous ones below work on both databases.

/** Every audit_log row (verified and unverified entries), after committing what is queued. */
export function journalRows(stack: Pick<TestStack, 'app' | 'gatewayDb'>): Array<Record<string, any>> {
  stack.app.auditWriter.flush();
  return stack.gatewayDb.sqlite.prepare('SELECT * FROM audit_log ORDER BY id').all() as Array<Record<string, any>>;
}

/** The audit_log row of one request, if it has one. */
export function journalRow(
  stack: Pick<TestStack, 'app' | 'gatewayDb'>,
  requestId: string,
): Record<string, any> | undefined {
  stack.app.auditWriter.flush();
  return stack.gatewayDb.sqlite.prepare('SELECT * FROM audit_log WHERE request_id = ?').get(requestId) as
    | Record<string, any>
    | undefined;
}

/** The unattributed groups (requests naming no existing key), samples parsed, after committing what is queued. */
export function unattributedGroups(
  stack: Pick<TestStack, 'app' | 'gatewayDb'>,
  filter: { status?: number; error_code?: string } = {},
): UnattributedGroup[] {
  stack.app.auditWriter.flush();
  return groupsOf(
    stack.gatewayDb.sqlite.prepare('SELECT * FROM audit_unattributed ORDER BY id').all() as Array<
      Omit<UnattributedGroup, 'sample'> & { sample: string }
    >,
    filter,
  );
}

function groupsOf(
  rows: Array<Omit<UnattributedGroup, 'sample'> & { sample: string }>,
  filter: { status?: number; error_code?: string },
): UnattributedGroup[] {
  return rows
    .map((row) => ({ ...row, sample: JSON.parse(row.sample) as Record<string, any> }))
    .filter(
      (g) =>
        (filter.status === undefined || g.status === filter.status) &&
        (filter.error_code === undefined || g.error_code === filter.error_code),
    );
}

/** How many requests the unattributed groups counted for a status and code (every minute and address). */
export function unattributedCount(
  stack: Pick<TestStack, 'app' | 'gatewayDb'>,
  filter: { status?: number; error_code?: string } = {},
): number {
  return unattributedGroups(stack, filter).reduce((sum, g) => sum + g.count, 0);
}

/**
 * The gateway's state as it rests, for byte searches: gateway.db and its WAL (after a passive checkpoint), or on
 * PostgreSQL every row of every gateway table as text (what a dump of the database holds).
 */
export async function gatewayStateAtRest(stack: Pick<TestStack, 'app' | 'database' | 'dataDir'>): Promise<Buffer> {
  await stack.app.auditWriter.flush();
  const { database } = stack;
  if (database.kind === 'sqlite') {
    database.sqlite.pragma('wal_checkpoint(PASSIVE)');
    return Buffer.concat(
      ['gateway.db', 'gateway.db-wal']
        .map((f) => path.join(stack.dataDir, f))
        .filter((f) => existsSync(f))
        .map((f) => readFileSync(f)),
    );
  }
  const { rows: tables } = await database.pool.query<{ tablename: string }>(
    'SELECT tablename FROM pg_tables WHERE schemaname = current_schema()',
  );
  const parts: Buffer[] = [];
  for (const { tablename } of tables) {
    const { rows } = await database.pool.query(`SELECT * FROM "${tablename}"`);
    for (const row of rows)
      for (const value of Object.values(row)) parts.push(Buffer.isBuffer(value) ? value : Buffer.from(String(value)));
  }
  return Buffer.concat(parts);
}

/**
 * Rows of a query on the gateway's database, whichever it is (`?` placeholders, rewritten for PostgreSQL), after
 * committing what the journal has queued: for tests that run in both projects.
 */
export async function gatewayRows<T = Record<string, any>>(
  stack: Pick<TestStack, 'app' | 'database'>,
  query: string,
  ...parameters: unknown[]
): Promise<T[]> {
  await stack.app.auditWriter.flush();
  const { database } = stack;
  if (database.kind === 'sqlite') {
    const statement = database.sqlite.prepare(query);
    if (statement.reader) return statement.all(...parameters) as T[];
    statement.run(...parameters);
    return [];
  }
  let n = 0;
  return (
    await database.pool.query(
      query.replace(/\?/g, () => `$${++n}`),
      parameters,
    )
  ).rows as T[];
}

/** The journal's entries (verified and unverified) in arrival order, on either database. */
export const journalEntries = (stack: Pick<TestStack, 'app' | 'database'>) =>
  gatewayRows(stack, 'SELECT * FROM audit_log ORDER BY id');

/** The journal entry of one request, if it has one, on either database. */
export const journalEntry = async (stack: Pick<TestStack, 'app' | 'database'>, requestId: string) =>
  (await gatewayRows(stack, 'SELECT * FROM audit_log WHERE request_id = ?', requestId))[0] as
    | Record<string, any>
    | undefined;

/** The unattributed groups, samples parsed, on either database. */
export async function journalGroups(
  stack: Pick<TestStack, 'app' | 'database'>,
  filter: { status?: number; error_code?: string } = {},
): Promise<UnattributedGroup[]> {
  return groupsOf(
    await gatewayRows<Omit<UnattributedGroup, 'sample'> & { sample: string }>(
      stack,
      'SELECT * FROM audit_unattributed ORDER BY id',
    ),
    filter,
  );
}

/**
 * The stack's idempotency store as an earlier process of the same gateway would have opened it (a request "of a
 * process that died"): on PostgreSQL under the stack's own instance id, whose restart frees what it left.
 */
export function idempotencyStoreOf(
  stack: Pick<TestStack, 'database' | 'dataDir' | 'config'>,
  leaseMs = 45_000,
): IdempotencyEntries {
  const masterKey = loadMasterKey(stack.dataDir);
  const { database } = stack;
  return database.kind === 'sqlite'
    ? new IdempotencyStore(database.sqlite, leaseMs, masterKey)
    : new PostgresIdempotencyStore(database.pool, { leaseMs, masterKey, instanceId: stack.config.instance.id });
}
