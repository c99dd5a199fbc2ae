import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, type MigrationProvider, type Transaction } from 'kysely';
import type { TenantsTable } from './tables/tenants.ts';
import type { ApiKeysTable } from './tables/api-keys.ts';
import type { OperatorsTable } from './tables/operators.ts';
import type { AuditBudgetTable, AuditLogTable, AuditUnattributedTable } from './tables/audit-log.ts';
import type { IdempotencyKeysTable } from './tables/idempotency-keys.ts';
import type { OperatorSessionsTable } from './tables/operator-sessions.ts';
import type { ConsoleLoginFailuresTable } from './tables/console-login-failures.ts';
import type { OperatorTokensTable } from './tables/operator-tokens.ts';
import { migrations } from './migrations/index.ts';
import { ensurePrivateDir, restrictDatabaseFiles } from '../secrets-files.ts';

export interface Database {
  tenants: TenantsTable;
  api_keys: ApiKeysTable;
  operators: OperatorsTable;
  audit_log: AuditLogTable;
  audit_unattributed: AuditUnattributedTable;
  audit_budget: AuditBudgetTable;
  idempotency_keys: IdempotencyKeysTable;
  operator_sessions: OperatorSessionsTable;
  console_login_failures: ConsoleLoginFailuresTable;
  operator_tokens: OperatorTokensTable;
}

export type GatewayDb = Kysely<Database>;
/** Repositories take either the database or a transaction. */
export type DbOrTrx = Kysely<Database> | Transaction<Database>;

export interface OpenedGatewayDb {
  db: GatewayDb;
  sqlite: SQLite.Database;
  close(): Promise<void>;
}

export async function openGatewayDb(dataDir: string): Promise<OpenedGatewayDb> {
  ensurePrivateDir(dataDir);
  const file = path.join(dataDir, 'gateway.db');
  const sqlite = new SQLite(file);
  // Owner-only before anything is written (and 0644 files of earlier releases): SQLite creates the
  // -wal and -shm with the database file's mode, whatever the umask.
  restrictDatabaseFiles(file);
  // WAL + synchronous=NORMAL: committed transactions survive a process crash.
  sqlite.pragma('journal_mode = WAL');
  // Deleted rows (purged audit entries, expired idempotency records) are zeroed, not left in free pages.
  sqlite.pragma('secure_delete = ON');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  await migrateToLatest(db);
  return { db, sqlite, close: () => db.destroy() };
}

const provider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrateToLatest(db: Kysely<any>): Promise<void> {
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`gateway.db migration failed${failed ? ` at ${failed.migrationName}` : ''}: ${String(error)}`);
  }
}

export const nowIso = (): string => new Date().toISOString();
