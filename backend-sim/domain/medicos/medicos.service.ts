import type { Db } from '../../db/database.ts';
import { BackendError, found } from '../../errors.ts';
import type { CallContext } from '../../lib/http.ts';
import { hashPassword } from '../../lib/password.ts';
import { blank, checkCpf, has } from '../campos.ts';
import { enderecoColumns, enderecoEstado } from '../endereco.ts';
import { pageOf } from '../paginas.ts';
import { exists } from '../referencias.ts';
import * as repo from './medicos.repository.ts';
import type { MedicoRow } from './medicos.repository.ts';
import type { MedicoListFilter, MedicoWrite } from '../../../contracts/backend/medicos.ts';
import type { Papel } from '../../../contracts/schemas/medicos.ts';
import { medicoDetail, medicoListItem } from './medicos.views.ts';

export async function listMedicos(db: Db, f: MedicoListFilter) {
  return pageOf(await repo.listMedicos(db, f), medicoListItem);
}

/** The doctor's detail or 404. */
export async function getMedico(db: Db, id: number) {
  return toDetail(db, found(await repo.findMedico(db, id)));
}

async function toDetail(db: Db, m: MedicoRow) {
  return medicoDetail(m, await repo.findDetailNames(db, m));
}

/** A doctor that exists, is active and (when given) holds the role: what an exam or report may name. */
export async function medicoComPapel(
  db: Db,
  id: number,
  papel: 'papel_exame' | 'papel_laudo' | 'papel_solicitante' | null,
) {
  const m = await repo.findMedico(db, id);
  return !!m && m.ativo === 1 && (papel === null || m[papel] === 1);
}

function invalidRef(field: string, what: string) {
  return new BackendError('INVALID_REFERENCE', `${what} inexistente.`, { field });
}

/** The references a doctor's write may give by id (`<field>_id`) or by name (`<field>`): their table and word. */
const NAMED_REFERENCES = {
  saudacao: { table: 'saudacoes', what: 'Saudacao' },
  grupo_permissao: { table: 'grupos_permissao', what: 'Grupo de permissao' },
} as const;

/** The id of `field`'s row: by id, or by name matched case-insensitively; null when neither is given. */
async function resolveNamed(db: Db, field: keyof typeof NAMED_REFERENCES, input: MedicoWrite) {
  const { table, what } = NAMED_REFERENCES[field];
  const id = input[`${field}_id`];
  if (id) {
    if (!(await exists(db, table, id))) throw invalidRef(`${field}_id`, what);
    return id;
  }
  const name = blank(input[field]);
  if (!name) return null;
  const row = await repo.findIdByName(db, table, name);
  if (!row) throw invalidRef(field, what);
  return row.id;
}

async function checkedEndereco(db: Db, e: MedicoWrite['endereco']) {
  const v = e ?? {};
  let cidadeId = v.cidade_id || null;
  if (cidadeId) {
    if (!(await exists(db, 'cidades', cidadeId))) throw invalidRef('endereco.cidade_id', 'Cidade');
  } else if (blank(v.cidade)) {
    // Doctors' addresses name the city; it is resolved here, within the state when one is given.
    const row = await repo.findCidadeByName(db, blank(v.cidade)!, enderecoEstado(v));
    if (!row) throw invalidRef('endereco.cidade', 'Cidade');
    cidadeId = row.id;
  }
  return enderecoColumns(v, cidadeId);
}

function conselhoColumns(c: MedicoWrite['conselho']) {
  const v = c ?? {};
  return {
    conselho_sigla: blank(v.sigla ?? v.tipo)?.toUpperCase() ?? null,
    conselho_numero: blank(v.numero),
    conselho_uf: blank(v.uf)?.toUpperCase() ?? null,
  };
}

function papelColumns(p: Papel[] | null | undefined) {
  const set = new Set(p ?? []);
  return {
    papel_exame: set.has('EXAME') ? 1 : 0,
    papel_laudo: set.has('LAUDO') ? 1 : 0,
    papel_solicitante: set.has('SOLICITANTE') ? 1 : 0,
  };
}

async function assertUsuarioFree(db: Db, usuario: string, selfId: number | null) {
  const other = await repo.findByUsuario(db, usuario, selfId);
  if (other)
    throw new BackendError('USUARIO_ALREADY_EXISTS', 'Usuario ja utilizado por outro usuario do sistema.', {
      field: 'usuario',
      medico_id_existente: other.id,
      nome: other.nome,
    });
}

function requiredField(field: string) {
  return new BackendError('VALIDATION_ERROR', `O campo ${field} e obrigatorio.`, { field });
}

/** Creates the doctor and answers its detail. */
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
    saudacao_id: await resolveNamed(db, 'saudacao', input),
    grupo_permissao_id: await resolveNamed(db, 'grupo_permissao', input),
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
    ...(await checkedEndereco(db, input.endereco)),
    cor_agenda: blank(input.cor_agenda),
    ativo: input.ativo === false ? 0 : 1,
    criado_em: now,
    atualizado_em: null,
    criado_por_chave_id: ctx.chaveId,
    atualizado_por_chave_id: null,
  };
  const id = await repo.insertMedico(db, row);
  return toDetail(db, (await repo.findMedico(db, id))!);
}

/** Read, merge, write: papeis/conselho/endereco replace the whole current value. Answers the detail. */
export async function patchMedico(db: Db, id: number, input: MedicoWrite, ctx: CallContext, now: string) {
  found(await repo.findMedico(db, id));
  const set: Partial<Omit<MedicoRow, 'id'>> = {};
  if (has(input, 'nome')) {
    const nome = blank(input.nome);
    if (!nome) throw requiredField('nome');
    set.nome = nome;
  }
  if (has(input, 'usuario')) {
    const usuario = blank(input.usuario);
    if (!usuario) throw requiredField('usuario');
    await assertUsuarioFree(db, usuario, id);
    set.usuario = usuario;
  }
  if (has(input, 'senha')) {
    const senha = blank(input.senha);
    if (!senha) throw requiredField('senha');
    set.senha_hash = await hashPassword(senha);
  }
  if (has(input, 'cpf')) {
    set.cpf = blank(input.cpf);
    checkCpf(set.cpf);
  }
  for (const k of [
    'nome_registro',
    'rg',
    'data_nascimento',
    'sexo',
    'especialidade',
    'telefone',
    'celular',
    'email',
    'cor_agenda',
  ] as const)
    if (has(input, k)) set[k] = blank(input[k]);
  for (const field of ['saudacao', 'grupo_permissao'] as const)
    if (has(input, field) || has(input, `${field}_id`)) set[`${field}_id`] = await resolveNamed(db, field, input);
  if (has(input, 'conselho')) Object.assign(set, conselhoColumns(input.conselho));
  if (has(input, 'papeis')) Object.assign(set, papelColumns(input.papeis));
  if (has(input, 'endereco')) Object.assign(set, await checkedEndereco(db, input.endereco));
  if (has(input, 'ativo')) set.ativo = input.ativo === false ? 0 : 1;
  await repo.updateMedico(db, id, { ...set, atualizado_em: now, atualizado_por_chave_id: ctx.chaveId });
  return toDetail(db, (await repo.findMedico(db, id))!);
}
