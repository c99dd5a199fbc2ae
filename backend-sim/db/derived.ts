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
  const triggers = sqlite
    .prepare("SELECT name, sql FROM main.sqlite_master WHERE type = 'trigger' ORDER BY name")
    .all() as { name: string; sql: string }[];
  for (const t of triggers) sqlite.exec(`DROP TRIGGER main.${quote(t.name)}`);
  try {
    return work();
  } finally {
    for (const t of triggers) sqlite.exec(t.sql);
  }
}

/**
 * Full-text indexes (FTS5, all external-content) rebuilt from their content tables; their queues of
 * pending updates (`<index>_fila`, migration 007) emptied, since the rebuilt index has them all.
 */
export function rebuildSearchIndexes(sqlite: SQLite.Database): void {
  const tables = sqlite
    .prepare(
      "SELECT name FROM main.sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%USING fts5%' ORDER BY name",
    )
    .pluck()
    .all() as string[];
  for (const name of tables) {
    sqlite.prepare(`INSERT INTO main.${quote(name)} (${quote(name)}) VALUES ('rebuild')`).run();
    if (sqlite.prepare("SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = ?").get(`${name}_fila`))
      sqlite.prepare(`DELETE FROM main.${quote(`${name}_fila`)}`).run();
  }
}

/**
 * Applies the queued patient-name changes to the search index (what the trigger of migration 007, 009
 * since, does when the queue reaches 64): the names it holds for queued ids out, their current names in.
 * Run in one transaction, before a search reads the index. The queued ids drive (CROSS JOIN): on an
 * analyzed tenant the planner would otherwise scan every patient (the queue has no statistics).
 */
export const SEARCH_QUEUE_APPLY = [
  `INSERT INTO pacientes_nome_busca (pacientes_nome_busca, rowid, nome)
     SELECT 'delete', id, nome_indexado FROM pacientes_nome_busca_fila WHERE nome_indexado IS NOT NULL`,
  `INSERT INTO pacientes_nome_busca (rowid, nome)
     SELECT p.id, p.nome FROM pacientes_nome_busca_fila f CROSS JOIN pacientes p ON p.id = f.id`,
  'DELETE FROM pacientes_nome_busca_fila',
] as const;

/** SEARCH_QUEUE_APPLY on a raw connection (tests, tools). */
export function applySearchQueue(sqlite: SQLite.Database): void {
  sqlite.transaction(() => {
    for (const statement of SEARCH_QUEUE_APPLY) sqlite.prepare(statement).run();
  })();
}

/**
 * The rows of each per-date count table, as `SELECT filtro, valor, data, n` (the triggers' definitions,
 * migrations 005, 006 and 008): a live exam counts for its date under 'todos', its procedure, each distinct
 * doctor among its three and its report status; a live report under 'todos', its signed flag and its doctor.
 */
const DATE_COUNTS = {
  exames_contagem: [
    "SELECT 'todos', 0, data_realizado, COUNT(*) FROM exames WHERE excluido_em IS NULL GROUP BY data_realizado",
    "SELECT 'procedimento', procedimento_id, data_realizado, COUNT(*) FROM exames WHERE excluido_em IS NULL GROUP BY procedimento_id, data_realizado",
    `SELECT 'medico', medico_id, data, COUNT(*) FROM (
        SELECT medico_exame_id AS medico_id, data_realizado AS data FROM exames
          WHERE excluido_em IS NULL AND medico_exame_id IS NOT NULL
        UNION ALL SELECT medico_laudo_id, data_realizado FROM exames
          WHERE excluido_em IS NULL AND medico_laudo_id IS NOT NULL AND medico_laudo_id IS NOT medico_exame_id
        UNION ALL SELECT medico_solicitante_id, data_realizado FROM exames
          WHERE excluido_em IS NULL AND medico_solicitante_id IS NOT NULL
            AND medico_solicitante_id IS NOT medico_exame_id AND medico_solicitante_id IS NOT medico_laudo_id
      ) GROUP BY medico_id, data`,
    `SELECT 'status', CASE WHEN arquivo_laudo_key IS NULL THEN 0
        WHEN EXISTS (SELECT 1 FROM laudos l WHERE l.exame_id = exames.id AND l.assinado = 1 AND l.excluido_em IS NULL) THEN 2 ELSE 1 END,
        data_realizado, COUNT(*)
      FROM exames WHERE excluido_em IS NULL GROUP BY 2, 3`,
  ],
  laudos_contagem: [
    "SELECT 'todos', 0, data_laudo, COUNT(*) FROM laudos WHERE excluido_em IS NULL GROUP BY data_laudo",
    "SELECT 'assinado', assinado, data_laudo, COUNT(*) FROM laudos WHERE excluido_em IS NULL GROUP BY assinado, data_laudo",
    "SELECT 'medico', medico_laudo_id, data_laudo, COUNT(*) FROM laudos WHERE excluido_em IS NULL AND medico_laudo_id IS NOT NULL GROUP BY medico_laudo_id, data_laudo",
  ],
} as const;

/**
 * The trigger-kept counts, recomputed from the rows (same definitions as the triggers). A bulk loader
 * that gathered the exam and report counts while writing passes them in `gathered`.
 */
export function rebuildCounts(sqlite: SQLite.Database, gathered: ContagemBuilder | null = null): void {
  sqlite.exec(`
    DELETE FROM pacientes_contagem;
    INSERT INTO pacientes_contagem (ativo, n) SELECT ativo, COUNT(*) FROM pacientes GROUP BY ativo;
  `);
  if (gathered) {
    gathered.write(sqlite);
    return;
  }
  for (const [table, selects] of Object.entries(DATE_COUNTS))
    sqlite.exec(
      [
        `DELETE FROM ${table};`,
        ...selects.map((select) => `INSERT INTO ${table} (filtro, valor, data, n) ${select};`),
      ].join('\n'),
    );
}

/**
 * Per-date exam and report counts gathered while a bulk loader writes live rows, stored at the end
 * (grouping a million rows several ways in SQL costs seconds of sorting). Same definitions as the
 * triggers: a live exam counts for its date under 'todos', its procedure, its report status and each
 * distinct doctor among its three; a live report under 'todos', its signed flag and its reporting doctor.
 */
export class ContagemBuilder {
  readonly #exames = new DateCounts();
  readonly #laudos = new DateCounts();

  /** `status`: 0 PENDENTE, 1 EMITIDO, 2 ASSINADO (as derived on read from the exam's file and its reports). */
  exame(
    data: string,
    procedimentoId: number,
    medicoExameId: number | null,
    medicoLaudoId: number | null,
    medicoSolicitanteId: number | null,
    status: 0 | 1 | 2,
  ): void {
    const c = this.#exames;
    c.bump('todos', 0, data);
    c.bump('status', status, data);
    c.bump('procedimento', procedimentoId, data);
    if (medicoExameId !== null) c.bump('medico', medicoExameId, data);
    if (medicoLaudoId !== null && medicoLaudoId !== medicoExameId) c.bump('medico', medicoLaudoId, data);
    if (medicoSolicitanteId !== null && medicoSolicitanteId !== medicoExameId && medicoSolicitanteId !== medicoLaudoId)
      c.bump('medico', medicoSolicitanteId, data);
  }

  laudo(data: string, medicoLaudoId: number | null, assinado: number): void {
    const c = this.#laudos;
    c.bump('todos', 0, data);
    c.bump('assinado', assinado, data);
    if (medicoLaudoId !== null) c.bump('medico', medicoLaudoId, data);
  }

  /** Replaces the rows of both count tables with the gathered counts. */
  write(sqlite: SQLite.Database): void {
    this.#exames.write(sqlite, 'exames_contagem');
    this.#laudos.write(sqlite, 'laudos_contagem');
  }
}

/** filtro → valor → date → n; keyed by the date strings themselves, so no key string is built per row. */
class DateCounts {
  readonly #counts = new Map<string, Map<number, Map<string, number>>>();

  bump(filtro: string, valor: number, data: string): void {
    let byValor = this.#counts.get(filtro);
    if (!byValor) {
      byValor = new Map();
      this.#counts.set(filtro, byValor);
    }
    let byData = byValor.get(valor);
    if (!byData) {
      byData = new Map();
      byValor.set(valor, byData);
    }
    byData.set(data, (byData.get(data) ?? 0) + 1);
  }

  write(sqlite: SQLite.Database, table: 'exames_contagem' | 'laudos_contagem'): void {
    sqlite.prepare(`DELETE FROM ${table}`).run();
    const insert = sqlite.prepare(`INSERT INTO ${table} (filtro, valor, data, n) VALUES (?, ?, ?, ?)`);
    for (const [filtro, byValor] of this.#counts)
      for (const [valor, byData] of byValor) for (const [data, n] of byData) insert.run(filtro, valor, data, n);
  }
}
