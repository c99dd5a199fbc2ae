import { sql, type Kysely, type Migration } from 'kysely';

// Frozen. Live reports per report date, kept by triggers like `exames_contagem` (migration 005): all
// ('todos', 0), per reporting doctor ('medico', id), per signed flag ('assinado', 0 | 1). A report list
// without exam, patient or bound-doctor filters sums them for its total and locates a deep page from them.

function delta(ref: 'new' | 'old', sign: 1 | -1): string {
  const live = `${ref}.excluido_em IS NULL`;
  const d = `${ref}.data_laudo`;
  return `INSERT INTO laudos_contagem (filtro, valor, data, n)
    SELECT 'todos', 0, ${d}, ${sign} WHERE ${live}
    UNION ALL SELECT 'assinado', ${ref}.assinado, ${d}, ${sign} WHERE ${live}
    UNION ALL SELECT 'medico', ${ref}.medico_laudo_id, ${d}, ${sign} WHERE ${live} AND ${ref}.medico_laudo_id IS NOT NULL
    ON CONFLICT (filtro, valor, data) DO UPDATE SET n = n + excluded.n;`;
}

const statements = [
  `CREATE TABLE laudos_contagem (
     filtro TEXT NOT NULL,
     valor INTEGER NOT NULL,
     data TEXT NOT NULL,
     n INTEGER NOT NULL,
     PRIMARY KEY (filtro, valor, data)
   ) WITHOUT ROWID`,
  `INSERT INTO laudos_contagem (filtro, valor, data, n)
     SELECT 'todos', 0, data_laudo, COUNT(*) FROM laudos WHERE excluido_em IS NULL GROUP BY data_laudo`,
  `INSERT INTO laudos_contagem (filtro, valor, data, n)
     SELECT 'assinado', assinado, data_laudo, COUNT(*) FROM laudos WHERE excluido_em IS NULL GROUP BY assinado, data_laudo`,
  `INSERT INTO laudos_contagem (filtro, valor, data, n)
     SELECT 'medico', medico_laudo_id, data_laudo, COUNT(*) FROM laudos WHERE excluido_em IS NULL AND medico_laudo_id IS NOT NULL GROUP BY medico_laudo_id, data_laudo`,
  `CREATE TRIGGER laudos_contagem_ai AFTER INSERT ON laudos BEGIN ${delta('new', 1)} END`,
  `CREATE TRIGGER laudos_contagem_ad AFTER DELETE ON laudos BEGIN ${delta('old', -1)} END`,
  `CREATE TRIGGER laudos_contagem_au AFTER UPDATE OF excluido_em, data_laudo, medico_laudo_id, assinado ON laudos BEGIN
     ${delta('old', -1)}
     ${delta('new', 1)}
   END`,
];

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of statements) await sql.raw(statement).execute(db);
  },
};
