import { sql, type Kysely, type Migration } from 'kysely';

// Frozen. The name search index (migration 005) updated in batches: an FTS5 write flushes a new index
// segment at every commit, which made a patient create ~0.2 ms slower. Patient writes now only note the
// id in `pacientes_nome_busca_fila`, with the name the index still holds for it (NULL: none); the queue
// is applied to the index when it reaches 64 entries (trigger below) and before any search reads the
// index (backend-sim/db/derived.ts, flushSearchQueue), so a search never sees a stale entry.
const APPLY = `
  INSERT INTO pacientes_nome_busca (pacientes_nome_busca, rowid, nome)
    SELECT 'delete', id, nome_indexado FROM pacientes_nome_busca_fila WHERE nome_indexado IS NOT NULL;
  INSERT INTO pacientes_nome_busca (rowid, nome)
    SELECT p.id, p.nome FROM pacientes_nome_busca_fila f JOIN pacientes p ON p.id = f.id;
  DELETE FROM pacientes_nome_busca_fila;`;

const statements = [
  'DROP TRIGGER pacientes_nome_busca_ai',
  'DROP TRIGGER pacientes_nome_busca_ad',
  'DROP TRIGGER pacientes_nome_busca_au',
  // An id already queued keeps the name noted first: that is the one the index holds.
  'CREATE TABLE pacientes_nome_busca_fila (id INTEGER PRIMARY KEY, nome_indexado TEXT)',
  `CREATE TRIGGER pacientes_nome_busca_ai AFTER INSERT ON pacientes BEGIN
     INSERT INTO pacientes_nome_busca_fila (id, nome_indexado) VALUES (new.id, NULL) ON CONFLICT (id) DO NOTHING;
   END`,
  `CREATE TRIGGER pacientes_nome_busca_ad AFTER DELETE ON pacientes BEGIN
     INSERT INTO pacientes_nome_busca_fila (id, nome_indexado) VALUES (old.id, old.nome) ON CONFLICT (id) DO NOTHING;
   END`,
  // A new id (never, in practice) was not in the index; queued only when it differs from the old one, so
  // that a queue applied in between does not leave an indexed id noted as unindexed.
  `CREATE TRIGGER pacientes_nome_busca_au AFTER UPDATE OF id, nome ON pacientes BEGIN
     INSERT INTO pacientes_nome_busca_fila (id, nome_indexado) VALUES (old.id, old.nome) ON CONFLICT (id) DO NOTHING;
     INSERT INTO pacientes_nome_busca_fila (id, nome_indexado) SELECT new.id, NULL WHERE new.id IS NOT old.id ON CONFLICT (id) DO NOTHING;
   END`,
  `CREATE TRIGGER pacientes_nome_busca_fila_cheia AFTER INSERT ON pacientes_nome_busca_fila
   WHEN (SELECT COUNT(*) FROM pacientes_nome_busca_fila) >= 64 BEGIN ${APPLY} END`,
];

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of statements) await sql.raw(statement).execute(db);
  },
};
