import { sql, type Kysely, type Migration } from 'kysely';

// Frozen. Whether the external report center answers: when it does not, deleting an exam
// exported to it cannot be synchronized and is refused (502 BACKEND_CENTRAL_SYNC).
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw('ALTER TABLE clinica_config ADD COLUMN central_laudos_disponivel INTEGER NOT NULL DEFAULT 1')
      .execute(db);
  },
};
