import { sql, type Selectable } from 'kysely';
import { z } from 'zod';
import type { Db } from '../db/database.ts';
import type { MedicosTable } from '../db/tables/medicos.ts';
import { BackendError, notFound } from '../errors.ts';
import { enderecoView } from './endereco.ts';
import { isValidCpf } from '../lib/cpf.ts';
import type { CallContext } from '../lib/http.ts';
import { hashPassword } from '../lib/password.ts';
import { likePrefix } from './catalogos.ts';

type MedicoRow = Selectable<MedicosTable>;
export const PAPEIS = ['EXAME', 'LAUDO', 'SOLICITANTE'] as const;
export type Papel = (typeof PAPEIS)[number];

export function papeisOf(m: Pick<MedicoRow, 'papel_exame' | 'papel_laudo' | 'papel_solicitante'>): Papel[] {
  const out: Papel[] = [];
  if (m.papel_exame) out.push('EXAME');
  if (m.papel_laudo) out.push('LAUDO');
  if (m.papel_solicitante) out.push('SOLICITANTE');
  return out;
}

/** Only the last 2 characters stay visible. */
export function mask(v: string | null): string | null {
  if (!v) return v;
  return v.length <= 2 ? v : '*'.repeat(v.length - 2) + v.slice(-2);
}

export const medicosQuery = z.object({
  // The gateway may forward a repeated `papel` (array) or a comma-separated value.
  papel: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((v) => (v === undefined ? [] : (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).map((s) => s.trim().toUpperCase()).filter(Boolean)))
    .pipe(z.array(z.enum(PAPEIS))),
  q: z.string().optional(),
  ativo: z.enum(['0', '1']).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

const papelColumn = { EXAME: 'papel_exame', LAUDO: 'papel_laudo', SOLICITANTE: 'papel_solicitante' } as const;

export async function listMedicos(db: Db, f: z.infer<typeof medicosQuery>) {
  let q = db.selectFrom('medicos as m').leftJoin('saudacoes as s', 's.id', 'm.saudacao_id').where('m.ativo', '=', f.ativo === '0' ? 0 : 1);
  if (f.q) q = q.where(sql<boolean>`m.nome LIKE ${likePrefix(f.q)} ESCAPE '\\'`);
  if (f.papel.length) q = q.where(({ or, eb }) => or(f.papel.map((p) => eb(`m.${papelColumn[p]}`, '=', 1))));
  const [rows, count] = await Promise.all([
    q.selectAll('m').select('s.nome as saudacao_nome').orderBy('m.nome').orderBy('m.id').limit(f.limit).offset(f.offset).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return {
    total: Number(count.total),
    data: rows.map((m) => ({
      id: m.id,
      nome: m.nome,
      saudacao: m.saudacao_nome ?? '',
      conselho: { sigla: m.conselho_sigla ?? '', numero: m.conselho_numero ?? '', uf: m.conselho_uf ?? '' },
      especialidade: m.especialidade ?? '',
      papeis: papeisOf(m),
      ativo: m.ativo === 1,
    })),
  };
}

export async function findMedico(db: Db, id: number) {
  return db.selectFrom('medicos').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function medicoDetail(db: Db, m: MedicoRow) {
  const [saudacao, cidade] = await Promise.all([
    m.saudacao_id ? db.selectFrom('saudacoes').select('nome').where('id', '=', m.saudacao_id).executeTakeFirst() : undefined,
    m.endereco_cidade_id ? db.selectFrom('cidades').select('nome').where('id', '=', m.endereco_cidade_id).executeTakeFirst() : undefined,
  ]);
  return {
    id: m.id,
    nome: m.nome,
    nome_registro: m.nome_registro ?? '',
    saudacao: saudacao?.nome ?? '',
    saudacao_id: m.saudacao_id,
    cpf: mask(m.cpf),
    rg: mask(m.rg),
    data_nascimento: m.data_nascimento,
    sexo: m.sexo,
    conselho: { tipo: m.conselho_sigla ?? '', numero: m.conselho_numero ?? '', uf: m.conselho_uf ?? '' },
    especialidade: m.especialidade ?? '',
    papeis: papeisOf(m),
    grupo_permissao_id: m.grupo_permissao_id,
    usuario: m.usuario,
    telefone: m.telefone,
    celular: m.celular,
    email: m.email,
    endereco: enderecoView(m, cidade),
    cor_agenda: m.cor_agenda ?? '',
    ativo: m.ativo === 1,
  };
}

const text = z.string().nullable().optional();
const medicoFields = {
  nome: z.string().nullable().optional(),
  nome_registro: text,
  saudacao: text,
  saudacao_id: z.number().int().nullable().optional(),
  grupo_permissao: text,
  grupo_permissao_id: z.number().int().nullable().optional(),
  usuario: text,
  senha: text,
  cpf: text,
  rg: text,
  data_nascimento: text,
  sexo: text,
  conselho: z
    .object({ sigla: text, tipo: text, numero: z.union([z.string(), z.number()]).nullable().optional(), uf: text })
    .nullable()
    .optional(),
  especialidade: text,
  papeis: z.array(z.enum(PAPEIS)).nullable().optional(),
  telefone: text,
  celular: text,
  email: text,
  endereco: z
    .object({
      cep: text,
      logradouro: text,
      numero: z.union([z.string(), z.number()]).nullable().optional(),
      complemento: text,
      bairro: text,
      cidade: text,
      cidade_id: z.number().int().nullable().optional(),
      estado: text,
    })
    .nullable()
    .optional(),
  cor_agenda: text,
  ativo: z.boolean().nullable().optional(),
};
export const medicoWriteSchema = z.object(medicoFields);
export type MedicoWrite = z.infer<typeof medicoWriteSchema>;

const blank = (v: string | number | null | undefined): string | null =>
  v === undefined || v === null || String(v).trim() === '' ? null : String(v).trim();

function invalidRef(field: string, what: string) {
  return new BackendError('INVALID_REFERENCE', `${what} inexistente.`, { field });
}

/** Text or id: text is matched case-insensitively on the name. */
async function resolveNamed(db: Db, table: 'saudacoes' | 'grupos_permissao', id: number | null | undefined, nome: string | null | undefined, field: string, what: string) {
  if (id) {
    if (!(await db.selectFrom(table).select('id').where('id', '=', id).executeTakeFirst())) throw invalidRef(`${field}_id`, what);
    return id;
  }
  const name = blank(nome);
  if (!name) return null;
  const row = await db.selectFrom(table).select('id').where(sql<boolean>`nome = ${name} COLLATE NOCASE`).executeTakeFirst();
  if (!row) throw invalidRef(field, what);
  return row.id;
}

async function enderecoColumns(db: Db, e: MedicoWrite['endereco']) {
  const v = e ?? {};
  let cidadeId = v.cidade_id || null;
  const estado = blank(v.estado)?.toUpperCase() ?? null;
  if (cidadeId) {
    if (!(await db.selectFrom('cidades').select('id').where('id', '=', cidadeId).executeTakeFirst())) throw invalidRef('endereco.cidade_id', 'Cidade');
  } else if (blank(v.cidade)) {
    // Doctors' addresses name the city; it is resolved here, within the state when one is given.
    let q = db.selectFrom('cidades').select('id').where(sql<boolean>`nome = ${blank(v.cidade)} COLLATE NOCASE`);
    if (estado) q = q.where('uf', '=', estado);
    const row = await q.executeTakeFirst();
    if (!row) throw invalidRef('endereco.cidade', 'Cidade');
    cidadeId = row.id;
  }
  return {
    endereco_cep: blank(v.cep),
    endereco_logradouro: blank(v.logradouro),
    endereco_numero: blank(v.numero),
    endereco_complemento: blank(v.complemento),
    endereco_bairro: blank(v.bairro),
    endereco_cidade_id: cidadeId,
    endereco_estado: estado,
  };
}

function conselhoColumns(c: MedicoWrite['conselho']) {
  const v = c ?? {};
  return { conselho_sigla: blank(v.sigla ?? v.tipo)?.toUpperCase() ?? null, conselho_numero: blank(v.numero), conselho_uf: blank(v.uf)?.toUpperCase() ?? null };
}

function papelColumns(p: Papel[] | null | undefined) {
  const set = new Set(p ?? []);
  return { papel_exame: set.has('EXAME') ? 1 : 0, papel_laudo: set.has('LAUDO') ? 1 : 0, papel_solicitante: set.has('SOLICITANTE') ? 1 : 0 };
}

async function assertUsuarioFree(db: Db, usuario: string, selfId: number | null) {
  let q = db.selectFrom('medicos').select(['id', 'nome']).where(sql<boolean>`usuario = ${usuario} COLLATE NOCASE`);
  if (selfId) q = q.where('id', '!=', selfId);
  const other = await q.executeTakeFirst();
  if (other) throw new BackendError('USUARIO_ALREADY_EXISTS', 'Usuario ja utilizado por outro usuario do sistema.', { field: 'usuario', medico_id_existente: other.id, nome: other.nome });
}

function checkCpf(cpf: string | null) {
  if (cpf && !isValidCpf(cpf)) throw new BackendError('VAL_BACKEND', 'CPF invalido.', { field: 'cpf' });
}

function requiredField(field: string) {
  return new BackendError('VALIDATION_ERROR', `O campo ${field} e obrigatorio.`, { field });
}

export async function createMedico(db: Db, input: MedicoWrite, ctx: CallContext, now: string) {
  const nome = blank(input.nome);
  const usuario = blank(input.usuario);
  const senha = blank(input.senha);
  if (!nome) throw requiredField('nome');
  if (!usuario) throw requiredField('usuario');
  if (!senha) throw requiredField('senha');
  const cpf = blank(input.cpf);
  checkCpf(cpf);
  await assertUsuarioFree(db, usuario, null);
  const row = {
    nome,
    nome_registro: blank(input.nome_registro),
    saudacao_id: await resolveNamed(db, 'saudacoes', input.saudacao_id, input.saudacao, 'saudacao', 'Saudacao'),
    grupo_permissao_id: await resolveNamed(db, 'grupos_permissao', input.grupo_permissao_id, input.grupo_permissao, 'grupo_permissao', 'Grupo de permissao'),
    usuario,
    senha_hash: await hashPassword(senha),
    cpf,
    rg: blank(input.rg),
    data_nascimento: blank(input.data_nascimento),
    sexo: blank(input.sexo),
    ...conselhoColumns(input.conselho),
    especialidade: blank(input.especialidade),
    ...papelColumns(input.papeis),
    telefone: blank(input.telefone),
    celular: blank(input.celular),
    email: blank(input.email),
    ...(await enderecoColumns(db, input.endereco)),
    cor_agenda: blank(input.cor_agenda),
    ativo: input.ativo === false ? 0 : 1,
    criado_em: now,
    atualizado_em: null,
    criado_por_chave_id: ctx.chaveId,
    atualizado_por_chave_id: null,
  };
  const { id } = await db.insertInto('medicos').values(row).returning('id').executeTakeFirstOrThrow();
  return (await findMedico(db, id))!;
}

/** Read, merge, write: papeis/conselho/endereco replace the whole current value. */
export async function patchMedico(db: Db, id: number, input: MedicoWrite, ctx: CallContext, now: string) {
  const current = await findMedico(db, id);
  if (!current) throw notFound();
  const has = (k: keyof MedicoWrite) => Object.prototype.hasOwnProperty.call(input, k);
  const set: Partial<Omit<MedicoRow, 'id'>> = {};
  if (has('nome')) {
    const nome = blank(input.nome);
    if (!nome) throw requiredField('nome');
    set.nome = nome;
  }
  if (has('usuario')) {
    const usuario = blank(input.usuario);
    if (!usuario) throw requiredField('usuario');
    await assertUsuarioFree(db, usuario, id);
    set.usuario = usuario;
  }
  if (has('senha')) {
    const senha = blank(input.senha);
    if (!senha) throw requiredField('senha');
    set.senha_hash = await hashPassword(senha);
  }
  if (has('cpf')) {
    set.cpf = blank(input.cpf);
    checkCpf(set.cpf);
  }
  for (const k of ['nome_registro', 'rg', 'data_nascimento', 'sexo', 'especialidade', 'telefone', 'celular', 'email', 'cor_agenda'] as const)
    if (has(k)) set[k] = blank(input[k]);
  if (has('saudacao') || has('saudacao_id'))
    set.saudacao_id = await resolveNamed(db, 'saudacoes', input.saudacao_id, input.saudacao, 'saudacao', 'Saudacao');
  if (has('grupo_permissao') || has('grupo_permissao_id'))
    set.grupo_permissao_id = await resolveNamed(db, 'grupos_permissao', input.grupo_permissao_id, input.grupo_permissao, 'grupo_permissao', 'Grupo de permissao');
  if (has('conselho')) Object.assign(set, conselhoColumns(input.conselho));
  if (has('papeis')) Object.assign(set, papelColumns(input.papeis));
  if (has('endereco')) Object.assign(set, await enderecoColumns(db, input.endereco));
  if (has('ativo')) set.ativo = input.ativo === false ? 0 : 1;
  await db.updateTable('medicos').set({ ...set, atualizado_em: now, atualizado_por_chave_id: ctx.chaveId }).where('id', '=', id).execute();
  return (await findMedico(db, id))!;
}
