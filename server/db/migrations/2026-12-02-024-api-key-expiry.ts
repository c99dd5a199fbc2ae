import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../dialect.ts';

// Frozen: never edit a migration that has shipped; add a new one.
// Issue 31 § Keys that expire, on both databases: api_keys.expires_at (ISO 8601 UTC with milliseconds, appliance
// clock; null: never). A key past it is refused as AUTH_KEY_REVOKED with a message saying it expired; rotation keeps
// it. The index serves the alerts' "expires within 7 days" and the keys list's "expiring" filter.
export async function up(db: Kysely<unknown>): Promise<void> {
  // PostgreSQL compares the times as text in the C collation, like every other time column of its baseline.
  const time = isPostgres(db) ? sql`text COLLATE "C"` : sql`text`;
  await db.schema.alterTable('api_keys').addColumn('expires_at', time).execute();
  await db.schema.createIndex('api_keys_expires_idx').on('api_keys').column('expires_at').execute();
}
