import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// An Idempotency-Key is bound to the operation the router resolved (issue 20): verb, route pattern and the
// parsed path values, e.g. ["POST","/v1/pacientes/:id/prontuarios",{"id":1}]. /1/ and /%31/ are then one
// operation, and the key reused by the same API key on another operation is a conflict (spec: scope per API
// key), where the raw path made them separate entries. Rows already written keep NULL: this migration cannot
// know which route their raw path reached, so they answer only their own verb and raw path until they
// expire (24 h). No index: lookups go by (chave_id, idem_key), the start of the primary key.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('idempotency_keys').addColumn('operation', 'text').execute();
}
