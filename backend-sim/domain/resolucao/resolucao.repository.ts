import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { papelColumn } from '../medicos/medicos.repository.ts';
import type { ResolucaoMedicoQuery as MedicoQuery } from '../../../contracts/backend/exames.ts';

/** Only active records match: a retired procedure or doctor is never what an alias means. Every lookup is in id order. */

export async function pacientesPorCpf(db: Db, cpf: string) {
  return db.selectFrom('pacientes').select(['id', 'nome']).where('cpf', '=', cpf).orderBy('id').execute();
}

const procedimentosAtivos = (db: Db) =>
  db.selectFrom('procedimentos').select(['id', 'nome', 'abreviacao']).where('ativo', '=', 1).orderBy('id');
export const procedimentosPorTuss = (db: Db, codigoTuss: string) =>
  procedimentosAtivos(db).where('codigo_tuss', '=', codigoTuss).execute();
export const listProcedimentosAtivos = (db: Db) => procedimentosAtivos(db).execute();

const conveniosAtivos = (db: Db) =>
  db.selectFrom('convenios').select(['id', 'nome']).where('ativo', '=', 1).orderBy('id');
export const conveniosPorAns = (db: Db, codigoAns: string) =>
  conveniosAtivos(db).where('codigo_ans', '=', codigoAns).execute();
export const listConveniosAtivos = (db: Db) => conveniosAtivos(db).execute();

/** CRM number compared without leading zeros; the state only when the alias carries one; active doctors with the role. */
export async function medicosPorCrm(db: Db, q: MedicoQuery) {
  let query = db
    .selectFrom('medicos')
    .select(['id', 'nome'])
    .where('ativo', '=', 1)
    .where(papelColumn[q.papel], '=', 1)
    .where(sql<boolean>`ltrim(trim(conselho_numero), '0') = ltrim(${q.crm}, '0')`)
    .where(sql<boolean>`coalesce(upper(trim(conselho_sigla)), 'CRM') IN ('CRM', '')`);
  if (q.uf) query = query.where(sql<boolean>`upper(trim(conselho_uf)) = ${q.uf}`);
  return query.orderBy('id').execute();
}

export async function listUnidadesAtivas(db: Db) {
  return db.selectFrom('unidades').select(['id', 'nome']).where('ativo', '=', 1).orderBy('id').execute();
}
