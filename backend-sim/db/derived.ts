import type SQLite from 'better-sqlite3';

/**
 * Derived data that triggers keep in step with the rows (migration 2026-11-23-005): the trigram search
 * index of patient names and the list counts. Bulk work (the seed, a reset) runs without the triggers
 * and rebuilds once at the end: per-row trigger work over a million rows costs more than one rebuild.
 */

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Runs `work` with every trigger of the main schema dropped, then creates them again (from their own
 * stored SQL). Inside a transaction that later rolls back, the drop and the re-creation roll back too.
 */
export function withoutTriggers<T>(sqlite: SQLite.Database, work: () => T): T {
  const triggers = sqlite.prepare("SELECT name, sql FROM main.sqlite_master WHERE type = 'trigger' ORDER BY name").all() as { name: string; sql: string }[];
  for (const t of triggers) sqlite.exec(`DROP TRIGGER main.${quote(t.name)}`);
  try {
    return work();
  } finally {
    for (const t of triggers) sqlite.exec(t.sql);
  }
}

/** Full-text indexes (FTS5, all external-content) rebuilt from their content tables. */
export function rebuildSearchIndexes(sqlite: SQLite.Database): void {
  const tables = sqlite
    .prepare("SELECT name FROM main.sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%USING fts5%' ORDER BY name")
    .pluck()
    .all() as string[];
  for (const name of tables) sqlite.prepare(`INSERT INTO main.${quote(name)} (${quote(name)}) VALUES ('rebuild')`).run();
}

/** The trigger-kept counts, recomputed from the rows (same definitions as the triggers). */
export function rebuildCounts(sqlite: SQLite.Database, exames: ExamesContagemBuilder | null = null): void {
  sqlite.exec(`
    DELETE FROM pacientes_contagem;
    INSERT INTO pacientes_contagem (ativo, n) SELECT ativo, COUNT(*) FROM pacientes GROUP BY ativo;
  `);
  if (exames) exames.write(sqlite);
  else rebuildExamesCounts(sqlite);
}

function rebuildExamesCounts(sqlite: SQLite.Database): void {
  sqlite.exec(`
    DELETE FROM exames_contagem;
    INSERT INTO exames_contagem (filtro, valor, data, n)
      SELECT 'todos', 0, data_realizado, COUNT(*) FROM exames WHERE excluido_em IS NULL GROUP BY data_realizado;
    INSERT INTO exames_contagem (filtro, valor, data, n)
      SELECT 'procedimento', procedimento_id, data_realizado, COUNT(*) FROM exames WHERE excluido_em IS NULL GROUP BY procedimento_id, data_realizado;
    INSERT INTO exames_contagem (filtro, valor, data, n)
      SELECT 'medico', medico_id, data, COUNT(*) FROM (
        SELECT medico_exame_id AS medico_id, data_realizado AS data FROM exames
          WHERE excluido_em IS NULL AND medico_exame_id IS NOT NULL
        UNION ALL SELECT medico_laudo_id, data_realizado FROM exames
          WHERE excluido_em IS NULL AND medico_laudo_id IS NOT NULL AND medico_laudo_id IS NOT medico_exame_id
        UNION ALL SELECT medico_solicitante_id, data_realizado FROM exames
          WHERE excluido_em IS NULL AND medico_solicitante_id IS NOT NULL
            AND medico_solicitante_id IS NOT medico_exame_id AND medico_solicitante_id IS NOT medico_laudo_id
      ) GROUP BY medico_id, data;
  `);
}

/**
 * Per-date exam counts gathered while a bulk loader writes live exams, stored at the end (grouping a
 * million rows three ways in SQL costs seconds of sorting). Same definition as the triggers: every
 * live exam counts for its date under 'todos', its procedure and each distinct doctor among its three.
 */
export class ExamesContagemBuilder {
  // Nested maps keyed by the date strings themselves: no key string built per exam.
  readonly #todos = new Map<string, number>();
  readonly #procedimentos = new Map<number, Map<string, number>>();
  readonly #medicos = new Map<number, Map<string, number>>();

  add(data: string, procedimentoId: number, medicoExameId: number | null, medicoLaudoId: number | null, medicoSolicitanteId: number | null): void {
    bump(this.#todos, data);
    bump(of(this.#procedimentos, procedimentoId), data);
    if (medicoExameId !== null) bump(of(this.#medicos, medicoExameId), data);
    if (medicoLaudoId !== null && medicoLaudoId !== medicoExameId) bump(of(this.#medicos, medicoLaudoId), data);
    if (medicoSolicitanteId !== null && medicoSolicitanteId !== medicoExameId && medicoSolicitanteId !== medicoLaudoId)
      bump(of(this.#medicos, medicoSolicitanteId), data);
  }

  /** Replaces the table's rows with the gathered counts. */
  write(sqlite: SQLite.Database): void {
    sqlite.prepare('DELETE FROM exames_contagem').run();
    const insert = sqlite.prepare('INSERT INTO exames_contagem (filtro, valor, data, n) VALUES (?, ?, ?, ?)');
    for (const [data, n] of this.#todos) insert.run('todos', 0, data, n);
    for (const [filtro, maps] of [['procedimento', this.#procedimentos], ['medico', this.#medicos]] as const)
      for (const [valor, dates] of maps) for (const [data, n] of dates) insert.run(filtro, valor, data, n);
  }
}

const bump = (counts: Map<string, number>, data: string) => counts.set(data, (counts.get(data) ?? 0) + 1);

function of(maps: Map<number, Map<string, number>>, id: number): Map<string, number> {
  let counts = maps.get(id);
  if (!counts) maps.set(id, (counts = new Map()));
  return counts;
}
