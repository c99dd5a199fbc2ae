import { randomBytes } from 'node:crypto';
import type { Selectable } from 'kysely';
import { z } from 'zod';
import type { Db } from '../db/database.ts';
import { SEARCH_QUEUE_APPLY, SEARCH_QUEUE_PENDING } from '../db/derived.ts';
import { queryRows } from '../db/statements.ts';
import type { PacientesTable } from '../db/tables/pacientes.ts';
import { BackendError, notFound } from '../errors.ts';
import { enderecoView } from './endereco.ts';
import { isValidCpf } from '../lib/cpf.ts';
import type { CallContext, Page } from '../lib/http.ts';
import { hashPassword, lockedPassword } from '../lib/password.ts';
import { date } from '../lib/schemas.ts';
import { getClinicaConfig } from './clinica.ts';

type PacienteRow = Selectable<PacientesTable>;

const text = z.string().nullable().optional();

const enderecoInput = z
  .object({
    cep: text,
    logradouro: text,
    numero: z.union([z.string(), z.number()]).nullable().optional(),
    complemento: text,
    bairro: text,
    cidade_id: z.number().int().nullable().optional(),
    estado: text,
  })
  .nullable();

const convenioInput = z
  .object({
    id: z.number().int().nullable().optional(),
    plano_id: z.number().int().nullable().optional(),
    numero_carteirinha: text,
  })
  .nullable();

/** Fields shared by create and patch; unknown (silently discarded) fields are stripped by zod. */
export const pacienteFields = {
  nome: z.string().nullable(),
  data_nascimento: date.nullable().or(z.literal('')),
  cpf: text,
  celular: text,
  saudacao: text,
  nome_registro: text,
  rg: text,
  telefone: text,
  sexo: z.enum(['MAS', 'FEM', 'OUT']).nullable().or(z.literal('')).optional(),
  estado_civil_id: z.number().int().nullable().optional(),
  email: text,
  numero_prontuario: text,
  endereco: enderecoInput.optional(),
  convenio: convenioInput.optional(),
  ativo: z.boolean().nullable().optional(),
  usuario: text,
  senha: text,
  senha_temporaria: z.boolean().nullable().optional(),
};

export const pacienteCreateSchema = z.object({
  ...pacienteFields,
  nome: z.string().min(1),
  data_nascimento: date,
});
export const pacientePatchSchema = z.object({
  ...pacienteFields,
  nome: pacienteFields.nome.optional(),
  data_nascimento: pacienteFields.data_nascimento.optional(),
});
export type PacienteCreate = z.infer<typeof pacienteCreateSchema>;
export type PacientePatch = z.infer<typeof pacientePatchSchema>;

export const pacienteListSchema = z.object({
  cpf: z.string().optional(),
  nome: z.string().optional(),
  periodo_cadastro_inicio: date.optional(),
  periodo_cadastro_fim: date.optional(),
  ativo: z.enum(['0', '1']).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

const SEXO_CURTO: Record<string, 'M' | 'F'> = { MAS: 'M', FEM: 'F' };
/**
 * The detail's `sexo` (create, patch and read answers): the spec's output values are `M`/`F`/`MAS`/`FEM` or
 * null, so `OUT` (an input value only) reads as null, like in the list.
 */
const SEXO_DETALHE = new Set(['M', 'F', 'MAS', 'FEM']);
const sexoDetalhe = (sexo: string | null): 'M' | 'F' | 'MAS' | 'FEM' | null =>
  sexo !== null && SEXO_DETALHE.has(sexo) ? (sexo as 'M' | 'F' | 'MAS' | 'FEM') : null;

/** "" and null both mean "no value" on the wire. */
const blank = (v: string | null | undefined): string | null => (v === undefined || v === null || v.trim() === '' ? null : v.trim());

/** The columns a list item needs (a full row is 32 columns, ~5× the cost to build per row). */
type PacienteListRow = Pick<PacienteRow, 'id' | 'nome' | 'cpf' | 'data_nascimento' | 'sexo' | 'telefone' | 'email' | 'ativo' | 'criado_em'>;
const LIST_COLUMNS = 'id, nome, cpf, data_nascimento, sexo, telefone, email, ativo, criado_em';

export function toListItem(p: PacienteListRow) {
  return {
    id: p.id,
    nome: p.nome,
    cpf: p.cpf,
    data_nascimento: p.data_nascimento,
    sexo: p.sexo ? (SEXO_CURTO[p.sexo] ?? null) : null,
    telefone: p.telefone,
    email: p.email,
    ativo: p.ativo === 1,
    criado_em: p.criado_em,
  };
}

/** The rows a detail names (estado civil, cidade, convenio), absent when the patient has none or they are gone. */
interface DetailLookups {
  estadoCivil: { id: number; nome: string } | undefined;
  cidade: { nome: string } | undefined;
  convenio: { nome: string } | undefined;
}

const ESTADO_CIVIL_BY_ID = 'SELECT id, nome FROM estados_civis WHERE id = ?';
const CIDADE_BY_ID = 'SELECT id, nome FROM cidades WHERE id = ?';
const CONVENIO_BY_ID = 'SELECT id, nome FROM convenios WHERE id = ?';
const PLANO_BY_ID = 'SELECT id, convenio_id FROM planos WHERE id = ?';

/** The one row of a lookup by primary key (hand-written SQL: building a Kysely query costs more than running it). */
async function byId<R>(db: Db, sql: string, id: number): Promise<R | undefined> {
  return (await queryRows<R>(db, sql, [id]))[0];
}

/** Patient detail; `convenioShape` = 'read' ({id,nome,numero_carteirinha}) or 'write' ({id,plano_id,numero_carteirinha}). */
export async function toDetail(db: Db, p: PacienteRow, convenioShape: 'read' | 'write') {
  const estadoCivil = p.estado_civil_id ? await byId<{ id: number; nome: string }>(db, ESTADO_CIVIL_BY_ID, p.estado_civil_id) : undefined;
  const cidade = p.endereco_cidade_id ? await byId<{ nome: string }>(db, CIDADE_BY_ID, p.endereco_cidade_id) : undefined;
  const convenio = p.convenio_id && convenioShape === 'read' ? await byId<{ nome: string }>(db, CONVENIO_BY_ID, p.convenio_id) : undefined;
  return detailView(p, convenioShape, { estadoCivil, cidade, convenio });
}

function detailView(p: PacienteRow, convenioShape: 'read' | 'write', { estadoCivil, cidade, convenio }: DetailLookups) {
  return {
    id: p.id,
    saudacao: p.saudacao ?? '',
    nome: p.nome,
    nome_registro: p.nome_registro ?? '',
    numero_prontuario: p.numero_prontuario,
    cpf: p.cpf,
    rg: p.rg,
    data_nascimento: p.data_nascimento,
    sexo: sexoDetalhe(p.sexo),
    estado_civil: estadoCivil ? { id: estadoCivil.id, nome: estadoCivil.nome } : null,
    telefone: p.telefone,
    celular: p.celular,
    email: p.email,
    endereco: enderecoView(p, cidade),
    convenio: p.convenio_id
      ? convenioShape === 'read'
        ? { id: p.convenio_id, nome: convenio?.nome ?? '', numero_carteirinha: p.convenio_numero_carteirinha ?? '' }
        : { id: p.convenio_id, plano_id: p.convenio_plano_id, numero_carteirinha: p.convenio_numero_carteirinha ?? '' }
      : null,
    ativo: p.ativo === 1,
    criado_em: p.criado_em,
    atualizado_em: p.atualizado_em,
    criado_por_chave_id: p.criado_por_chave_id,
    atualizado_por_chave_id: p.atualizado_por_chave_id,
  };
}

export async function findPaciente(db: Db, id: number): Promise<PacienteRow | undefined> {
  return byId<PacienteRow>(db, 'SELECT * FROM pacientes WHERE id = ?', id);
}

/** Shortest `nome` the trigram index answers (shorter needles have no trigram to look up). */
export const NOME_BUSCA_MIN = 3;

/** The needle as one FTS5 phrase: quoted, so every character is literal text for the trigram tokenizer. */
const ftsPhrase = (needle: string) => `"${needle.replaceAll('"', '""')}"`;

/**
 * Hand-written SQL (statements cached per SQL text, a finite set here) run on one held connection, so
 * the total and the page see the same rows. Totals come from the trigger-kept counts (`ativo` alone or
 * no filter) or from the search index (`nome` given: its matches drive the query, the other filters
 * are checked on those rows only); a page is chosen by ids (on a covering index, or from the search
 * index in id order) before its rows are read, so a deep OFFSET walks ids, not the table.
 */
export async function listPacientes(db: Db, f: z.infer<typeof pacienteListSchema>): Promise<{ rows: PacienteListRow[]; total: number }> {
  const where: string[] = [];
  const params: unknown[] = [];
  // The needle as an FTS5 phrase when the index answers it; the matches drive the query unless a CPF
  // (one row at most, by its index) is given too.
  let search: string | null = null;
  let searchDrives = false;
  if (f.cpf) {
    where.push('p.cpf = ?');
    params.push(f.cpf);
  }
  if (f.nome) {
    // Names are stored upper case, so an upper-cased needle gives case-insensitive "contains" (accents
    // included): `instr` semantics, which the case-sensitive trigram index reproduces from 3 characters on.
    const needle = f.nome.trim().toUpperCase();
    // A NUL ends an FTS5 query string ("unterminated string"): such a needle (only a direct call can send
    // one, the gateway refuses control characters) gets the scan, which matches it like any character.
    if ([...needle].length >= NOME_BUSCA_MIN && !needle.includes('\u0000')) {
      search = ftsPhrase(needle);
      searchDrives = !f.cpf;
      if (f.cpf) {
        where.push('EXISTS (SELECT 1 FROM pacientes_nome_busca b WHERE b.pacientes_nome_busca MATCH ? AND b.rowid = p.id)');
        params.push(search);
      }
    } else {
      // The gateway asks for 3+ characters; shorter ones and ones with a NUL (direct calls) get the scan.
      where.push('instr(p.nome, ?) > 0');
      params.push(needle);
    }
  }
  if (f.periodo_cadastro_inicio) {
    where.push('p.criado_em >= ?');
    params.push(f.periodo_cadastro_inicio);
  }
  if (f.periodo_cadastro_fim) {
    where.push('p.criado_em <= ?');
    params.push(`${f.periodo_cadastro_fim}T23:59:59Z`);
  }
  if (f.ativo) {
    where.push('p.ativo = ?');
    params.push(Number(f.ativo));
  }
  const and = (conditions: string[]) => conditions.map((c) => ` AND ${c}`).join('');
  // The ids of the page and the total: from the counts, from the search index, or from the table.
  let count: [string, unknown[]];
  let pageIds: [string, unknown[]];
  if (searchDrives && where.length === 0) {
    count = ['SELECT COUNT(*) AS total FROM pacientes_nome_busca WHERE pacientes_nome_busca MATCH ?', [search]];
    pageIds = ['SELECT rowid FROM pacientes_nome_busca WHERE pacientes_nome_busca MATCH ? ORDER BY rowid LIMIT ? OFFSET ?', [search, f.limit, f.offset]];
  } else if (searchDrives) {
    // CROSS JOIN keeps the matches first: the planner would otherwise walk an index of the other filter.
    const from = `FROM pacientes_nome_busca b CROSS JOIN pacientes p ON p.id = b.rowid WHERE b.pacientes_nome_busca MATCH ?${and(where)}`;
    count = [`SELECT COUNT(*) AS total ${from}`, [search, ...params]];
    pageIds = [`SELECT b.rowid ${from} ORDER BY b.rowid LIMIT ? OFFSET ?`, [search, ...params, f.limit, f.offset]];
  } else {
    count =
      where.length === (f.ativo ? 1 : 0)
        ? [`SELECT COALESCE(SUM(n), 0) AS total FROM pacientes_contagem${f.ativo ? ' WHERE ativo = ?' : ''}`, params]
        : [`SELECT COUNT(*) AS total FROM pacientes p WHERE ${where.join(' AND ')}`, params];
    pageIds = [`SELECT p.id FROM pacientes p WHERE 1${and(where)} ORDER BY p.id LIMIT ? OFFSET ?`, [...params, f.limit, f.offset]];
  }
  return db.connection().execute(async (conn) => {
    // Patient writes queue their index updates (migration 007): a search applies what is pending first.
    if (search !== null && (await queryRows<{ pendente: number }>(conn, SEARCH_QUEUE_PENDING, []))[0].pendente)
      await conn.transaction().execute(async (trx) => {
        for (const statement of SEARCH_QUEUE_APPLY) await queryRows(trx, statement, []);
      });
    const [{ total }] = await queryRows<{ total: number }>(conn, count[0], count[1]);
    if (f.offset >= total) return { rows: [], total };
    const rows = await queryRows<PacienteListRow>(conn, `SELECT ${LIST_COLUMNS} FROM pacientes WHERE id IN (${pageIds[0]}) ORDER BY id`, pageIds[1]);
    return { rows, total };
  });
}

function conflict(code: 'CPF_ALREADY_EXISTS' | 'MEDICAL_RECORD_ALREADY_EXISTS' | 'USUARIO_ALREADY_EXISTS', other: { id: number; nome: string }) {
  const messages = {
    CPF_ALREADY_EXISTS: 'CPF ja cadastrado para outro paciente.',
    MEDICAL_RECORD_ALREADY_EXISTS: 'Numero de prontuario ja utilizado por outro paciente.',
    USUARIO_ALREADY_EXISTS: 'Usuario ja utilizado por outro paciente.',
  } as const;
  return new BackendError(code, messages[code], { paciente_id_existente: other.id, nome: other.nome });
}

/** The uniqueness rules in the order they are reported, each on its unique index. */
const UNIQUE_RULES = [
  { field: 'cpf', code: 'CPF_ALREADY_EXISTS', where: 'cpf = ?' },
  { field: 'numero_prontuario', code: 'MEDICAL_RECORD_ALREADY_EXISTS', where: 'numero_prontuario = ?' },
  { field: 'usuario', code: 'USUARIO_ALREADY_EXISTS', where: 'usuario = ? COLLATE NOCASE' },
] as const;

/**
 * Uniqueness rules; `selfId` lets a patient keep its own CPF / record number / usuario. One statement
 * (a branch per given value, each an indexed lookup of at most one row); the first rule broken, in
 * UNIQUE_RULES order, is reported.
 */
async function assertUnique(db: Db, values: { cpf?: string | null; numero_prontuario?: string | null; usuario?: string | null }, selfId: number | null) {
  const branches: string[] = [];
  const params: unknown[] = [];
  UNIQUE_RULES.forEach((rule, i) => {
    const value = values[rule.field];
    if (!value) return;
    branches.push(`SELECT ${i} AS regra, id, nome FROM pacientes WHERE ${rule.where}${selfId ? ' AND id != ?' : ''}`);
    params.push(value);
    if (selfId) params.push(selfId);
  });
  if (branches.length === 0) return;
  const others = await queryRows<{ regra: number; id: number; nome: string }>(db, branches.join(' UNION ALL '), params);
  if (others.length === 0) return;
  const first = others.reduce((a, b) => (b.regra < a.regra ? b : a));
  throw conflict(UNIQUE_RULES[first.regra].code, first);
}

function required(field: string) {
  return new BackendError('BUSINESS_RULE', `O campo ${field} e obrigatorio para esta clinica.`, { field });
}

function referenceError(field: string, what: string) {
  return new BackendError('BUSINESS_RULE', `${what} inexistente.`, { field });
}

function checkCpf(cpf: string | null) {
  if (cpf && !isValidCpf(cpf)) throw new BackendError('VAL_BACKEND', 'CPF invalido.', { field: 'cpf' });
}

/**
 * Column values for endereco/convenio: a present object replaces the whole sub-object; {} or null clears it.
 * `cidade` is the row checked, for the detail answered after the write.
 */
async function enderecoColumns(db: Db, e: z.infer<typeof enderecoInput> | undefined) {
  const v = e ?? {};
  const cidadeId = v.cidade_id ?? null;
  const cidade = cidadeId ? await byId<{ id: number; nome: string }>(db, CIDADE_BY_ID, cidadeId) : undefined;
  if (cidadeId && !cidade) throw referenceError('endereco.cidade_id', 'Cidade');
  const columns = {
    endereco_cep: blank(v.cep),
    endereco_logradouro: blank(v.logradouro),
    endereco_numero: blank(v.numero === undefined || v.numero === null ? null : String(v.numero)),
    endereco_complemento: blank(v.complemento),
    endereco_bairro: blank(v.bairro),
    endereco_cidade_id: cidadeId || null,
    endereco_estado: blank(v.estado)?.toUpperCase() ?? null,
  };
  return { columns, cidade };
}

async function convenioColumns(db: Db, c: z.infer<typeof convenioInput> | undefined) {
  const v = c ?? {};
  const id = v.id || null;
  const planoId = v.plano_id || null;
  if (id && !(await byId(db, CONVENIO_BY_ID, id))) throw referenceError('convenio.id', 'Convenio');
  if (planoId) {
    const plano = await byId<{ id: number; convenio_id: number }>(db, PLANO_BY_ID, planoId);
    if (!plano || (id && plano.convenio_id !== id)) throw referenceError('convenio.plano_id', 'Plano');
  }
  return {
    convenio_id: id,
    convenio_plano_id: id ? planoId : null,
    convenio_numero_carteirinha: id ? blank(v.numero_carteirinha) : null,
  };
}

/** The estado civil row (for the detail answered after the write), or the error if `id` names none. */
async function checkEstadoCivil(db: Db, id: number | null | undefined) {
  if (!id) return undefined;
  const estadoCivil = await byId<{ id: number; nome: string }>(db, ESTADO_CIVIL_BY_ID, id);
  if (!estadoCivil) throw referenceError('estado_civil_id', 'Estado civil');
  return estadoCivil;
}

const randomUsuario = () => `pac${randomBytes(6).toString('hex')}`;

/** Every column but `id`, in the order of the INSERT below. */
const INSERT_COLUMNS = [
  'saudacao', 'nome', 'nome_registro', 'numero_prontuario', 'cpf', 'rg', 'data_nascimento', 'sexo', 'estado_civil_id',
  'telefone', 'celular', 'email', 'endereco_cep', 'endereco_logradouro', 'endereco_numero', 'endereco_complemento',
  'endereco_bairro', 'endereco_cidade_id', 'endereco_estado', 'convenio_id', 'convenio_plano_id', 'convenio_numero_carteirinha',
  'usuario', 'senha_hash', 'senha_temporaria', 'data_alteracao_senha', 'ativo', 'criado_em', 'atualizado_em',
  'criado_por_chave_id', 'atualizado_por_chave_id',
] as const satisfies readonly (keyof PacienteRow)[];
/** `id` NULL: SQLite picks it (the largest id + 1). RETURNING *: the row as stored, as findPaciente reads it. */
const INSERT_PACIENTE = `INSERT INTO pacientes (id, ${INSERT_COLUMNS.join(', ')}) VALUES (?${', ?'.repeat(INSERT_COLUMNS.length)}) RETURNING *`;

/**
 * The id the next INSERT gets from SQLite (a rowid table without AUTOINCREMENT: the largest id + 1, or 1)
 * and whether that id, as text, is already someone's record number: read in the write transaction, so no
 * other insert comes between.
 */
const NEXT_ID =
  'SELECT n.id, EXISTS (SELECT 1 FROM pacientes WHERE numero_prontuario = CAST(n.id AS TEXT)) AS ocupado FROM (SELECT COALESCE(MAX(id), 0) + 1 AS id FROM pacientes) n';

/** Creates the patient and answers its detail ('write' shape). */
export async function createPaciente(db: Db, input: PacienteCreate, ctx: CallContext, now: string) {
  const cfg = await getClinicaConfig(db);
  const cpf = blank(input.cpf);
  const celular = blank(input.celular);
  if (cfg.cpf_obrigatorio && !cpf) throw required('cpf');
  if (cfg.celular_obrigatorio && !celular) throw required('celular');
  checkCpf(cpf);
  const numeroProntuario = blank(input.numero_prontuario);
  const usuario = blank(input.usuario);
  await assertUnique(db, { cpf, numero_prontuario: numeroProntuario, usuario }, null);
  const estadoCivil = await checkEstadoCivil(db, input.estado_civil_id);
  const senha = blank(input.senha);
  const endereco = await enderecoColumns(db, input.endereco);
  const row: Omit<PacienteRow, 'id'> = {
    saudacao: blank(input.saudacao),
    nome: input.nome.trim().toUpperCase(),
    nome_registro: blank(input.nome_registro),
    // Set in the transaction when not given: it depends on the id.
    numero_prontuario: numeroProntuario ?? '',
    cpf,
    rg: blank(input.rg),
    data_nascimento: input.data_nascimento,
    sexo: blank(input.sexo),
    estado_civil_id: input.estado_civil_id || null,
    telefone: blank(input.telefone),
    celular,
    email: blank(input.email),
    ...endereco.columns,
    ...(await convenioColumns(db, input.convenio)),
    usuario: usuario ?? randomUsuario(),
    senha_hash: senha ? await hashPassword(senha) : lockedPassword(),
    // Without an explicit password the random one must be changed at first login.
    senha_temporaria: senha ? (input.senha_temporaria === false ? 0 : 1) : 1,
    data_alteracao_senha: now,
    ativo: input.ativo === false ? 0 : 1,
    criado_em: now,
    atualizado_em: null,
    criado_por_chave_id: ctx.chaveId,
    atualizado_por_chave_id: null,
  };
  const created = await withUniqueRetry(db, { cpf, numero_prontuario: numeroProntuario, usuario: row.usuario }, null, () =>
    db.transaction().execute(async (trx) => {
      // The auto record number is chosen for the id the row is about to get, then inserted with it:
      // the same number an insert followed by an update to freeNumeroProntuario(id) would give.
      let id: number | null = null;
      if (!numeroProntuario) {
        const [next] = await queryRows<{ id: number; ocupado: number }>(trx, NEXT_ID, []);
        id = next.id;
        row.numero_prontuario = next.ocupado ? await freeNumeroProntuario(trx, id, 1) : String(id);
      }
      // Through the transaction's connection, so the idempotent dialect sees the write.
      const [inserted] = await queryRows<PacienteRow>(trx, INSERT_PACIENTE, [id, ...INSERT_COLUMNS.map((c) => row[c])]);
      return inserted;
    }),
  );
  // The detail from the row as inserted and the rows checked above (no re-read: reference rows are not deleted).
  return detailView(created, 'write', { estadoCivil, cidade: endereco.cidade, convenio: undefined });
}

/**
 * The checks above run before the write; a concurrent request can still win the race, and the
 * unique index then refuses the row. Re-running the checks turns that into the proper 422.
 */
async function withUniqueRetry<T>(db: Db, values: Parameters<typeof assertUnique>[1], selfId: number | null, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') await assertUnique(db, values, selfId);
    throw err;
  }
}

/** Auto record number: the id itself, or a suffixed variant if someone typed that number by hand. */
async function freeNumeroProntuario(db: Db, id: number, from = 0): Promise<string> {
  for (let n = from; ; n++) {
    const candidate = n === 0 ? String(id) : `${id}-${n}`;
    if ((await queryRows(db, 'SELECT id FROM pacientes WHERE numero_prontuario = ?', [candidate])).length === 0) return candidate;
  }
}

export async function patchPaciente(db: Db, id: number, input: PacientePatch, ctx: CallContext, now: string) {
  const current = await findPaciente(db, id);
  if (!current) throw notFound();
  const cfg = await getClinicaConfig(db);
  const has = (k: keyof PacientePatch) => Object.prototype.hasOwnProperty.call(input, k);
  const set: Partial<Omit<PacienteRow, 'id'>> = {};

  if (has('nome')) {
    if (!blank(input.nome)) throw new BackendError('BUSINESS_RULE', 'O campo nome e obrigatorio.', { field: 'nome' });
    set.nome = input.nome!.trim().toUpperCase();
  }
  if (has('data_nascimento')) {
    if (!input.data_nascimento) throw new BackendError('BUSINESS_RULE', 'O campo data_nascimento e obrigatorio.', { field: 'data_nascimento' });
    set.data_nascimento = input.data_nascimento;
  }
  if (has('cpf')) {
    set.cpf = blank(input.cpf);
    if (cfg.cpf_obrigatorio && !set.cpf) throw required('cpf');
    checkCpf(set.cpf);
  }
  if (has('celular')) {
    set.celular = blank(input.celular);
    if (cfg.celular_obrigatorio && !set.celular) throw required('celular');
  }
  for (const k of ['saudacao', 'nome_registro', 'rg', 'telefone', 'email', 'sexo'] as const) if (has(k)) set[k] = blank(input[k]);
  if (has('estado_civil_id')) {
    await checkEstadoCivil(db, input.estado_civil_id);
    set.estado_civil_id = input.estado_civil_id || null;
  }
  if (has('numero_prontuario')) set.numero_prontuario = blank(input.numero_prontuario) ?? (await freeNumeroProntuario(db, id));
  if (has('usuario')) set.usuario = blank(input.usuario) ?? randomUsuario();
  if (has('endereco')) Object.assign(set, (await enderecoColumns(db, input.endereco)).columns);
  if (has('convenio')) Object.assign(set, await convenioColumns(db, input.convenio));
  if (has('ativo')) set.ativo = input.ativo === false ? 0 : 1;
  if (has('senha')) {
    const senha = blank(input.senha);
    set.senha_hash = senha ? await hashPassword(senha) : lockedPassword();
    set.senha_temporaria = senha ? (input.senha_temporaria === false ? 0 : 1) : 1;
    set.data_alteracao_senha = now;
  } else if (has('senha_temporaria') && input.senha_temporaria !== null) {
    set.senha_temporaria = input.senha_temporaria ? 1 : 0;
  }
  const unique = { cpf: set.cpf, numero_prontuario: set.numero_prontuario, usuario: set.usuario };
  await assertUnique(db, unique, id);
  await withUniqueRetry(db, unique, id, () =>
    db.updateTable('pacientes').set({ ...set, atualizado_em: now, atualizado_por_chave_id: ctx.chaveId }).where('id', '=', id).execute(),
  );
  return (await findPaciente(db, id))!;
}

export const unificarSchema = z.object({
  paciente_id_principal: z.coerce.number().int().positive(),
  paciente_id_duplicado: z.coerce.number().int().positive(),
});

/** Moves every reference of the duplicate to the principal, then deletes the duplicate physically. */
export async function unificarPacientes(db: Db, principalId: number, duplicadoId: number) {
  if (principalId === duplicadoId)
    throw new BackendError('PACIENTES_UNIFICACAO_MESMO_ID', 'Os pacientes principal e duplicado devem ser diferentes.', {
      field: 'paciente_id_duplicado',
    });
  return db.transaction().execute(async (trx) => {
    if (!(await findPaciente(trx, principalId)))
      throw new BackendError('BUSINESS_RULE', 'Paciente principal nao encontrado.', { field: 'paciente_id_principal' });
    if (!(await findPaciente(trx, duplicadoId)))
      throw new BackendError('BUSINESS_RULE', 'Paciente duplicado nao encontrado.', { field: 'paciente_id_duplicado' });
    // Reports follow their exams, so moving exams moves reports too.
    for (const table of ['exames', 'agendamentos', 'prontuarios', 'prontuario_anexos'] as const)
      await trx.updateTable(table).set({ paciente_id: principalId }).where('paciente_id', '=', duplicadoId).execute();
    await trx.deleteFrom('pacientes').where('id', '=', duplicadoId).execute();
    return { paciente_id_principal: principalId, paciente_id_duplicado: duplicadoId, status: 'unificado' as const };
  });
}
