import { sql, type Kysely, type Migration } from 'kysely';

// Frozen. Issue 25: cheaper patient creates and searches after writes.
// - `idempotency_markers` becomes a rowid table (markers appended in write order) with a unique index on the
//   token. As a WITHOUT ROWID table keyed by a random token, a marker with its answer (~1 KB, over the
//   ~1,000 bytes such a table keeps on its leaf page) spilled to an overflow page of its own, 3/4 empty: a
//   create wrote two pages for its marker and the table took 4 KB per marker. Same name and columns (plus
//   `id`), the markers kept.
// - The search queue's application (migration 007's trigger at 64 entries) walks the queued ids and reads
//   each patient by id (CROSS JOIN keeps that order). On an analyzed tenant the planner had no statistics
//   for the queue and scanned every patient instead: ~40 ms at 200,000 patients, for every 64th write.
const APPLY = `
  INSERT INTO pacientes_nome_busca (pacientes_nome_busca, rowid, nome)
    SELECT 'delete', id, nome_indexado FROM pacientes_nome_busca_fila WHERE nome_indexado IS NOT NULL;
  INSERT INTO pacientes_nome_busca (rowid, nome)
    SELECT p.id, p.nome FROM pacientes_nome_busca_fila f CROSS JOIN pacientes p ON p.id = f.id;
  DELETE FROM pacientes_nome_busca_fila;`;

const statements = [
  `CREATE TABLE idempotency_markers_novo (
     id INTEGER PRIMARY KEY,
     token TEXT NOT NULL,
     method TEXT NOT NULL,
     path TEXT NOT NULL,
     status INTEGER,
     content_type TEXT,
     response TEXT,
     created_at INTEGER NOT NULL
   )`,
  `INSERT INTO idempotency_markers_novo (token, method, path, status, content_type, response, created_at)
     SELECT token, method, path, status, content_type, response, created_at FROM idempotency_markers ORDER BY created_at, token`,
  'DROP TABLE idempotency_markers',
  'ALTER TABLE idempotency_markers_novo RENAME TO idempotency_markers',
  'CREATE UNIQUE INDEX idempotency_markers_token ON idempotency_markers (token)',
  'CREATE INDEX idempotency_markers_created_at ON idempotency_markers (created_at)',

  'DROP TRIGGER pacientes_nome_busca_fila_cheia',
  `CREATE TRIGGER pacientes_nome_busca_fila_cheia AFTER INSERT ON pacientes_nome_busca_fila
   WHEN (SELECT COUNT(*) FROM pacientes_nome_busca_fila) >= 64 BEGIN ${APPLY} END`,
];

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of statements) await sql.raw(statement).execute(db);
  },
};
