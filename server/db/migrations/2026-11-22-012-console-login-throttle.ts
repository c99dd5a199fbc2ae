import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// Console login lockout moves from the account (operators.failed_logins/locked_until, which let anyone
// lock the operator out) to the pair (username, client address): docs/decisions.md § Console login.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('console_login_failures')
    // SHA-256 of the username as typed (known or not: the lockout must not tell them apart).
    .addColumn('username_hash', 'text', (c) => c.notNull())
    // IPv4 address, or the /64 prefix of an IPv6 one.
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('locked_until', 'integer')
    .addColumn('last_failure_at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('console_login_failures_pk', ['username_hash', 'address'])
    .execute();
  await db.schema
    .createIndex('console_login_failures_last_idx')
    .on('console_login_failures')
    .column('last_failure_at')
    .execute();
  await db.schema.alterTable('operators').dropColumn('failed_logins').execute();
  await db.schema.alterTable('operators').dropColumn('locked_until').execute();
}
