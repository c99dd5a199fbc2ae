import { sql, type Kysely, type Migration } from 'kysely';

// Frozen. Live exams per realization date and report status (`exames_contagem`, filtro 'status', valor
// 0 PENDENTE, 1 EMITIDO, 2 ASSINADO), so the list's status_laudo filter is counted like the others.
// The status is derived (domain/exames.ts): no report file → PENDENTE; a file and a signed live report
// → ASSINADO; else EMITIDO. So triggers on `exames` (its file, date, deletion) and on `laudos` (a
// report signed, moved, deleted) keep it; a report trigger moves its exam between EMITIDO and ASSINADO.

const signedExists = (exame: string, extra = '') =>
  `EXISTS (SELECT 1 FROM laudos l WHERE l.exame_id = ${exame} AND l.assinado = 1 AND l.excluido_em IS NULL${extra})`;
const status = (ref: 'new' | 'old') =>
  `CASE WHEN ${ref}.arquivo_laudo_key IS NULL THEN 0 WHEN ${signedExists(`${ref}.id`)} THEN 2 ELSE 1 END`;

function examDelta(ref: 'new' | 'old', sign: 1 | -1): string {
  return `INSERT INTO exames_contagem (filtro, valor, data, n)
    SELECT 'status', ${status(ref)}, ${ref}.data_realizado, ${sign} WHERE ${ref}.excluido_em IS NULL
    ON CONFLICT (filtro, valor, data) DO UPDATE SET n = n + excluded.n;`;
}

/**
 * A report change seen from exam `exame`: its signed flag before (`before`, an SQL boolean over the
 * other reports plus the old row) and now; when they differ on a live exam with a report file, the exam
 * moves between EMITIDO (1) and ASSINADO (2). `guard` skips the statement altogether.
 */
function reportMove(exame: string, before: string, guard = 'TRUE'): string {
  const now = signedExists(exame);
  const changed = `${guard} AND e.id = ${exame} AND e.excluido_em IS NULL AND e.arquivo_laudo_key IS NOT NULL AND (${before}) IS NOT (${now})`;
  return `INSERT INTO exames_contagem (filtro, valor, data, n)
    SELECT 'status', CASE WHEN ${before} THEN 2 ELSE 1 END, e.data_realizado, -1 FROM exames e WHERE ${changed}
    UNION ALL
    SELECT 'status', CASE WHEN ${now} THEN 2 ELSE 1 END, e.data_realizado, 1 FROM exames e WHERE ${changed}
    ON CONFLICT (filtro, valor, data) DO UPDATE SET n = n + excluded.n;`;
}

const oldCounts = (exame: string) => `(old.exame_id IS ${exame} AND old.assinado = 1 AND old.excluido_em IS NULL)`;

const statements = [
  `INSERT INTO exames_contagem (filtro, valor, data, n)
     SELECT 'status', CASE WHEN arquivo_laudo_key IS NULL THEN 0 WHEN ${signedExists('exames.id')} THEN 2 ELSE 1 END, data_realizado, COUNT(*)
     FROM exames WHERE excluido_em IS NULL GROUP BY 2, 3`,
  `CREATE TRIGGER exames_status_ai AFTER INSERT ON exames BEGIN ${examDelta('new', 1)} END`,
  `CREATE TRIGGER exames_status_ad AFTER DELETE ON exames BEGIN ${examDelta('old', -1)} END`,
  `CREATE TRIGGER exames_status_au AFTER UPDATE OF id, excluido_em, data_realizado, arquivo_laudo_key ON exames BEGIN
     ${examDelta('old', -1)}
     ${examDelta('new', 1)}
   END`,
  `CREATE TRIGGER laudos_status_ai AFTER INSERT ON laudos BEGIN
     ${reportMove('new.exame_id', signedExists('new.exame_id', ' AND l.id <> new.id'))}
   END`,
  `CREATE TRIGGER laudos_status_ad AFTER DELETE ON laudos BEGIN
     ${reportMove('old.exame_id', `(${signedExists('old.exame_id')} OR ${oldCounts('old.exame_id')})`)}
   END`,
  // The old exam (the only one when the report stays), then the new one when it moved.
  `CREATE TRIGGER laudos_status_au AFTER UPDATE OF id, exame_id, assinado, excluido_em ON laudos BEGIN
     ${reportMove('old.exame_id', `(${signedExists('old.exame_id', ' AND l.id <> new.id')} OR ${oldCounts('old.exame_id')})`)}
     ${reportMove('new.exame_id', signedExists('new.exame_id', ' AND l.id <> new.id'), 'new.exame_id IS NOT old.exame_id')}
   END`,
];

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of statements) await sql.raw(statement).execute(db);
  },
};
