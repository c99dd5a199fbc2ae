import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// Issue 19: an operator token is bound to clinics and expires.
// - tenants: JSON array of the clinic slugs it may reset (slugs never change); all_tenants = 1 for "*".
// - expires_at: ISO 8601 UTC. The column default is the epoch, so a row written without one is expired:
//   the gateway always writes it (OPERATOR_TOKEN_DEFAULT_DAYS, at most OPERATOR_TOKEN_MAX_DAYS).
// Tokens issued before this release opened every clinic and never expired: they keep every clinic for
// 30 days from this migration, then expire (docs/decisions.md § Tenant reset and operator tokens).
export const MIGRATED_TOKEN_DAYS = 30;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('operator_tokens')
    .addColumn('tenants', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
  await db.schema
    .alterTable('operator_tokens')
    .addColumn('all_tenants', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('operator_tokens')
    .addColumn('expires_at', 'text', (c) => c.notNull().defaultTo('1970-01-01T00:00:00.000Z'))
    .execute();
  const expiresAt = new Date(Date.now() + MIGRATED_TOKEN_DAYS * 86_400_000).toISOString();
  await sql`UPDATE operator_tokens SET all_tenants = 1, expires_at = ${expiresAt}`.execute(db);
}
