import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// Issue 19: a journal outsiders cannot fill, evict or slip past.
// - audit_log.verified: 1 when the request proved who it was (a verified signature, an operator session
//   or token); 0 for a refusal that only names an existing key (revoked, bad signature, expired timestamp…).
//   Unverified entries are shed before any verified one; verified entries inside the retention are never
//   evicted by volume (server/audit/journal-budget.ts).
// - audit_log.bytes: what the entry weighs against AUDIT_MAX_BYTES (its text plus a fixed overhead).
// - audit_unattributed: requests that name no existing key, one row per (minute, client address,
//   status, error code) with a count and one bounded sample.
// - audit_budget: running totals per class, kept with every batch, so a start never scans the journal.
// - audit_probe: where a journal that failed to commit tests that the file can grow again (empty otherwise).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('audit_log')
    .addColumn('verified', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema
    .alterTable('audit_log')
    .addColumn('bytes', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // Entries of earlier releases: weighed like new ones (ENTRY_OVERHEAD_BYTES = 256) and classified: an
  // API refusal before authentication (401, or no key at all) proved nothing.
  await sql`UPDATE audit_log SET
      bytes = 256 + length(CAST(request_id AS BLOB)) + length(CAST(path AS BLOB)) + length(CAST(client_ip AS BLOB))
        + coalesce(length(CAST(tenant_slug AS BLOB)), 0) + coalesce(length(CAST(error_code AS BLOB)), 0)
        + coalesce(length(CAST(body AS BLOB)), 0) + coalesce(length(CAST(detail AS BLOB)), 0)
        + coalesce(length(CAST(error_message AS BLOB)), 0) + coalesce(length(CAST(response_body AS BLOB)), 0)
        + coalesce(length(CAST(request_headers AS BLOB)), 0),
      verified = CASE WHEN source = 'api' AND (status = 401 OR chave_id IS NULL) THEN 0 ELSE 1 END`.execute(db);
  // Shedding takes the oldest unverified entries: a partial index holds only them (verified rows pay nothing).
  await sql`CREATE INDEX audit_unverified_idx ON audit_log (id) WHERE verified = 0`.execute(db);

  await db.schema
    .createTable('audit_unattributed')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    // `YYYY-MM-DDTHH:MM` of the appliance clock.
    .addColumn('minute', 'text', (c) => c.notNull())
    .addColumn('client_ip', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    // '' when the answer carried no error code.
    .addColumn('error_code', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('first_ts', 'text', (c) => c.notNull())
    .addColumn('last_ts', 'text', (c) => c.notNull())
    // The first request of the group, bounded and redacted like any entry (JSON).
    .addColumn('sample', 'text', (c) => c.notNull())
    .addColumn('bytes', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('audit_unattributed_group_idx')
    .on('audit_unattributed')
    .columns(['minute', 'client_ip', 'status', 'error_code'])
    .unique()
    .execute();

  await db.schema
    .createTable('audit_budget')
    .addColumn('kind', 'text', (c) => c.primaryKey())
    .addColumn('rows', 'integer', (c) => c.notNull())
    .addColumn('bytes', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createTable('audit_probe').addColumn('v', 'blob').execute();
  await sql`INSERT INTO audit_budget (kind, rows, bytes)
    SELECT 'verified', COUNT(*), coalesce(SUM(bytes), 0) FROM audit_log WHERE verified = 1
    UNION ALL SELECT 'unverified', COUNT(*), coalesce(SUM(bytes), 0) FROM audit_log WHERE verified = 0
    UNION ALL SELECT 'unattributed', 0, 0`.execute(db);
}
