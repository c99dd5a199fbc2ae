import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../dialect.ts';

// Frozen: never edit a migration that has shipped; add a new one.
// Issue 30 § Ephemeral clinics, on both databases:
// - tenants.template: the clinic (and snapshot, `slug@name`) a clone was copied from; null for a permanent clinic.
// - tenants.expires_at: when the sweeper drops the clone (ISO 8601 UTC, appliance clock); null: never.
// - tenants.created_by_token_id: the operator token that cloned it (that token may then act on it).
// - tenants.dropping_at: set by the gateway that claimed the drop (a claim older than a minute is taken over, so
//   a gateway that died half-way leaves nothing behind); every key of a clinic being dropped is refused.
// - operator_tokens.can_clone: the token may create ephemeral clinics from the clinics it is bound to.
export async function up(db: Kysely<unknown>): Promise<void> {
  // PostgreSQL compares the times as text in the C collation, like every other time column of its baseline.
  const time = isPostgres(db) ? sql`text COLLATE "C"` : sql`text`;
  await db.schema.alterTable('tenants').addColumn('template', 'text').execute();
  await db.schema.alterTable('tenants').addColumn('expires_at', time).execute();
  await db.schema.alterTable('tenants').addColumn('created_by_token_id', 'integer').execute();
  await db.schema.alterTable('tenants').addColumn('dropping_at', time).execute();
  await db.schema.createIndex('tenants_expires_idx').on('tenants').column('expires_at').execute();
  await db.schema
    .alterTable('operator_tokens')
    .addColumn('can_clone', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
