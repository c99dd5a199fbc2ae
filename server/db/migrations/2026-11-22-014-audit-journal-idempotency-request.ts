import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// Issue 14: the audit log becomes a request journal (error message, redacted response body, request
// headers without signing material), and an idempotency entry names the request that executed it
// (the cached envelope's meta.request_id is sealed; the inspector shows metadata without decrypting).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('audit_log').addColumn('error_message', 'text').execute();
  await db.schema.alterTable('audit_log').addColumn('response_body', 'text').execute();
  await db.schema.alterTable('audit_log').addColumn('request_headers', 'text').execute();
  await db.schema.alterTable('idempotency_keys').addColumn('request_id', 'text').execute();
}
