import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/database.ts';
import { BackendError, found } from '../../errors.ts';
import type { CallContext, Listed } from '../../lib/http.ts';
import { hashPassword, lockedPassword } from '../../lib/password.ts';
import { getClinicaConfig } from '../clinica/clinica.repository.ts';
import { pageOf } from '../paginas.ts';
import { blank, checkCpf, has } from '../campos.ts';
import { enderecoColumns, type EnderecoInput } from '../endereco.ts';
import * as repo from './pacientes.repository.ts';
import type { PacienteRow, UniqueValues } from './pacientes.repository.ts';
import type {
  ConvenioInput,
  PacienteCreate,
  PacienteListFilter,
  PacientePatch,
} from '../../../contracts/backend/pacientes.ts';
import { PACIENTE_LIST_JSON, pacienteDetail, pacienteListItem } from './pacientes.views.ts';

/** A page as JSON written by SQLite, or (a row outside the contract schema) its rows, for the route to refuse. */
export async function listPacientes(db: Db, f: PacienteListFilter): Promise<Listed> {
  const { page, total } = await repo.listPacientesJson(db, f, PACIENTE_LIST_JSON);
  return page ? { data: page, total } : listPacientesRows(db, f);
}

/** The page's rows through the view (the path of the JSON one's test, and of a page outside the contract). */
export async function listPacientesRows(db: Db, f: PacienteListFilter) {
  return pageOf(await repo.listPacientes(db, f), pacienteListItem);
}

/** The patient's detail ('read' shape) or 404. */
export async function getPaciente(db: Db, id: number) {
  return toDetail(db, found(await repo.findPaciente(db, id)), 'read');
}

/** The detail with the rows it names read. */
async function toDetail(db: Db, p: PacienteRow, convenioShape: 'read' | 'write') {
  const estadoCivil = p.estado_civil_id ? await repo.findEstadoCivil(db, p.estado_civil_id) : undefined;
  const cidade = p.endereco_cidade_id ? await repo.findCidade(db, p.endereco_cidade_id) : undefined;
  const convenio = p.convenio_id && convenioShape === 'read' ? await repo.findConvenio(db, p.convenio_id) : undefined;
  return pacienteDetail(p, convenioShape, { estadoCivil, cidade, convenio });
}

const CONFLICTS = {
  cpf: { code: 'CPF_ALREADY_EXISTS', message: 'CPF ja cadastrado para outro paciente.' },
  numero_prontuario: {
    code: 'MEDICAL_RECORD_ALREADY_EXISTS',
    message: 'Numero de prontuario ja utilizado por outro paciente.',
  },
  usuario: { code: 'USUARIO_ALREADY_EXISTS', message: 'Usuario ja utilizado por outro paciente.' },
} as const;

/** Uniqueness rules; `selfId` lets a patient keep its own CPF / record number / usuario. The first rule broken is reported. */
async function assertUnique(db: Db, values: UniqueValues, selfId: number | null) {
  const taken = await repo.findTaken(db, values, selfId);
  if (!taken) return;
  const { code, message } = CONFLICTS[taken.field];
  throw new BackendError(code, message, { paciente_id_existente: taken.id, nome: taken.nome });
}

function required(field: string) {
  return new BackendError('BUSINESS_RULE', `O campo ${field} e obrigatorio para esta clinica.`, { field });
}

function referenceError(field: string, what: string) {
  return new BackendError('BUSINESS_RULE', `${what} inexistente.`, { field });
}

/**
 * Column values for endereco: a present object replaces the whole sub-object; {} or null clears it.
 * `cidade` is the row checked, for the detail answered after the write.
 */
async function checkedEndereco(db: Db, e: EnderecoInput | null | undefined) {
  const cidadeId = e?.cidade_id ?? null;
  const cidade = cidadeId ? await repo.findCidade(db, cidadeId) : undefined;
  if (cidadeId && !cidade) throw referenceError('endereco.cidade_id', 'Cidade');
  return { columns: enderecoColumns(e, cidadeId || null), cidade };
}

async function convenioColumns(db: Db, c: ConvenioInput | undefined) {
  const v = c ?? {};
  const id = v.id || null;
  const planoId = v.plano_id || null;
  if (id && !(await repo.findConvenio(db, id))) throw referenceError('convenio.id', 'Convenio');
  if (planoId) {
    const plano = await repo.findPlano(db, planoId);
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
  const estadoCivil = await repo.findEstadoCivil(db, id);
  if (!estadoCivil) throw referenceError('estado_civil_id', 'Estado civil');
  return estadoCivil;
}

const randomUsuario = () => `pac${randomBytes(6).toString('hex')}`;

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
  const endereco = await checkedEndereco(db, input.endereco);
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
  const created = await withUniqueRetry(
    db,
    { cpf, numero_prontuario: numeroProntuario, usuario: row.usuario },
    null,
    () =>
      db.transaction().execute(async (trx) => {
        if (numeroProntuario) return repo.insertPaciente(trx, null, row);
        // The auto record number is chosen for the id the row is about to get, then inserted with it:
        // the same number an insert followed by an update to freeNumeroProntuario(id) would give. Usually
        // the id itself, in the INSERT; a suffixed variant when someone typed that number by hand.
        const numbered = await repo.insertPacienteNumeroAuto(trx, row);
        if (numbered) return numbered;
        const { id } = await repo.nextId(trx);
        row.numero_prontuario = await freeNumeroProntuario(trx, id, 1);
        return repo.insertPaciente(trx, id, row);
      }),
  );
  // The detail from the row as inserted and the rows checked above (no re-read: reference rows are not deleted).
  return pacienteDetail(created, 'write', { estadoCivil, cidade: endereco.cidade, convenio: undefined });
}

/**
 * The checks above run before the write; a concurrent request can still win the race, and the
 * unique index then refuses the row. Re-running the checks turns that into the proper 422.
 */
async function withUniqueRetry<T>(
  db: Db,
  values: UniqueValues,
  selfId: number | null,
  write: () => Promise<T>,
): Promise<T> {
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
    if (!(await repo.isNumeroProntuarioTaken(db, candidate))) return candidate;
  }
}

/** Updates the fields the body names and answers the detail ('write' shape). */
export async function patchPaciente(db: Db, id: number, input: PacientePatch, ctx: CallContext, now: string) {
  found(await repo.findPaciente(db, id));
  const cfg = await getClinicaConfig(db);
  const set: Partial<Omit<PacienteRow, 'id'>> = {};

  if (has(input, 'nome')) {
    if (!blank(input.nome)) throw new BackendError('BUSINESS_RULE', 'O campo nome e obrigatorio.', { field: 'nome' });
    set.nome = input.nome!.trim().toUpperCase();
  }
  if (has(input, 'data_nascimento')) {
    if (!input.data_nascimento)
      throw new BackendError('BUSINESS_RULE', 'O campo data_nascimento e obrigatorio.', { field: 'data_nascimento' });
    set.data_nascimento = input.data_nascimento;
  }
  if (has(input, 'cpf')) {
    set.cpf = blank(input.cpf);
    if (cfg.cpf_obrigatorio && !set.cpf) throw required('cpf');
    checkCpf(set.cpf);
  }
  if (has(input, 'celular')) {
    set.celular = blank(input.celular);
    if (cfg.celular_obrigatorio && !set.celular) throw required('celular');
  }
  for (const k of ['saudacao', 'nome_registro', 'rg', 'telefone', 'email', 'sexo'] as const)
    if (has(input, k)) set[k] = blank(input[k]);
  if (has(input, 'estado_civil_id')) {
    await checkEstadoCivil(db, input.estado_civil_id);
    set.estado_civil_id = input.estado_civil_id || null;
  }
  if (has(input, 'numero_prontuario'))
    set.numero_prontuario = blank(input.numero_prontuario) ?? (await freeNumeroProntuario(db, id));
  if (has(input, 'usuario')) set.usuario = blank(input.usuario) ?? randomUsuario();
  if (has(input, 'endereco')) Object.assign(set, (await checkedEndereco(db, input.endereco)).columns);
  if (has(input, 'convenio')) Object.assign(set, await convenioColumns(db, input.convenio));
  if (has(input, 'ativo')) set.ativo = input.ativo === false ? 0 : 1;
  if (has(input, 'senha')) {
    const senha = blank(input.senha);
    set.senha_hash = senha ? await hashPassword(senha) : lockedPassword();
    set.senha_temporaria = senha ? (input.senha_temporaria === false ? 0 : 1) : 1;
    set.data_alteracao_senha = now;
  } else if (has(input, 'senha_temporaria') && input.senha_temporaria !== null) {
    set.senha_temporaria = input.senha_temporaria ? 1 : 0;
  }
  const unique = { cpf: set.cpf, numero_prontuario: set.numero_prontuario, usuario: set.usuario };
  await assertUnique(db, unique, id);
  await withUniqueRetry(db, unique, id, () =>
    repo.updatePaciente(db, id, { ...set, atualizado_em: now, atualizado_por_chave_id: ctx.chaveId }),
  );
  return toDetail(db, (await repo.findPaciente(db, id))!, 'write');
}

/** Moves every reference of the duplicate to the principal, then deletes the duplicate physically. */
export async function unificarPacientes(db: Db, principalId: number, duplicadoId: number) {
  if (principalId === duplicadoId)
    throw new BackendError(
      'PACIENTES_UNIFICACAO_MESMO_ID',
      'Os pacientes principal e duplicado devem ser diferentes.',
      {
        field: 'paciente_id_duplicado',
      },
    );
  return db.transaction().execute(async (trx) => {
    if (!(await repo.findPaciente(trx, principalId)))
      throw new BackendError('BUSINESS_RULE', 'Paciente principal nao encontrado.', { field: 'paciente_id_principal' });
    if (!(await repo.findPaciente(trx, duplicadoId)))
      throw new BackendError('BUSINESS_RULE', 'Paciente duplicado nao encontrado.', { field: 'paciente_id_duplicado' });
    await repo.moveReferences(trx, duplicadoId, principalId);
    await repo.deletePaciente(trx, duplicadoId);
    return { paciente_id_principal: principalId, paciente_id_duplicado: duplicadoId, status: 'unificado' as const };
  });
}
