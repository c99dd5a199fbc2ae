import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../dialect.ts';

// Frozen: never edit a migration that has shipped; add a new one.
// Issue 31 § Charts and § Alerts, on both databases: the journal's rollup per clinic, key and minute, kept by the
// journal's batch commit in the same transaction as the entries it counts (server/audit/journal-rollup.ts), for
// `source = 'api'` entries with a clinic. Rows older than 25 hours are swept by the same commits.
// - journal_minutes: calls per status class and a latency histogram (journal-rollup.ts LATENCY_BOUNDS_MS:
//   lat0 ≤ 5 ms … lat10 ≤ 10 s, lat11 beyond), so p50/p95 are interpolated from it. chave_id 0: no key named;
//   chave_id -1: the clinic's own row, the sum of its others, so a clinic's chart reads one row a minute.
// - journal_minute_codes: refusals (status ≥ 400) per error code ('' when the answer carried none).
// `minute` is `YYYY-MM-DDTHH:MM` on the appliance clock, like audit_unattributed's.
const LATENCY_COLUMNS = Array.from({ length: 12 }, (_, i) => `lat${i}`);

export async function up(db: Kysely<unknown>): Promise<void> {
  const minute = isPostgres(db) ? sql`text COLLATE "C"` : sql`text`;
  let table = db.schema
    .createTable('journal_minutes')
    .addColumn('tenant_id', 'integer', (c) => c.notNull())
    .addColumn('chave_id', 'integer', (c) => c.notNull())
    .addColumn('minute', minute, (c) => c.notNull())
    .addColumn('calls', 'integer', (c) => c.notNull())
    .addColumn('s2xx', 'integer', (c) => c.notNull())
    .addColumn('s3xx', 'integer', (c) => c.notNull())
    .addColumn('s4xx', 'integer', (c) => c.notNull())
    .addColumn('s5xx', 'integer', (c) => c.notNull());
  for (const column of LATENCY_COLUMNS) table = table.addColumn(column, 'integer', (c) => c.notNull());
  // The index on minute serves the sweep and the alerts (every clinic's last minutes).
  // gateway.db: the rows live in their primary key's b-tree (one b-tree to upsert, no lookup from index to row).
  const rowsInKey = isPostgres(db) ? sql`` : sql`WITHOUT ROWID`;
  // The primary key serves the charts (a clinic's own row or a key's, over a range of minutes).
  await table
    .addPrimaryKeyConstraint('journal_minutes_pk', ['tenant_id', 'chave_id', 'minute'])
    .modifyEnd(rowsInKey)
    .execute();
  await db.schema.createIndex('journal_minutes_minute_idx').on('journal_minutes').column('minute').execute();
  // The clinic's keys over the last hour (the keys list's sparklines).
  await db.schema
    .createIndex('journal_minutes_tenant_idx')
    .on('journal_minutes')
    .columns(['tenant_id', 'minute'])
    .execute();
  await db.schema
    .createTable('journal_minute_codes')
    .addColumn('tenant_id', 'integer', (c) => c.notNull())
    .addColumn('chave_id', 'integer', (c) => c.notNull())
    .addColumn('minute', minute, (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('journal_minute_codes_pk', ['tenant_id', 'chave_id', 'minute', 'code'])
    .modifyEnd(rowsInKey)
    .execute();
  await db.schema.createIndex('journal_minute_codes_minute_idx').on('journal_minute_codes').column('minute').execute();
}
