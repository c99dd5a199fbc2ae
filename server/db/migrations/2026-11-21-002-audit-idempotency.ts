import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('ts', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull().defaultTo('api'))
    .addColumn('tenant_id', 'integer')
    .addColumn('tenant_slug', 'text')
    .addColumn('chave_id', 'integer')
    .addColumn('operator_id', 'integer')
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('duracao_ms', 'integer', (c) => c.notNull())
    .addColumn('client_ip', 'text', (c) => c.notNull())
    .addColumn('body', 'text')
    .addColumn('detail', 'text')
    .execute();
  // Filters of the console's audit browser, each ending in ts (newest first, keyset pagination on id).
  await db.schema.createIndex('audit_ts_idx').on('audit_log').columns(['ts']).execute();
  await db.schema.createIndex('audit_tenant_ts_idx').on('audit_log').columns(['tenant_id', 'ts']).execute();
  await db.schema.createIndex('audit_key_ts_idx').on('audit_log').columns(['chave_id', 'ts']).execute();
  await db.schema.createIndex('audit_request_id_idx').on('audit_log').column('request_id').execute();
  await db.schema.createIndex('audit_status_ts_idx').on('audit_log').columns(['status', 'ts']).execute();
  await db.schema.createIndex('audit_error_ts_idx').on('audit_log').columns(['error_code', 'ts']).execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('chave_id', 'integer', (c) => c.notNull())
    .addColumn('idem_key', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('body_hash', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('lease_until', 'integer', (c) => c.notNull())
    .addColumn('status', 'integer')
    .addColumn('response_headers', 'text')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['chave_id', 'idem_key', 'method', 'path'])
    .execute();
  await db.schema.createIndex('idempotency_expires_idx').on('idempotency_keys').column('expires_at').execute();
}
