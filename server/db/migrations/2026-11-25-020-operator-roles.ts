import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// Issue 22 § 6: operator accounts with roles.
// - role: 'admin' (everything) or 'viewer' (read-only). Every operator that exists before this migration
//   was the appliance's full-access account, so each becomes an admin: nobody loses access on upgrade.
// - disabled_at: set when an admin disables the account; its sessions and tokens stop working and it
//   cannot sign in. NULL = active.
// - password_changed_at: the last change or reset (the Operators screen shows it); NULL = never since creation.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('operators')
    .addColumn('role', 'text', (c) => c.notNull().defaultTo('admin').check(sql`role IN ('admin', 'viewer')`))
    .execute();
  await db.schema.alterTable('operators').addColumn('disabled_at', 'text').execute();
  await db.schema.alterTable('operators').addColumn('password_changed_at', 'text').execute();
}
