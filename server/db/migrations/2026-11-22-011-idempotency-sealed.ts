import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// Cached write responses hold patient data (CPF, e-mail, phones, RG, birth date): from now on they are
// sealed (AES-256-GCM under a subkey of the master key) into response_sealed, and body_hash holds a keyed
// fingerprint instead of a bare SHA-256. Rows written before (seal_version 0) are sealed in place by the
// store when it opens (IdempotencyStore.sealLegacyRows): this migration has no access to the master key.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('idempotency_keys').addColumn('response_sealed', 'blob').execute();
  await db.schema
    .alterTable('idempotency_keys')
    .addColumn('seal_version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
