// The lists whose page SQLite writes as JSON (decisions L32-1), each with its route on either path, rows to
// arbitrary values for its table, and rows outside its contract: the table json-pages.test.ts goes through.
import type SQLite from 'better-sqlite3';
import fc from 'fast-check';
import type { Db } from '../../../backend-sim/db/database.ts';
import { catalogRoute, type Listed, parse } from '../../../backend-sim/lib/http.ts';
import { listPacientes, listPacientesRows } from '../../../backend-sim/domain/pacientes/pacientes.service.ts';
import { pacienteListForwarded } from '../../../contracts/backend/pacientes.ts';
import { pacienteListItem } from '../../../contracts/schemas/pacientes.ts';

type Row = Record<string, unknown>;
export interface ListPage {
  name: string;
  /** The list's route reading its page as JSON or as rows (the path it replaced). */
  route(path: 'json' | 'rows'): unknown;
  /** The JSON path's service on `query` (to see that it does answer a `JsonPage`). */
  json(db: Db, query: Record<string, string>): Promise<Listed>;
  /** A filter before `limit=…&offset=…` (ending in `&`), if any. */
  query?: Record<string, string>;
  row: fc.Arbitrary<Row>;
  /** Replaces the table's rows with `rows` (keeping the triggers' counts right: plain deletes and inserts). */
  fill(sqlite: SQLite.Database, rows: Row[]): void;
  count(sqlite: SQLite.Database): number;
  /** Rows outside the contract schema. */
  outside: Row[];
}

const SPECIAL = [
  '',
  'JOSÉ DA CONCEIÇÃO',
  'emoji 😀👩‍⚕️🇧🇷',
  'שלום עליכם مرحبا',
  'quote " backslash \\ slash /',
  '\u2028\u2029',
  'nul \u0000 bell \u0007 tab \t nl \n cr \r esc \u001b us \u001f del \u007f',
  '{"a":1,"b":[true,null]}',
  'true',
  'null',
  '1.0',
  '-0',
  "it's",
  '\ud83d',
  '\uffff\ufeff',
];
const text = fc.oneof(fc.constantFrom(...SPECIAL), fc.string({ unit: 'binary', maxLength: 12 }));
const nullableText = fc.option(text, { nil: null });
/** Ids up to the largest safe integer. */
const id = fc.oneof(
  fc.integer({ min: 1, max: 1_000_000 }),
  fc.constantFrom(2 ** 31 - 1, 2 ** 31, 2 ** 32, Number.MAX_SAFE_INTEGER),
);
const isoDate = fc
  .date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2100-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));
const isoTimestamp = fc
  .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => `${d.toISOString().slice(0, 19)}Z`);

/** Rows with distinct values in `keys` (unique columns), the first of each kept. */
function distinct(rows: Row[], keys: string[]): Row[] {
  const seen = keys.map(() => new Set<unknown>());
  return rows.filter((row) => {
    if (keys.some((k, i) => row[k] !== null && seen[i].has(row[k]))) return false;
    for (const [i, k] of keys.entries()) seen[i].add(row[k]);
    return true;
  });
}

function insert(sqlite: SQLite.Database, table: string, rows: Row[]) {
  sqlite.transaction(() => {
    sqlite.prepare(`DELETE FROM ${table}`).run();
    for (const row of rows) {
      const keys = Object.keys(row);
      sqlite
        .prepare(`INSERT INTO ${table} (${keys.join(', ')}) VALUES (${keys.map(() => '?').join(', ')})`)
        .run(...keys.map((k) => row[k]));
    }
  })();
}

const countOf = (table: string) => (sqlite: SQLite.Database) =>
  (sqlite.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;

const paciente = fc
  .record({
    id,
    nome: text,
    cpf: nullableText,
    data_nascimento: fc.oneof(isoDate, nullableText),
    sexo: fc.constantFrom('MAS', 'FEM', 'OUT', 'M', 'F', 'x', null),
    telefone: nullableText,
    email: nullableText,
    ativo: fc.constantFrom(0, 1),
    criado_em: fc.oneof(isoTimestamp, text),
  })
  .map((p) => ({ ...p, numero_prontuario: `P${p.id}`, usuario: `u${p.id}`, senha_hash: 'x' }));

const pacientes = (name: string, query?: Record<string, string>): ListPage => ({
  name,
  query,
  json: (db, q) => listPacientes(db, parse(pacienteListForwarded, q)),
  route: (path) =>
    catalogRoute(pacienteListForwarded, path === 'json' ? listPacientes : listPacientesRows, pacienteListItem),
  row: paciente,
  fill: (sqlite, rows) => insert(sqlite, 'pacientes', distinct(rows, ['id', 'cpf'])),
  count: countOf('pacientes'),
  outside: [
    // Past 2^53: JavaScript cannot hold it, zod's safe integer refuses it.
    { ...base(), id: 9007199254740993n },
    // A BLOB where the schema says text.
    { ...base(), nome: Buffer.from('abc') },
  ],
});
function base(): Row {
  return { id: 7, nome: 'N', numero_prontuario: 'P7', usuario: 'u7', senha_hash: 'x', ativo: 1, criado_em: 'c' };
}

export const LIST_PAGES: ListPage[] = [pacientes('pacientes'), pacientes('pacientes-ativos', { ativo: '1' })];
