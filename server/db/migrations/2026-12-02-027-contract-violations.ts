import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../dialect.ts';

// Frozen: never edit a migration that has shipped; add a new one.
// Issue 33 § The contract guard, on both databases: one row per operation and rule the guard (npm run proxy) saw
// violated, with its count, first and last time (ISO 8601 UTC, appliance clock), the last value seen (redacted: a type
// and size, a status or a contract code) and the last entry's request_id (the journal keeps the entries themselves,
// under its own retention and budget). Rules are paths of the contract, so the table has a bound: the contract's size.
export async function up(db: Kysely<unknown>): Promise<void> {
  const time = isPostgres(db) ? sql`text COLLATE "C"` : sql`text`;
  await db.schema
    .createTable('contract_violations')
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('rule', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('first_seen', time, (c) => c.notNull())
    .addColumn('last_seen', time, (c) => c.notNull())
    .addColumn('last_value', 'text', (c) => c.notNull())
    .addColumn('last_request_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('contract_violations_pk', ['operation', 'rule'])
    .execute();
}
