import { sql, type Kysely, type Migration } from 'kysely';

// Frozen. List endpoints only ever read live rows, so partial indexes on `excluido_em IS NULL`
// let counts and "newest first" pages on million-row tenants avoid the table; they replace the
// full-table date/doctor indexes of the initial migration.
const statements = [
  'DROP INDEX IF EXISTS exames_data',
  'DROP INDEX IF EXISTS exames_medico_exame',
  'DROP INDEX IF EXISTS exames_medico_laudo',
  'DROP INDEX IF EXISTS exames_solicitante',
  'CREATE INDEX exames_vivos_data ON exames (data_realizado, id) WHERE excluido_em IS NULL',
  'CREATE INDEX exames_vivos_medico_exame ON exames (medico_exame_id, data_realizado) WHERE excluido_em IS NULL',
  'CREATE INDEX exames_vivos_medico_laudo ON exames (medico_laudo_id, data_realizado) WHERE excluido_em IS NULL',
  'CREATE INDEX exames_vivos_solicitante ON exames (medico_solicitante_id, data_realizado) WHERE excluido_em IS NULL',
  'DROP INDEX IF EXISTS laudos_data',
  'CREATE INDEX laudos_vivos_data ON laudos (data_laudo, id) WHERE excluido_em IS NULL',
  'CREATE INDEX laudos_assinados ON laudos (exame_id) WHERE assinado = 1 AND excluido_em IS NULL',
];

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of statements) await sql.raw(statement).execute(db);
  },
};
