import { sql, type Kysely, type Migration } from 'kysely';

// Frozen. Lists that stay flat on large tenants (issue 15 item 5):
// - `pacientes_ids`: a covering index of ids, so a deep `OFFSET` walks ~20 bytes per patient, not the table;
// - `pacientes_nome_busca`: an FTS5 trigram index of `nome` (case-sensitive, like `instr` on the stored
//   upper-case name), answering the contains-search of 3+ characters, count included, without a scan;
// - `pacientes_contagem` and `exames_contagem`: live-row counts kept by triggers, per `ativo` value for
//   patients and per realization date for exams (all, per doctor in any of the three roles, per
//   procedure), so totals are sums over a few rows and a deep page finds its date without walking rows.
// The tables are filled from the existing rows here; the triggers keep them in step afterwards.

/** Upsert of one exam's contribution to the per-date counts (`ref` = new | old, `sign` = +1 | -1). */
function examesContagemDelta(ref: 'new' | 'old', sign: 1 | -1): string {
  const live = `${ref}.excluido_em IS NULL`;
  const me = `${ref}.medico_exame_id`;
  const ml = `${ref}.medico_laudo_id`;
  const ms = `${ref}.medico_solicitante_id`;
  const d = `${ref}.data_realizado`;
  return `INSERT INTO exames_contagem (filtro, valor, data, n)
    SELECT 'todos', 0, ${d}, ${sign} WHERE ${live}
    UNION ALL SELECT 'procedimento', ${ref}.procedimento_id, ${d}, ${sign} WHERE ${live}
    UNION ALL SELECT 'medico', ${me}, ${d}, ${sign} WHERE ${live} AND ${me} IS NOT NULL
    UNION ALL SELECT 'medico', ${ml}, ${d}, ${sign} WHERE ${live} AND ${ml} IS NOT NULL AND ${ml} IS NOT ${me}
    UNION ALL SELECT 'medico', ${ms}, ${d}, ${sign} WHERE ${live} AND ${ms} IS NOT NULL AND ${ms} IS NOT ${me} AND ${ms} IS NOT ${ml}
    ON CONFLICT (filtro, valor, data) DO UPDATE SET n = n + excluded.n;`;
}

const statements = [
  'CREATE INDEX pacientes_ids ON pacientes (id)',

  `CREATE VIRTUAL TABLE pacientes_nome_busca USING fts5(
     nome, content = 'pacientes', content_rowid = 'id', tokenize = 'trigram case_sensitive 1', columnsize = 0
   )`,
  `INSERT INTO pacientes_nome_busca (pacientes_nome_busca) VALUES ('rebuild')`,
  `CREATE TRIGGER pacientes_nome_busca_ai AFTER INSERT ON pacientes BEGIN
     INSERT INTO pacientes_nome_busca (rowid, nome) VALUES (new.id, new.nome);
   END`,
  `CREATE TRIGGER pacientes_nome_busca_ad AFTER DELETE ON pacientes BEGIN
     INSERT INTO pacientes_nome_busca (pacientes_nome_busca, rowid, nome) VALUES ('delete', old.id, old.nome);
   END`,
  `CREATE TRIGGER pacientes_nome_busca_au AFTER UPDATE OF id, nome ON pacientes BEGIN
     INSERT INTO pacientes_nome_busca (pacientes_nome_busca, rowid, nome) VALUES ('delete', old.id, old.nome);
     INSERT INTO pacientes_nome_busca (rowid, nome) VALUES (new.id, new.nome);
   END`,

  'CREATE TABLE pacientes_contagem (ativo INTEGER PRIMARY KEY, n INTEGER NOT NULL)',
  'INSERT INTO pacientes_contagem (ativo, n) SELECT ativo, COUNT(*) FROM pacientes GROUP BY ativo',
  `CREATE TRIGGER pacientes_contagem_ai AFTER INSERT ON pacientes BEGIN
     INSERT INTO pacientes_contagem (ativo, n) VALUES (new.ativo, 1) ON CONFLICT (ativo) DO UPDATE SET n = n + 1;
   END`,
  `CREATE TRIGGER pacientes_contagem_ad AFTER DELETE ON pacientes BEGIN
     UPDATE pacientes_contagem SET n = n - 1 WHERE ativo = old.ativo;
   END`,
  `CREATE TRIGGER pacientes_contagem_au AFTER UPDATE OF ativo ON pacientes WHEN old.ativo IS NOT new.ativo BEGIN
     UPDATE pacientes_contagem SET n = n - 1 WHERE ativo = old.ativo;
     INSERT INTO pacientes_contagem (ativo, n) VALUES (new.ativo, 1) ON CONFLICT (ativo) DO UPDATE SET n = n + 1;
   END`,

  `CREATE TABLE exames_contagem (
     filtro TEXT NOT NULL,
     valor INTEGER NOT NULL,
     data TEXT NOT NULL,
     n INTEGER NOT NULL,
     PRIMARY KEY (filtro, valor, data)
   ) WITHOUT ROWID`,
  `INSERT INTO exames_contagem (filtro, valor, data, n)
     SELECT 'todos', 0, data_realizado, COUNT(*) FROM exames WHERE excluido_em IS NULL GROUP BY data_realizado`,
  `INSERT INTO exames_contagem (filtro, valor, data, n)
     SELECT 'procedimento', procedimento_id, data_realizado, COUNT(*) FROM exames WHERE excluido_em IS NULL GROUP BY procedimento_id, data_realizado`,
  // A doctor in two roles on one exam counts once.
  `INSERT INTO exames_contagem (filtro, valor, data, n)
     SELECT 'medico', medico_id, data, COUNT(*) FROM (
       SELECT medico_exame_id AS medico_id, data_realizado AS data FROM exames
         WHERE excluido_em IS NULL AND medico_exame_id IS NOT NULL
       UNION ALL SELECT medico_laudo_id, data_realizado FROM exames
         WHERE excluido_em IS NULL AND medico_laudo_id IS NOT NULL AND medico_laudo_id IS NOT medico_exame_id
       UNION ALL SELECT medico_solicitante_id, data_realizado FROM exames
         WHERE excluido_em IS NULL AND medico_solicitante_id IS NOT NULL
           AND medico_solicitante_id IS NOT medico_exame_id AND medico_solicitante_id IS NOT medico_laudo_id
     ) GROUP BY medico_id, data`,
  `CREATE TRIGGER exames_contagem_ai AFTER INSERT ON exames BEGIN ${examesContagemDelta('new', 1)} END`,
  `CREATE TRIGGER exames_contagem_ad AFTER DELETE ON exames BEGIN ${examesContagemDelta('old', -1)} END`,
  `CREATE TRIGGER exames_contagem_au AFTER UPDATE OF excluido_em, data_realizado, procedimento_id, medico_exame_id, medico_laudo_id, medico_solicitante_id ON exames BEGIN
     ${examesContagemDelta('old', -1)}
     ${examesContagemDelta('new', 1)}
   END`,
];

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of statements) await sql.raw(statement).execute(db);
  },
};
