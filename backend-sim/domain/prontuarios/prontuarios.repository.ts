import type { Insertable } from 'kysely';
import type { Db } from '../../db/database.ts';
import { pageWithTotal } from '../paginas.ts';
import type { ProntuarioAnexosTable, ProntuariosTable } from '../../db/tables/prontuarios.ts';
import type { AnexoPage, ProntuarioPage } from '../../../contracts/backend/prontuarios.ts';

export async function insertProntuario(trx: Db, values: Insertable<ProntuariosTable>): Promise<number> {
  const { id } = await trx.insertInto('prontuarios').values(values).returning('id').executeTakeFirstOrThrow();
  return id;
}

export async function insertAnexo(trx: Db, values: Insertable<ProntuarioAnexosTable>): Promise<number> {
  const { id } = await trx.insertInto('prontuario_anexos').values(values).returning('id').executeTakeFirstOrThrow();
  return id;
}

/** The patient's finished records (rascunho = 0), newest first, with their doctor's name. */
export async function listProntuarios(db: Db, pacienteId: number, f: ProntuarioPage) {
  const q = db
    .selectFrom('prontuarios as pt')
    .leftJoin('medicos as m', 'm.id', 'pt.medico_id')
    .where('pt.paciente_id', '=', pacienteId)
    .where('pt.rascunho', '=', 0);
  return pageWithTotal(
    q
      .select([
        'pt.id',
        'pt.data_emissao',
        'pt.mensagem',
        'pt.exibir',
        'pt.rascunho',
        'pt.medico_id',
        'm.nome as medico_nome',
      ])
      .orderBy('pt.data_emissao', 'desc')
      .orderBy('pt.id', 'desc')
      .limit(f.limit)
      .offset(f.offset)
      .execute(),
    q,
  );
}

export async function listAnexos(db: Db, pacienteId: number, f: AnexoPage) {
  const q = db.selectFrom('prontuario_anexos').where('paciente_id', '=', pacienteId);
  return pageWithTotal(
    q.select(['id', 'descricao', 'extensao', 'tamanho']).orderBy('id').limit(f.limit).offset(f.offset).execute(),
    q,
  );
}

/** The patient's attachment (another patient's is not found). */
export async function findAnexo(db: Db, pacienteId: number, anexoId: number) {
  return db
    .selectFrom('prontuario_anexos')
    .select(['object_key'])
    .where('id', '=', anexoId)
    .where('paciente_id', '=', pacienteId)
    .executeTakeFirst();
}
