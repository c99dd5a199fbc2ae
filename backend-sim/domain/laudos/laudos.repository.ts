import { sql, type Insertable, type Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import { Conditions } from '../../db/conditions.ts';
import { queryRows } from '../../db/statements.ts';
import type { LaudosTable } from '../../db/tables/laudos.ts';
import type { CallContext } from '../../lib/http.ts';
import { newestFirstPage, type DateCounts, type Filtered, type NewestFirstList } from '../paginas.ts';
import type { LaudoListFilter } from '../../../contracts/backend/laudos.ts';

/** A report's row, for lists and details alike, with its exam's patient and procedure and its doctor's name. */
export type LaudoRow = Pick<
  Selectable<LaudosTable>,
  | 'id'
  | 'exame_id'
  | 'medico_laudo_id'
  | 'data_laudo'
  | 'hora_laudo'
  | 'assinado'
  | 'assinado_em'
  | 'assinatura_tipo'
  | 'arquivo_key'
  | 'criado_em'
  | 'atualizado_em'
> & {
  paciente_id: number | null;
  paciente_nome: string | null;
  procedimento_id: number | null;
  procedimento_nome: string | null;
  medico_laudo_nome: string | null;
};

/** AMPLIADO: the report's doctor is the key's doctor, or its exam passes the SIMPLES rule (needs `exames e` joined). */
const AMPLIADO =
  '(laudos.medico_laudo_id = ? OR e.medico_exame_id = ? OR e.medico_laudo_id = ? OR e.medico_solicitante_id = ?)';

/**
 * Live reports are `laudos.excluido_em IS NULL`: deleting an exam soft-deletes its reports in the same
 * transaction, so that alone also excludes reports of deleted exams. Hand-written SQL (statements cached per text).
 */
const ROW_SELECT = `SELECT laudos.id, laudos.exame_id, e.paciente_id, p.nome AS paciente_nome, e.procedimento_id, pr.nome AS procedimento_nome,
  laudos.medico_laudo_id, ml.nome AS medico_laudo_nome, laudos.data_laudo, laudos.hora_laudo, laudos.assinado, laudos.assinado_em,
  laudos.assinatura_tipo, laudos.arquivo_key, laudos.criado_em, laudos.atualizado_em
FROM laudos
LEFT JOIN exames e ON e.id = laudos.exame_id
LEFT JOIN pacientes p ON p.id = e.paciente_id
LEFT JOIN procedimentos pr ON pr.id = e.procedimento_id
LEFT JOIN medicos ml ON ml.id = laudos.medico_laudo_id`;
/** Its id queries may join `exames e`: columns named with their table. */
const LIST: NewestFirstList = { table: 'laudos', date: 'data_laudo', qualified: true, rows: ROW_SELECT };

/**
 * Newest first, like the exam list (exames.repository.ts); `bound` is the key's doctor (0: none), whose
 * AMPLIADO rule replaces the `medico_laudo_id` filter. Hand-written SQL on one held connection; without
 * exam, patient or bound-doctor filters and with at most one of doctor / signed flag, the total and a
 * deep page's start come from the trigger-kept per-date counts (`laudos_contagem`).
 */
export async function listLaudos(
  db: Db,
  f: LaudoListFilter,
  bound: number,
): Promise<{ rows: LaudoRow[]; total: number }> {
  const medico = bound ? 0 : (f.medico_laudo_id ?? 0);
  const counted = !bound && !f.exame_id && !f.paciente_id && !(medico && f.assinado);
  const [filtro, valor] = medico ? ['medico', medico] : f.assinado ? ['assinado', Number(f.assinado)] : ['todos', 0];
  const counts: DateCounts = {
    table: 'laudos_contagem',
    filtro,
    valor,
    inicio: f.periodo_laudo_inicio,
    fim: f.periodo_laudo_fim,
  };

  const c = new Conditions('laudos.excluido_em IS NULL');
  // The exam's columns are only needed (and joined) for the AMPLIADO rule and the patient filter.
  const joinExame = bound > 0 || !!f.paciente_id;
  if (bound) c.add(AMPLIADO, bound, bound, bound, bound);
  else c.when(medico, 'laudos.medico_laudo_id = ?');
  c.when(f.exame_id, 'laudos.exame_id = ?')
    .when(f.paciente_id, 'e.paciente_id = ?')
    .when(f.assinado, 'laudos.assinado = ?', Number(f.assinado))
    .when(f.periodo_laudo_inicio, 'laudos.data_laudo >= ?')
    .when(f.periodo_laudo_fim, 'laudos.data_laudo <= ?');
  const filtered: Filtered = {
    from: `FROM laudos${joinExame ? ' LEFT JOIN exames e ON e.id = laudos.exame_id' : ''} WHERE ${c.joined()}`,
    params: c.params,
  };

  return newestFirstPage<LaudoRow>(db, LIST, f, {
    counts: counted ? counts : null,
    total: filtered,
    page: () => filtered,
    startFromCounts: f.offset > 0,
  });
}

/** A live report, visible to the bound doctor `medicoFiltroId` (AMPLIADO; 0: anyone, as for the report just written). */
export async function findLaudo(db: Db, id: number, medicoFiltroId = 0): Promise<LaudoRow | undefined> {
  const c = new Conditions('laudos.excluido_em IS NULL').add('laudos.id = ?', id);
  if (medicoFiltroId) c.add(AMPLIADO, medicoFiltroId, medicoFiltroId, medicoFiltroId, medicoFiltroId);
  return (await queryRows<LaudoRow>(db, `${ROW_SELECT} WHERE ${c.joined()}`, c.params))[0];
}

/** The exam a report is ingested for, deleted ones included. */
export async function findExame(db: Db, id: number) {
  return db.selectFrom('exames').select(['id', 'excluido_em']).where('id', '=', id).executeTakeFirst();
}

/** The exam's live report, if it has one. */
export async function findLaudoDoExame(db: Db, exameId: number) {
  return db
    .selectFrom('laudos')
    .select('id')
    .where('exame_id', '=', exameId)
    .where('excluido_em', 'is', null)
    .executeTakeFirst();
}

/**
 * The row of a report the API ingests with its PDF (stored at `arquivoKey`): signed ICP-Brasil at the clock's
 * instant by its reporting doctor, titled by `titulo`, else its reference, else `Laudo`.
 */
export function signedLaudo(
  exameId: number,
  medicoLaudoId: number,
  text: { titulo?: string | null; referencia?: string | null; cid_id?: number | null },
  arquivoKey: string,
  ctx: CallContext,
  clock: { now: string; today: string; hora: string },
): Insertable<LaudosTable> {
  return {
    exame_id: exameId,
    medico_laudo_id: medicoLaudoId,
    data_laudo: clock.today,
    hora_laudo: clock.hora,
    titulo: text.titulo ?? text.referencia ?? 'Laudo',
    referencia: text.referencia ?? null,
    cid_id: text.cid_id ?? null,
    assinado: 1,
    assinado_em: clock.now,
    assinatura_tipo: 'ICP-Brasil',
    arquivo_key: arquivoKey,
    criado_em: clock.now,
    criado_por_chave_id: ctx.chaveId,
  };
}

export async function insertLaudo(trx: Db, values: Insertable<LaudosTable>): Promise<number> {
  const { id } = await trx.insertInto('laudos').values(values).returning('id').executeTakeFirstOrThrow();
  return id;
}

/** The exam now has its report file; its report doctor is the report's unless it already named one. */
export async function setArquivoLaudo(
  trx: Db,
  exameId: number,
  arquivoKey: string,
  medicoLaudoId: number,
  now: string,
): Promise<void> {
  await trx
    .updateTable('exames')
    .set({
      arquivo_laudo_key: arquivoKey,
      medico_laudo_id: sql`COALESCE(medico_laudo_id, ${medicoLaudoId})`,
      atualizado_em: now,
    })
    .where('id', '=', exameId)
    .execute();
}
