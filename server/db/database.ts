import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, type Migration, type MigrationProvider, type Transaction } from 'kysely';
import type { TenantsTable } from './tables/tenants.ts';
import type { ApiKeysTable } from './tables/api-keys.ts';
import type { OperatorsTable } from './tables/operators.ts';
import type { AuditBudgetTable, AuditLogTable, AuditUnattributedTable } from './tables/audit-log.ts';
import type { JournalMinuteCodesTable, JournalMinutesTable } from './tables/journal-minutes.ts';
import type { IdempotencyKeysTable } from './tables/idempotency-keys.ts';
import type { OperatorSessionsTable } from './tables/operator-sessions.ts';
import type { ConsoleLoginFailuresTable } from './tables/console-login-failures.ts';
import type { OperatorTokensTable } from './tables/operator-tokens.ts';
import type { RateLimitBucketsTable, StorageFaultsTable } from './tables/cluster.ts';
import type { ContractViolationsTable } from './tables/contract-violations.ts';
import { sqliteMigrations } from './migrations/index.ts';
import { ensurePrivateDir, restrictDatabaseFiles } from '../secrets-files.ts';

export interface Database {
  tenants: TenantsTable;
  api_keys: ApiKeysTable;
  operators: OperatorsTable;
  audit_log: AuditLogTable;
  audit_unattributed: AuditUnattributedTable;
  audit_budget: AuditBudgetTable;
  /** The journal's rollup per clinic, key and minute (migration 026, server/audit/journal-rollup.ts). */
  journal_minutes: JournalMinutesTable;
  journal_minute_codes: JournalMinuteCodesTable;
  idempotency_keys: IdempotencyKeysTable;
  operator_sessions: OperatorSessionsTable;
  console_login_failures: ConsoleLoginFailuresTable;
  operator_tokens: OperatorTokensTable;
  /** PostgreSQL only (migration 021): presign faults shared by the instances (server/storage/storage-faults.ts). */
  storage_faults: StorageFaultsTable;
  /** PostgreSQL only (migration 021): the cluster's rate-limit buckets (server/rate-limit/cluster-limiter.ts). */
  rate_limit_buckets: RateLimitBucketsTable;
  /** Migration 027: what the contract guard saw violated, per operation and rule (server/proxy/contract-store.ts). */
  contract_violations: ContractViolationsTable;
}

export type GatewayDb = Kysely<Database>;
/** Repositories take either the database or a transaction. */
export type DbOrTrx = Kysely<Database> | Transaction<Database>;

/** gateway.db opened (server/db/gateway-database.ts has the PostgreSQL twin and the one entry point for both). */
export interface OpenedGatewayDb {
  kind: 'sqlite';
  db: GatewayDb;
  /** The same connection, for the synchronous hot paths (idempotency reservation, audit batches, key lookups). */
  sqlite: SQLite.Database;
  close(): Promise<void>;
}

/** gateway.db under DATA_DIR, migrated (one gateway process owns it). */
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
  return { kind: 'sqlite', db, sqlite, close: () => db.destroy() };
}

/** Applies the migrations not yet applied, in name order (`migrations`: SQLite's list unless told). */
export async function migrateToLatest<DB>(
  db: Kysely<DB>,
  migrations: Record<string, Migration> = sqliteMigrations,
  name = 'gateway.db',
): Promise<void> {
  const provider: MigrationProvider = { getMigrations: async () => migrations };
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`${name} migration failed${failed ? ` at ${failed.migrationName}` : ''}: ${String(error)}`);
  }
}

export const nowIso = (): string => new Date().toISOString();
