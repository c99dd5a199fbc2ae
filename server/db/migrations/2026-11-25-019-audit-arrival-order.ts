import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// Issue 22: the console lists the journal in arrival order (id), not by ts. ts is the appliance clock,
// which an operator moves ahead and back: rows written while it was shifted carry later times than rows
// written after it was reset, so (ts, id) put them above newer ones. Each filter's index now ends in id
// instead of ts (SQLite appends the rowid to an index anyway: (tenant_id, id) walks one clinic newest
// first without a sort). As many indexes as before, so a request pays no more to be journaled.
// audit_ts_idx stays: the retention purge and the console's time range read it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('audit_tenant_ts_idx').execute();
  await db.schema.dropIndex('audit_key_ts_idx').execute();
  await db.schema.dropIndex('audit_status_ts_idx').execute();
  await db.schema.dropIndex('audit_error_ts_idx').execute();
  await db.schema.createIndex('audit_tenant_id_idx').on('audit_log').columns(['tenant_id', 'id']).execute();
  await db.schema.createIndex('audit_key_id_idx').on('audit_log').columns(['chave_id', 'id']).execute();
  // Errors only, as in migration 015: a success is not selective and pages through the primary key.
  await db.schema
    .createIndex('audit_status_id_idx')
    .on('audit_log')
    .columns(['status', 'id'])
    .where(sql.ref('status'), '>=', 400)
    .execute();
  await db.schema
    .createIndex('audit_error_id_idx')
    .on('audit_log')
    .columns(['error_code', 'id'])
    .where(sql.ref('error_code'), 'is not', null)
    .execute();
}
