// The lists whose page SQLite writes as JSON (decisions L32-1), each with its route on either path, rows to
// arbitrary values for its table, and rows outside its contract: the table json-pages.test.ts goes through.
import type SQLite from 'better-sqlite3';
import fc from 'fast-check';
import type { Db } from '../../../backend-sim/db/database.ts';
import { catalogRoute, type Listed, parse } from '../../../backend-sim/lib/http.ts';
import { listPacientes, listPacientesRows } from '../../../backend-sim/domain/pacientes/pacientes.service.ts';
import * as catalogos from '../../../backend-sim/domain/catalogos/catalogos.service.ts';
import {
  cidsForwarded,
  conveniosForwarded,
  procedimentosForwarded,
  wholeCatalogForwarded,
} from '../../../contracts/backend/catalogos.ts';
import * as catalogo from '../../../contracts/schemas/catalogos.ts';
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

/** Names with ties (the order's second key decides) and any text. */
const nome = fc.oneof(fc.constantFrom('A', 'B', 'b', 'ÁGUA', 'a'), text);
const flag = fc.constantFrom(0, 1);

/** A catalog list on both paths: `json` and `rows` its two services, `schema` its forwarded query. */
function catalogList(
  name: string,
  table: string,
  services: { json: (db: Db, f: any) => Promise<Listed>; rows: (db: Db, f: any) => Promise<Listed> },
  schema: Parameters<typeof catalogRoute>[0],
  item: Parameters<typeof catalogRoute>[2],
  row: fc.Arbitrary<Row>,
  extra: Partial<ListPage> = {},
  unique = ['id'],
): ListPage {
  return {
    name,
    json: (db, q) => services.json(db, parse(schema, q)),
    route: (path) => catalogRoute(schema, path === 'json' ? services.json : services.rows, item),
    row,
    fill: (sqlite, rows) => insert(sqlite, table, distinct(rows, unique)),
    count: countOf(table),
    outside: [],
    ...extra,
  };
}

const procedimento = fc.record({
  id,
  nome,
  abreviacao: text,
  codigo_tuss: text,
  descricao_tuss: text,
  requer_laudo: flag,
  possui_imagens: flag,
  ativo: flag,
});
const convenio = fc.record({ id, nome, abreviacao: text, codigo_ans: text, ativo: flag });
const plano = fc.record({ id, nome, codigo_ans: text, ativo: flag, convenio_slot: fc.nat(20) });
const cid = fc.record({ id, codigo: fc.oneof(fc.constantFrom('A00', 'A00.1', 'A0', 'B20', 'a0x'), text), nome });
const unidade = fc.record({ id, nome, abreviacao: text, cidade: nullableText, uf: nullableText, ativo: flag });
const simple = fc.record({ id, nome, ativo: flag });

/** Convenios with plans: each plan of a convenio drawn among the page's rows (or none: `convenio_slot` past them). */
const convenios = catalogList(
  'convenios',
  'convenios',
  { json: catalogos.listConvenios, rows: catalogos.listConveniosRows },
  conveniosForwarded,
  catalogo.convenioItem,
  fc.record({ convenio, planos: fc.array(plano, { maxLength: 4 }) }),
  {
    fill(sqlite, rows) {
      const list = distinct(
        rows.map((r) => r.convenio as Row),
        ['id'],
      );
      const planos = distinct(
        rows.flatMap((r) => r.planos as Row[]),
        ['id'],
      ).flatMap(({ convenio_slot, ...p }) =>
        list.length ? [{ ...p, convenio_id: list[(convenio_slot as number) % list.length].id }] : [],
      );
      sqlite.prepare('DELETE FROM planos').run();
      insert(sqlite, 'convenios', list);
      insert(sqlite, 'planos', planos);
    },
    outside: [
      {
        convenio: { id: 5, nome: 'C', ativo: 1 },
        planos: [{ id: 9, nome: Buffer.from('x'), ativo: 1, convenio_slot: 0 }],
      },
    ],
  },
);

const gruposLaudos = catalogList(
  'grupos-laudos',
  'grupos_laudos',
  { json: catalogos.listGruposLaudos, rows: catalogos.listGruposLaudosRows },
  wholeCatalogForwarded,
  catalogo.grupoLaudoItem,
  fc.record({ grupo: simple, medicos: fc.array(fc.record({ id, nome, slot: fc.nat(20) }), { maxLength: 4 }) }),
  {
    fill(sqlite, rows) {
      const grupos = distinct(
        rows.map((r) => r.grupo as Row),
        ['id'],
      );
      const medicos = distinct(
        rows.flatMap((r) => r.medicos as Row[]),
        ['id'],
      );
      sqlite.prepare('DELETE FROM grupos_laudos_medicos').run();
      insert(sqlite, 'grupos_laudos', grupos);
      insert(
        sqlite,
        'medicos',
        medicos.map(({ slot: _slot, ...m }) => ({ ...m, usuario: `m${m.id}`, senha_hash: 'x', criado_em: 'c' })),
      );
      insert(
        sqlite,
        'grupos_laudos_medicos',
        grupos.length
          ? medicos.map((m) => ({ grupo_laudo_id: grupos[(m.slot as number) % grupos.length].id, medico_id: m.id }))
          : [],
      );
    },
    outside: [{ grupo: { id: 3, nome: Buffer.from('g'), ativo: 1 }, medicos: [] }],
  },
);

export const LIST_PAGES: ListPage[] = [
  pacientes('pacientes'),
  pacientes('pacientes-ativos', { ativo: '1' }),
  catalogList(
    'procedimentos',
    'procedimentos',
    { json: catalogos.listProcedimentos, rows: catalogos.listProcedimentosRows },
    procedimentosForwarded,
    catalogo.procedimentoItem,
    procedimento,
    { query: { ativo: '1' }, outside: [{ id: 4, nome: 'P', codigo_tuss: Buffer.from('t'), ativo: 1 }] },
  ),
  convenios,
  catalogList(
    'cids',
    'cids',
    { json: catalogos.listCids, rows: catalogos.listCidsRows },
    cidsForwarded,
    catalogo.cidItem,
    cid,
    { query: { q: 'A0' }, outside: [{ id: 2, codigo: 'A01', nome: Buffer.from('A') }] },
    ['id', 'codigo'],
  ),
  catalogList(
    'unidades',
    'unidades',
    { json: catalogos.listUnidades, rows: catalogos.listUnidadesRows },
    wholeCatalogForwarded,
    catalogo.unidadeItem,
    unidade,
    { outside: [{ id: 2, nome: 'U', cidade: Buffer.from('c'), ativo: 1 }] },
  ),
  catalogList(
    'complementos',
    'complementos',
    { json: catalogos.listComplementos, rows: catalogos.listComplementosRows },
    wholeCatalogForwarded,
    catalogo.complementoItem,
    simple,
    { outside: [{ id: 2, nome: Buffer.from('c'), ativo: 1 }] },
  ),
  gruposLaudos,
];
