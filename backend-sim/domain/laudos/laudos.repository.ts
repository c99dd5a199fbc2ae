import { sql, type Insertable } from 'kysely';
import type { Db } from '../../db/database.ts';
import { queryRows } from '../../db/statements.ts';
import type { LaudosTable } from '../../db/tables/laudos.ts';
import { countedTotal, pageStart, type DateCounts } from '../paginas.ts';
import type { LaudoListFilter } from './laudos.schemas.ts';

/**
 * Live reports. Deleting an exam soft-deletes its reports in the same transaction, so
 * `laudos.excluido_em IS NULL` alone also excludes reports of deleted exams.
 */
function baseQuery(db: Db) {
  return db.selectFrom('laudos').leftJoin('exames as e', 'e.id', 'laudos.exame_id').where('laudos.excluido_em', 'is', null);
}

function selectRow(q: ReturnType<typeof baseQuery>) {
  return q
    .leftJoin('pacientes as p', 'p.id', 'e.paciente_id')
    .leftJoin('procedimentos as pr', 'pr.id', 'e.procedimento_id')
    .leftJoin('medicos as ml', 'ml.id', 'laudos.medico_laudo_id')
    .select([
    'laudos.id', 'laudos.exame_id', 'e.paciente_id', 'p.nome as paciente_nome', 'e.procedimento_id', 'pr.nome as procedimento_nome',
    'laudos.medico_laudo_id', 'ml.nome as medico_laudo_nome', 'laudos.data_laudo', 'laudos.hora_laudo', 'laudos.assinado', 'laudos.assinado_em',
    'laudos.assinatura_tipo', 'laudos.arquivo_key', 'laudos.criado_em', 'laudos.atualizado_em',
  ]);
}
export type LaudoRow = Awaited<ReturnType<ReturnType<typeof selectRow>['executeTakeFirstOrThrow']>>;

/** AMPLIADO: the report's doctor is the key's doctor, or its exam passes the SIMPLES rule. */
function ampliado(q: ReturnType<typeof baseQuery>, medicoId: number) {
  return q.where((eb) =>
    eb.or([
      eb('laudos.medico_laudo_id', '=', medicoId),
      eb('e.medico_exame_id', '=', medicoId),
      eb('e.medico_laudo_id', '=', medicoId),
      eb('e.medico_solicitante_id', '=', medicoId),
    ]),
  );
}

const LIST_SELECT = `SELECT laudos.id, laudos.exame_id, e.paciente_id, p.nome AS paciente_nome, e.procedimento_id, pr.nome AS procedimento_nome,
  laudos.medico_laudo_id, ml.nome AS medico_laudo_nome, laudos.data_laudo, laudos.hora_laudo, laudos.assinado, laudos.assinado_em,
  laudos.assinatura_tipo, laudos.arquivo_key, laudos.criado_em, laudos.atualizado_em
FROM laudos
LEFT JOIN exames e ON e.id = laudos.exame_id
LEFT JOIN pacientes p ON p.id = e.paciente_id
LEFT JOIN procedimentos pr ON pr.id = e.procedimento_id
LEFT JOIN medicos ml ON ml.id = laudos.medico_laudo_id`;
const NEWEST_FIRST = 'ORDER BY laudos.data_laudo DESC, laudos.id DESC';

/**
 * Newest first, like the exam list (exames.repository.ts); `bound` is the key's doctor (0: none), whose
 * AMPLIADO rule replaces the `medico_laudo_id` filter. Hand-written SQL on one held connection; without
 * exam, patient or bound-doctor filters and with at most one of doctor / signed flag, the total and a
 * deep page's start come from the trigger-kept per-date counts (`laudos_contagem`).
 */
export async function listLaudos(db: Db, f: LaudoListFilter, bound: number): Promise<{ rows: LaudoRow[]; total: number }> {
  const medico = bound ? 0 : (f.medico_laudo_id ?? 0);
  const counted = !bound && !f.exame_id && !f.paciente_id && !(medico && f.assinado);
  const [filtro, valor] = medico ? ['medico', medico] : f.assinado ? ['assinado', Number(f.assinado)] : ['todos', 0];
  const counts: DateCounts = { table: 'laudos_contagem', filtro, valor, inicio: f.periodo_laudo_inicio, fim: f.periodo_laudo_fim };

  const where = ['laudos.excluido_em IS NULL'];
  const params: unknown[] = [];
  // The exam's columns are only needed (and joined) for the AMPLIADO rule and the patient filter.
  const joinExame = bound > 0 || !!f.paciente_id;
  if (bound) {
    where.push('(laudos.medico_laudo_id = ? OR e.medico_exame_id = ? OR e.medico_laudo_id = ? OR e.medico_solicitante_id = ?)');
    params.push(bound, bound, bound, bound);
  } else if (medico) {
    where.push('laudos.medico_laudo_id = ?');
    params.push(medico);
  }
  if (f.exame_id) {
    where.push('laudos.exame_id = ?');
    params.push(f.exame_id);
  }
  if (f.paciente_id) {
    where.push('e.paciente_id = ?');
    params.push(f.paciente_id);
  }
  if (f.assinado) {
    where.push('laudos.assinado = ?');
    params.push(Number(f.assinado));
  }
  if (f.periodo_laudo_inicio) {
    where.push('laudos.data_laudo >= ?');
    params.push(f.periodo_laudo_inicio);
  }
  if (f.periodo_laudo_fim) {
    where.push('laudos.data_laudo <= ?');
    params.push(f.periodo_laudo_fim);
  }
  const fromWhere = `FROM laudos${joinExame ? ' LEFT JOIN exames e ON e.id = laudos.exame_id' : ''} WHERE ${where.join(' AND ')}`;

  return db.connection().execute(async (conn) => {
    const total = counted ? await countedTotal(conn, counts) : (await queryRows<{ total: number }>(conn, `SELECT COUNT(*) AS total ${fromWhere}`, params))[0].total;
    if (f.offset >= total) return { rows: [], total };
    let page = `SELECT laudos.id ${fromWhere} ${NEWEST_FIRST} LIMIT ?`;
    let pageParams = [...params, f.limit];
    if (f.offset > 0 && counted) {
      const start = await pageStart(conn, counts, f.offset, async (data, k) => {
        const sql = `SELECT laudos.id ${fromWhere} AND laudos.data_laudo = ? ORDER BY laudos.id DESC LIMIT 1 OFFSET ?`;
        return (await queryRows<{ id: number }>(conn, sql, [...params, data, k]))[0]?.id;
      });
      page = `SELECT laudos.id ${fromWhere} AND (laudos.data_laudo, laudos.id) <= (?, ?) ${NEWEST_FIRST} LIMIT ?`;
      pageParams = [...params, start.data, start.id, f.limit];
    } else if (f.offset > 0) {
      page += ' OFFSET ?';
      pageParams.push(f.offset);
    }
    const rows = await queryRows<LaudoRow>(conn, `${LIST_SELECT} WHERE laudos.id IN (${page}) ${NEWEST_FIRST}`, pageParams);
    return { rows, total };
  });
}

/** A live report, visible to the bound doctor `medicoFiltroId` (0: anyone). */
export async function findLaudo(db: Db, id: number, medicoFiltroId: number): Promise<LaudoRow | undefined> {
  let q = baseQuery(db).where('laudos.id', '=', id);
  if (medicoFiltroId) q = ampliado(q, medicoFiltroId);
  return selectRow(q).executeTakeFirst();
}

/** The live report just written. */
export async function getLaudo(db: Db, id: number): Promise<LaudoRow> {
  return selectRow(baseQuery(db).where('laudos.id', '=', id)).executeTakeFirstOrThrow();
}

/** The exam a report is ingested for, deleted ones included. */
export async function findExame(db: Db, id: number) {
  return db.selectFrom('exames').select(['id', 'excluido_em']).where('id', '=', id).executeTakeFirst();
}

/** The exam's live report, if it has one. */
export async function findLaudoDoExame(db: Db, exameId: number) {
  return db.selectFrom('laudos').select('id').where('exame_id', '=', exameId).where('excluido_em', 'is', null).executeTakeFirst();
}

export async function insertLaudo(trx: Db, values: Insertable<LaudosTable>): Promise<number> {
  const { id } = await trx.insertInto('laudos').values(values).returning('id').executeTakeFirstOrThrow();
  return id;
}

/** The exam now has its report file; its report doctor is the report's unless it already named one. */
export async function setArquivoLaudo(trx: Db, exameId: number, arquivoKey: string, medicoLaudoId: number, now: string): Promise<void> {
  await trx
    .updateTable('exames')
    .set({ arquivo_laudo_key: arquivoKey, medico_laudo_id: sql`COALESCE(medico_laudo_id, ${medicoLaudoId})`, atualizado_em: now })
    .where('id', '=', exameId)
    .execute();
}
