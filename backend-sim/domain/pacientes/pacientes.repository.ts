import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import { SEARCH_QUEUE_APPLY } from '../../db/derived.ts';
import { databaseState, rememberedTotal } from '../../db/remembered-counts.ts';
import { Conditions } from '../../db/conditions.ts';
import type { JsonPage, JsonPageQuery } from '../../db/json-page.ts';
import { queryRows } from '../../db/statements.ts';
import type { PacientesTable } from '../../db/tables/pacientes.ts';
import type { PacienteListFilter } from '../../../contracts/backend/pacientes.ts';
import { ENDERECO_COLUMNS } from '../endereco.ts';

export type PacienteRow = Selectable<PacientesTable>;

/** The columns a list item needs (a full row is 32 columns, ~5× the cost to build per row). */
export type PacienteListRow = Pick<
  PacienteRow,
  'id' | 'nome' | 'cpf' | 'data_nascimento' | 'sexo' | 'telefone' | 'email' | 'ativo' | 'criado_em'
>;
const LIST_COLUMNS = 'id, nome, cpf, data_nascimento, sexo, telefone, email, ativo, criado_em';

const ESTADO_CIVIL_BY_ID = 'SELECT id, nome FROM estados_civis WHERE id = ?';
const CIDADE_BY_ID = 'SELECT id, nome FROM cidades WHERE id = ?';
const CONVENIO_BY_ID = 'SELECT id, nome FROM convenios WHERE id = ?';
const PLANO_BY_ID = 'SELECT id, convenio_id FROM planos WHERE id = ?';

/** The one row of a lookup by primary key (hand-written SQL: building a Kysely query costs more than running it). */
async function byId<R>(db: Db, sql: string, id: number): Promise<R | undefined> {
  return (await queryRows<R>(db, sql, [id]))[0];
}

export const findEstadoCivil = (db: Db, id: number) => byId<{ id: number; nome: string }>(db, ESTADO_CIVIL_BY_ID, id);
export const findCidade = (db: Db, id: number) => byId<{ id: number; nome: string }>(db, CIDADE_BY_ID, id);
export const findConvenio = (db: Db, id: number) => byId<{ id: number; nome: string }>(db, CONVENIO_BY_ID, id);
export const findPlano = (db: Db, id: number) => byId<{ id: number; convenio_id: number }>(db, PLANO_BY_ID, id);

export async function findPaciente(db: Db, id: number): Promise<PacienteRow | undefined> {
  return byId<PacienteRow>(db, 'SELECT * FROM pacientes WHERE id = ?', id);
}

/** Shortest `nome` the trigram index answers (shorter needles have no trigram to look up). */
export const NOME_BUSCA_MIN = 3;

/** The needle as one FTS5 phrase: quoted, so every character is literal text for the trigram tokenizer. */
const ftsPhrase = (needle: string) => `"${needle.replaceAll('"', '""')}"`;

/**
 * Hand-written SQL (statements cached per SQL text, a finite set here) run on one held connection, so
 * the total and the page see the same rows. Totals are exact (spec: the count satisfying the filter) and
 * come from the trigger-kept counts (`ativo` alone or no filter) or from the search index (`nome` given:
 * its matches drive the query, the other filters are checked on those rows only), counted once per
 * database state (decisions P25-B1); a page is chosen by ids (on a covering index, or from the search
 * index in id order) before its rows are read, so a deep OFFSET walks ids, not the table.
 */
export async function listPacientes(
  db: Db,
  f: PacienteListFilter,
): Promise<{ rows: PacienteListRow[]; total: number }> {
  const { page, total } = await pageOfPacientes<PacienteListRow[]>(db, f, [], (conn, from, params) =>
    queryRows<PacienteListRow>(conn, `SELECT ${LIST_COLUMNS} ${from} ORDER BY id`, params),
  );
  return { rows: page, total };
}

/** The page as JSON written by SQLite (decisions L32-1); null when a row fails the item schema's checks. */
export function listPacientesJson(
  db: Db,
  f: PacienteListFilter,
  json: JsonPageQuery,
): Promise<{ page: JsonPage | null; total: number }> {
  return pageOfPacientes(db, f, json.empty, (conn, from, params) => json.page(conn, from, 'id', params), {
    // A trigger-kept total is counted in the page's own statement.
    withTotal: (from, params, count) => json.pageWithTotal(db, from, 'id', params, count),
  });
}

/** The total and the page `read` answers from the rows of `from` (`FROM pacientes WHERE …`), `empty` past the end. */
async function pageOfPacientes<P>(
  db: Db,
  f: PacienteListFilter,
  empty: P,
  read: (conn: Db, from: string, params: readonly unknown[]) => Promise<P>,
  one?: {
    withTotal: (
      from: string,
      params: readonly unknown[],
      count: readonly [string, readonly unknown[]],
    ) => Promise<{ page: P; total: number }>;
  },
): Promise<{ page: P; total: number }> {
  const c = new Conditions();
  // The needle as an FTS5 phrase when the index answers it; the matches drive the query unless a CPF
  // (one row at most, by its index) is given too.
  let search: string | null = null;
  let searchDrives = false;
  c.when(f.cpf, 'p.cpf = ?');
  if (f.nome) {
    // Names are stored upper case, so an upper-cased needle gives case-insensitive "contains" (accents
    // included): `instr` semantics, which the case-sensitive trigram index reproduces from 3 characters on.
    const needle = f.nome.trim().toUpperCase();
    // A NUL ends an FTS5 query string ("unterminated string"): such a needle (only a direct call can send
    // one, the gateway refuses control characters) gets the scan, which matches it like any character.
    if ([...needle].length >= NOME_BUSCA_MIN && !needle.includes('\u0000')) {
      search = ftsPhrase(needle);
      searchDrives = !f.cpf;
      if (f.cpf)
        c.add(
          'EXISTS (SELECT 1 FROM pacientes_nome_busca b WHERE b.pacientes_nome_busca MATCH ? AND b.rowid = p.id)',
          search,
        );
    } else {
      // The gateway asks for 3+ characters; shorter ones and ones with a NUL (direct calls) get the scan.
      c.add('instr(p.nome, ?) > 0', needle);
    }
  }
  c.when(f.periodo_cadastro_inicio, 'p.criado_em >= ?')
    .when(f.periodo_cadastro_fim, 'p.criado_em <= ?', `${f.periodo_cadastro_fim}T23:59:59Z`)
    .when(f.ativo, 'p.ativo = ?', Number(f.ativo));
  const params = c.params;
  // The ids of the page and the total: from the counts, from the search index, or from the table.
  let count: [string, readonly unknown[]];
  let pageIds: [string, readonly unknown[]];
  if (searchDrives && c.size === 0) {
    count = ['SELECT COUNT(*) AS total FROM pacientes_nome_busca WHERE pacientes_nome_busca MATCH ?', [search]];
    pageIds = [
      'SELECT rowid FROM pacientes_nome_busca WHERE pacientes_nome_busca MATCH ? ORDER BY rowid LIMIT ? OFFSET ?',
      [search, f.limit, f.offset],
    ];
  } else if (searchDrives) {
    // CROSS JOIN keeps the matches first: the planner would otherwise walk an index of the other filter.
    const from = `FROM pacientes_nome_busca b CROSS JOIN pacientes p ON p.id = b.rowid WHERE b.pacientes_nome_busca MATCH ?${c.appended()}`;
    count = [`SELECT COUNT(*) AS total ${from}`, [search, ...params]];
    pageIds = [`SELECT b.rowid ${from} ORDER BY b.rowid LIMIT ? OFFSET ?`, [search, ...params, f.limit, f.offset]];
  } else {
    count =
      c.size === (f.ativo ? 1 : 0)
        ? [`SELECT COALESCE(SUM(n), 0) AS total FROM pacientes_contagem${f.ativo ? ' WHERE ativo = ?' : ''}`, params]
        : [`SELECT COUNT(*) AS total FROM pacientes p WHERE ${c.joined()}`, params];
    pageIds = [
      `SELECT p.id FROM pacientes p WHERE 1${c.appended()} ORDER BY p.id LIMIT ? OFFSET ?`,
      [...params, f.limit, f.offset],
    ];
  }
  // The trigger-kept counts are a sum over two rows; every other total walks matches or rows, and is
  // counted once per database state (remembered-counts.ts).
  const countKept = !searchDrives && c.size === (f.ativo ? 1 : 0);
  const from = `FROM pacientes WHERE id IN (${pageIds[0]})`;
  if (countKept && one) return one.withTotal(from, pageIds[1], count);
  return db.connection().execute(async (conn) => {
    let total: number;
    if (countKept) [{ total }] = await queryRows<{ total: number }>(conn, count[0], count[1]);
    else {
      let state = await databaseState(conn, search !== null);
      if (state.pendente) {
        // Patient writes queue their index updates (migration 007): a search applies what is pending first.
        await conn.transaction().execute(async (trx) => {
          for (const statement of SEARCH_QUEUE_APPLY) await queryRows(trx, statement, []);
        });
        state = await databaseState(conn, false);
      }
      total = await rememberedTotal(db, conn, state, count[0], count[1]);
    }
    if (f.offset >= total) return { page: empty, total };
    return { page: await read(conn, from, pageIds[1]), total };
  });
}

/** The values a patient's uniqueness rules cover (absent or null: not checked). */
export interface UniqueValues {
  cpf?: string | null;
  numero_prontuario?: string | null;
  usuario?: string | null;
}

/** The uniqueness rules in the order they are reported, each on its unique index. */
const UNIQUE_RULES = [
  { field: 'cpf', where: 'cpf = ?' },
  { field: 'numero_prontuario', where: 'numero_prontuario = ?' },
  { field: 'usuario', where: 'usuario = ? COLLATE NOCASE' },
] as const;

/**
 * The first of `values` another patient already holds, in UNIQUE_RULES order, and that patient;
 * `selfId` lets a patient keep its own. One statement (a branch per given value, each an indexed lookup
 * of at most one row).
 */
export async function findTaken(
  db: Db,
  values: UniqueValues,
  selfId: number | null,
): Promise<{ field: keyof UniqueValues; id: number; nome: string } | undefined> {
  const branches: string[] = [];
  const params: unknown[] = [];
  UNIQUE_RULES.forEach((rule, i) => {
    const value = values[rule.field];
    if (!value) return;
    branches.push(`SELECT ${i} AS regra, id, nome FROM pacientes WHERE ${rule.where}${selfId ? ' AND id != ?' : ''}`);
    params.push(value);
    if (selfId) params.push(selfId);
  });
  if (branches.length === 0) return undefined;
  const others = await queryRows<{ regra: number; id: number; nome: string }>(db, branches.join(' UNION ALL '), params);
  if (others.length === 0) return undefined;
  const first = others.reduce((a, b) => (b.regra < a.regra ? b : a));
  return { field: UNIQUE_RULES[first.regra].field, id: first.id, nome: first.nome };
}

export async function isNumeroProntuarioTaken(db: Db, numero: string): Promise<boolean> {
  return (await queryRows(db, 'SELECT id FROM pacientes WHERE numero_prontuario = ?', [numero])).length > 0;
}

/** Every column but `id`, in the order of the INSERT below (and of the seed's). */
export const PACIENTE_COLUMNS = [
  'saudacao',
  'nome',
  'nome_registro',
  'numero_prontuario',
  'cpf',
  'rg',
  'data_nascimento',
  'sexo',
  'estado_civil_id',
  'telefone',
  'celular',
  'email',
  ...ENDERECO_COLUMNS,
  'convenio_id',
  'convenio_plano_id',
  'convenio_numero_carteirinha',
  'usuario',
  'senha_hash',
  'senha_temporaria',
  'data_alteracao_senha',
  'ativo',
  'criado_em',
  'atualizado_em',
  'criado_por_chave_id',
  'atualizado_por_chave_id',
] as const satisfies readonly (keyof PacienteRow)[];
/** `id` NULL: SQLite picks it (the largest id + 1). RETURNING *: the row as stored, as findPaciente reads it. */
const INSERT_PACIENTE = `INSERT INTO pacientes (id, ${PACIENTE_COLUMNS.join(', ')}) VALUES (?${', ?'.repeat(PACIENTE_COLUMNS.length)}) RETURNING *`;

/**
 * The id the next INSERT gets from SQLite (a rowid table without AUTOINCREMENT: the largest id + 1, or 1),
 * read in the write transaction, so no other insert comes between.
 */
export async function nextId(trx: Db): Promise<{ id: number }> {
  const [next] = await queryRows<{ id: number }>(trx, 'SELECT COALESCE(MAX(id), 0) + 1 AS id FROM pacientes', []);
  return next;
}

/**
 * The same INSERT with the id SQLite would pick (the largest + 1) and that id, as text, for its record number,
 * in one statement: no row when another patient already holds that number (typed by hand).
 */
const INSERT_PACIENTE_NUMERO_AUTO = `INSERT INTO pacientes (id, ${PACIENTE_COLUMNS.join(', ')})
  SELECT n.id, ${PACIENTE_COLUMNS.map((c) => (c === 'numero_prontuario' ? 'CAST(n.id AS TEXT)' : '?')).join(', ')}
  FROM (SELECT COALESCE(MAX(id), 0) + 1 AS id FROM pacientes) n
  WHERE NOT EXISTS (SELECT 1 FROM pacientes WHERE numero_prontuario = CAST(n.id AS TEXT))
  RETURNING *`;
const COLUMNS_BUT_NUMERO = PACIENTE_COLUMNS.filter((c) => c !== 'numero_prontuario');

/** Inserts the row numbered by its own id (see above), or answers undefined when that number is taken. */
export async function insertPacienteNumeroAuto(
  trx: Db,
  row: Omit<PacienteRow, 'id'>,
): Promise<PacienteRow | undefined> {
  const [inserted] = await queryRows<PacienteRow>(
    trx,
    INSERT_PACIENTE_NUMERO_AUTO,
    COLUMNS_BUT_NUMERO.map((c) => row[c]),
  );
  return inserted;
}

/** Inserts the row (with `id`, or the one SQLite picks when null) and answers it as stored. */
export async function insertPaciente(trx: Db, id: number | null, row: Omit<PacienteRow, 'id'>): Promise<PacienteRow> {
  // Through the transaction's connection, so the idempotent dialect sees the write.
  const [inserted] = await queryRows<PacienteRow>(trx, INSERT_PACIENTE, [id, ...PACIENTE_COLUMNS.map((c) => row[c])]);
  return inserted;
}

export async function updatePaciente(db: Db, id: number, set: Partial<Omit<PacienteRow, 'id'>>): Promise<void> {
  await db.updateTable('pacientes').set(set).where('id', '=', id).execute();
}

/** Moves every reference of patient `from` to `to` (reports follow their exams, so moving exams moves reports too). */
export async function moveReferences(trx: Db, from: number, to: number): Promise<void> {
  for (const table of ['exames', 'agendamentos', 'prontuarios', 'prontuario_anexos'] as const)
    await trx.updateTable(table).set({ paciente_id: to }).where('paciente_id', '=', from).execute();
}

export async function deletePaciente(trx: Db, id: number): Promise<void> {
  await trx.deleteFrom('pacientes').where('id', '=', id).execute();
}
