import type SQLite from 'better-sqlite3';
import { rebuildCounts, rebuildSearchIndexes, type ContagemBuilder } from '../backend-sim/db/derived.ts';

/** How a seed writes: prepared positional INSERTs in large transactions, indexes and triggers built once at the end. */

const BATCH = 10_000;
const TABLES_IN_DELETE_ORDER = [
  'agendamento_historico',
  'agendamentos',
  'agenda_convenios_bloqueados',
  'agenda_procedimentos',
  'agenda_horarios',
  'agenda_configs',
  'prontuario_anexos',
  'prontuarios',
  'laudos',
  'exame_arquivos',
  'exames',
  'grupos_laudos_medicos',
  'grupos_laudos',
  'pacientes',
  'medicos',
  'planos',
  'convenios',
  'procedimentos',
  'salas',
  'unidades',
  'complementos',
  'cids',
  'cidades',
  'grupos_permissao',
  'saudacoes',
  'estados_civis',
];

/**
 * Bulk-load settings: no FK checks, no fsync, the rollback journal in memory instead of the WAL (pages
 * are written once, not to the WAL and again at the checkpoint); endBulkLoad restores them.
 */
export function beginBulkLoad(sqlite: SQLite.Database): void {
  sqlite.pragma('foreign_keys = OFF');
  sqlite.pragma('synchronous = OFF');
  sqlite.pragma('cache_size = -131072');
  sqlite.pragma('temp_store = MEMORY');
  // Leaving WAL needs the only connection: with a running backend-sim on the file the load stays in WAL.
  try {
    sqlite.pragma('journal_mode = MEMORY');
  } catch {
    // SQLITE_BUSY: keep WAL.
  }
}

export function endBulkLoad(sqlite: SQLite.Database): void {
  // FULL for the switch back to WAL: that commit syncs the file, and every page written above with it.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('wal_checkpoint(TRUNCATE)');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
}

/** Rows are deleted, not the file, so a running backend-sim keeps a valid connection. */
export function deleteAllRows(sqlite: SQLite.Database): void {
  sqlite.transaction(() => {
    for (const t of TABLES_IN_DELETE_ORDER) sqlite.prepare(`DELETE FROM ${t}`).run();
  })();
}

/** Positional prepared INSERT for a table. */
export function inserter(sqlite: SQLite.Database, table: string, columns: string[]) {
  const stmt = sqlite.prepare(
    `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
  );
  return (...values: unknown[]) => stmt.run(...values);
}

/** Runs `count` generator steps in transactions of BATCH rows, reporting progress per batch. */
export function batched(
  sqlite: SQLite.Database,
  count: number,
  step: (i: number) => void,
  progress: (done: number) => void,
) {
  for (let start = 0; start < count; start += BATCH) {
    const end = Math.min(count, start + BATCH);
    sqlite.transaction(() => {
      for (let i = start; i < end; i++) step(i);
    })();
    progress(end);
  }
}

/** What the bulk load drops and builds again once the rows are in (sql as stored in sqlite_master). */
export interface DeferredSchema {
  indexes: string[];
  searchIndexes: string[];
  triggers: string[];
}

/**
 * Drops the secondary indexes, the triggers and the search index (FTS5): building each once over the
 * loaded rows is much cheaper than maintaining it row by row, and the triggers' work (search index,
 * counts) is redone by rebuilding. The search index is dropped and created again, not emptied, so a
 * reseed in place leaves the same pages as a fresh seed.
 */
export function deferSchema(sqlite: SQLite.Database): DeferredSchema {
  const objects = (where: string) =>
    sqlite
      .prepare(`SELECT name, sql FROM main.sqlite_master WHERE sql IS NOT NULL AND ${where} ORDER BY name`)
      .all() as { name: string; sql: string }[];
  const triggers = objects("type = 'trigger'");
  const searchIndexes = objects("type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%USING fts5%'");
  const indexes = objects("type = 'index'");
  for (const t of triggers) sqlite.exec(`DROP TRIGGER "${t.name}"`);
  for (const t of searchIndexes) sqlite.exec(`DROP TABLE "${t.name}"`);
  for (const i of indexes) sqlite.exec(`DROP INDEX "${i.name}"`);
  return {
    indexes: indexes.map((i) => i.sql),
    searchIndexes: searchIndexes.map((t) => t.sql),
    triggers: triggers.map((t) => t.sql),
  };
}

export const schemaSteps = (d: DeferredSchema) => d.indexes.length + 4;

/** Indexes, search index (rebuilt from the rows), counts, triggers, then planner statistics. */
export function restoreSchema(
  sqlite: SQLite.Database,
  d: DeferredSchema,
  progress: (done: number) => void,
  contagens: ContagemBuilder | null,
) {
  let done = 0;
  for (const sql of d.indexes) {
    sqlite.exec(sql);
    progress(++done);
  }
  sqlite.transaction(() => {
    for (const sql of d.searchIndexes) sqlite.exec(sql);
    rebuildSearchIndexes(sqlite);
  })();
  progress(++done);
  sqlite.transaction(() => rebuildCounts(sqlite, contagens))();
  progress(++done);
  for (const sql of d.triggers) sqlite.exec(sql);
  progress(++done);
  // Sampled statistics: enough for the planner to pick the list indexes, in a fraction of a full ANALYZE.
  sqlite.pragma('analysis_limit = 2000');
  sqlite.exec('ANALYZE');
  progress(++done);
}
