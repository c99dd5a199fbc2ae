import type { Migration } from 'kysely';
import * as m001 from './2026-11-21-001-tenants-keys-operators.ts';
import * as m002 from './2026-11-21-002-audit-idempotency.ts';
import * as m010 from './2026-11-21-010-operator-sessions.ts';
import * as m011 from './2026-11-22-011-idempotency-sealed.ts';
import * as m012 from './2026-11-22-012-console-login-throttle.ts';
import * as m013 from './2026-11-22-013-operator-tokens.ts';
import * as m014 from './2026-11-22-014-audit-journal-idempotency-request.ts';
import * as m015 from './2026-11-22-015-audit-error-indexes-partial.ts';
import * as m016 from './2026-11-25-016-journal-budget.ts';
import * as m017 from './2026-11-25-017-operator-token-scope.ts';
import * as m018 from './2026-11-25-018-idempotency-operation.ts';
import * as m019 from './2026-11-25-019-audit-arrival-order.ts';
import * as m020 from './2026-11-25-020-operator-roles.ts';
import * as m021 from './2026-11-26-021-instances.ts';
import * as m022 from './2026-11-28-022-rate-take-many.ts';
import * as m023 from './2026-12-02-023-ephemeral-clinics.ts';
import * as m024 from './2026-12-02-024-api-key-expiry.ts';
import * as m025 from './2026-12-02-025-journal-trace-id.ts';
import * as m026 from './2026-12-02-026-journal-minutes.ts';
import * as m027 from './2026-12-02-027-contract-violations.ts';
import * as m028 from './2026-12-03-028-rate-leases.ts';
import * as postgresBaseline from './postgres/2026-11-26-000-postgres-baseline.ts';

/**
 * Migrations from 021 on are dialect-aware: one file for both databases (server/db/dialect.ts isPostgres where
 * they differ). Listed in both lists below.
 */
const dialectAware: Record<string, Migration> = {
  '2026-11-26-021-instances': m021,
  '2026-11-28-022-rate-take-many': m022,
  '2026-12-02-023-ephemeral-clinics': m023,
  '2026-12-02-024-api-key-expiry': m024,
  '2026-12-02-025-journal-trace-id': m025,
  '2026-12-02-026-journal-minutes': m026,
  '2026-12-02-027-contract-violations': m027,
  '2026-12-03-028-rate-leases': m028,
};

/** gateway.db (SQLite): date-prefixed, applied in name order by Kysely's Migrator. */
export const sqliteMigrations: Record<string, Migration> = {
  '2026-11-21-001-tenants-keys-operators': m001,
  '2026-11-21-002-audit-idempotency': m002,
  '2026-11-21-010-operator-sessions': m010,
  '2026-11-22-011-idempotency-sealed': m011,
  '2026-11-22-012-console-login-throttle': m012,
  '2026-11-22-013-operator-tokens': m013,
  '2026-11-22-014-audit-journal-idempotency-request': m014,
  '2026-11-22-015-audit-error-indexes-partial': m015,
  '2026-11-25-016-journal-budget': m016,
  '2026-11-25-017-operator-token-scope': m017,
  '2026-11-25-018-idempotency-operation': m018,
  '2026-11-25-019-audit-arrival-order': m019,
  '2026-11-25-020-operator-roles': m020,
  ...dialectAware,
};

/** The SQLite list under its earlier name. */
export const migrations = sqliteMigrations;

/**
 * PostgreSQL (DATABASE_URL): support starts at issue 24 with a baseline that creates, at once, the schema SQLite
 * reached through 001-020; then the same dialect-aware migrations as SQLite.
 */
export const postgresMigrations: Record<string, Migration> = {
  '2026-11-26-000-postgres-baseline': postgresBaseline,
  ...dialectAware,
};
