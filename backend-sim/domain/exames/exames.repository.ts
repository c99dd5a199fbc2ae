import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import { Conditions } from '../../db/conditions.ts';
import { queryRows } from '../../db/statements.ts';
import type { ExclusaoColumns } from '../../db/tables/columns.ts';
import type { ExameArquivosTable } from '../../db/tables/exame-arquivos.ts';
import type { ExamesTable } from '../../db/tables/exames.ts';
import type { LaudosTable } from '../../db/tables/laudos.ts';
import { newestFirstPage, type DateCounts, type Filtered, type NewestFirstList } from '../paginas.ts';
import type { ExameListFilter } from '../../../contracts/backend/exames.ts';

/** status_laudo is derived on read: no report file → PENDENTE; file and a signed live report → ASSINADO; else EMITIDO. */
const SIGNED_REPORT_EXISTS =
  'EXISTS (SELECT 1 FROM laudos l WHERE l.exame_id = exames.id AND l.assinado = 1 AND l.excluido_em IS NULL)';
const STATUS_LAUDO = `CASE
  WHEN exames.arquivo_laudo_key IS NULL THEN 'PENDENTE'
  WHEN ${SIGNED_REPORT_EXISTS} THEN 'ASSINADO'
  ELSE 'EMITIDO' END`;

type Exame = Selectable<ExamesTable>;

/** What a list item reads from its row (the list query selects exactly this). */
export type ExameItemRow = Pick<
  Exame,
  | 'id'
  | 'paciente_id'
  | 'procedimento_id'
  | 'medico_exame_id'
  | 'medico_laudo_id'
  | 'medico_solicitante_id'
  | 'data_realizado'
  | 'arquivo_exame_key'
  | 'arquivo_laudo_key'
  | 'criado_em'
> & {
  paciente_nome: string;
  procedimento_nome: string;
  medico_exame_nome: string | null;
  medico_laudo_nome: string | null;
  solicitante_nome: string | null;
  status_laudo: 'PENDENTE' | 'EMITIDO' | 'ASSINADO';
};

/** An exam's row as its detail and create answers read it: the item's columns and a few more. */
export type ExameRow = ExameItemRow &
  Pick<Exame, 'hora_realizado' | 'atualizado_em' | 'requer_laudo' | 'prioridade'> & {
    laudo_assinado_em: string | null;
  };

/**
 * One exam row for lists and details alike: the item's columns, the names of what it references, by hand-written
 * SQL (statements cached per SQL text; building a Kysely query costs more than running a short one).
 */
const ITEM_COLUMNS = `exames.id, exames.paciente_id, p.nome AS paciente_nome, exames.procedimento_id, pr.nome AS procedimento_nome,
  exames.medico_exame_id, me.nome AS medico_exame_nome, exames.medico_laudo_id, ml.nome AS medico_laudo_nome,
  exames.medico_solicitante_id, ms.nome AS solicitante_nome, exames.data_realizado, exames.arquivo_exame_key, exames.arquivo_laudo_key,
  exames.criado_em, ${STATUS_LAUDO} AS status_laudo`;
const JOINED = `FROM exames
JOIN pacientes p ON p.id = exames.paciente_id
JOIN procedimentos pr ON pr.id = exames.procedimento_id
LEFT JOIN medicos me ON me.id = exames.medico_exame_id
LEFT JOIN medicos ml ON ml.id = exames.medico_laudo_id
LEFT JOIN medicos ms ON ms.id = exames.medico_solicitante_id`;
const LIST_SELECT = `SELECT ${ITEM_COLUMNS}
${JOINED}`;
const DETAIL_SELECT = `SELECT ${ITEM_COLUMNS}, exames.hora_realizado, exames.atualizado_em, exames.requer_laudo, exames.prioridade,
  (SELECT MAX(l.assinado_em) FROM laudos l WHERE l.exame_id = exames.id AND l.assinado = 1 AND l.excluido_em IS NULL) AS laudo_assinado_em
${JOINED}`;
/** Its id queries read `exames` alone: unqualified columns. */
const LIST: NewestFirstList = { table: 'exames', date: 'data_realizado', qualified: false, rows: LIST_SELECT };

/** The report status as counted in `exames_contagem` (filtro 'status'). */
const STATUS_CODE = { PENDENTE: 0, EMITIDO: 1, ASSINADO: 2 } as const;

/** Above this many matches, a doctor-filtered page walks the date index instead of sorting the matches. */
const SCAN_BY_DATE_ABOVE = 2000;

/**
 * Newest first; `medico` (0: none) is the doctor filter the caller resolved. Hand-written SQL (statements
 * cached per SQL text) on one held connection, so the total and the page see the same rows. Without a
 * patient filter and with at most one of doctor / procedure / report status, the total is a sum over the
 * trigger-kept per-date counts (`exames_contagem`), and a deep page finds the date and id it starts at
 * from those counts (months, then days, then an OFFSET within one day) and reads on from there by key,
 * instead of stepping over `offset` index entries. Other filter combinations count and page on the
 * indexes as before.
 */
export async function listExames(
  db: Db,
  f: ExameListFilter,
  medico: number,
): Promise<{ rows: ExameItemRow[]; total: number }> {
  const status = f.status_laudo ? STATUS_CODE[f.status_laudo] : undefined;
  const dimensions = [medico > 0, f.tipo_exame_id !== undefined, status !== undefined].filter(Boolean).length;
  const counted = !f.paciente_id && dimensions <= 1;
  const [filtro, valor] = medico
    ? ['medico', medico]
    : f.tipo_exame_id
      ? ['procedimento', f.tipo_exame_id]
      : status !== undefined
        ? ['status', status]
        : ['todos', 0];
  const counts: DateCounts = {
    table: 'exames_contagem',
    filtro,
    valor,
    inicio: f.periodo_realizado_inicio,
    fim: f.periodo_realizado_fim,
  };

  /** The filters on `exames`; `byDate` spells the doctor test so that SQLite walks the date index. */
  const filters = (byDate: boolean): Filtered => {
    const c = new Conditions('excluido_em IS NULL');
    if (medico)
      c.add(
        byDate
          ? '(+medico_exame_id = ? OR +medico_laudo_id = ? OR +medico_solicitante_id = ?)'
          : '(medico_exame_id = ? OR medico_laudo_id = ? OR medico_solicitante_id = ?)',
        medico,
        medico,
        medico,
      );
    c.when(f.paciente_id, 'paciente_id = ?')
      .when(f.tipo_exame_id, 'procedimento_id = ?')
      .when(f.periodo_realizado_inicio, 'data_realizado >= ?')
      .when(f.periodo_realizado_fim, 'data_realizado <= ?');
    // Spelled out (not via the CASE) so SQLite can use the partial indexes.
    if (f.status_laudo === 'PENDENTE') c.add('arquivo_laudo_key IS NULL');
    // likely(): a per-row subquery, not a join preceded by a Bloom filter over every signed report (80 ms at 1M).
    if (f.status_laudo === 'ASSINADO') c.add(`arquivo_laudo_key IS NOT NULL AND likely(${SIGNED_REPORT_EXISTS})`);
    if (f.status_laudo === 'EMITIDO') c.add(`arquivo_laudo_key IS NOT NULL AND NOT ${SIGNED_REPORT_EXISTS}`);
    return { from: `FROM exames WHERE ${c.joined()}`, params: c.params };
  };

  return newestFirstPage<ExameItemRow>(db, LIST, f, {
    counts: counted ? counts : null,
    total: filters(false),
    page: (total) => filters(medico > 0 && !f.paciente_id && total > SCAN_BY_DATE_ABOVE),
    // Statuses cluster by age (recent exams pending, older ones signed): a status page starts from the
    // counts even at offset 0, at its newest date, instead of walking the newer exams that do not match.
    startFromCounts: f.offset > 0 || status !== undefined,
    dated: filters(true),
  });
}

/** A live exam row, visible to the bound doctor `medicoFiltroId` (SIMPLES: exam doctor, report doctor or requester; 0: anyone, as for the exam just written). */
export async function findExame(db: Db, id: number, medicoFiltroId = 0): Promise<ExameRow | undefined> {
  const c = new Conditions('exames.excluido_em IS NULL').add('exames.id = ?', id);
  if (medicoFiltroId)
    c.add(
      '(exames.medico_exame_id = ? OR exames.medico_laudo_id = ? OR exames.medico_solicitante_id = ?)',
      medicoFiltroId,
      medicoFiltroId,
      medicoFiltroId,
    );
  return (await queryRows<ExameRow>(db, `${DETAIL_SELECT} WHERE ${c.joined()}`, c.params))[0];
}

export async function findProcedimento(db: Db, id: number) {
  return db.selectFrom('procedimentos').select(['id', 'requer_laudo']).where('id', '=', id).executeTakeFirst();
}

export async function findPlano(db: Db, id: number) {
  return db.selectFrom('planos').select(['id', 'convenio_id']).where('id', '=', id).executeTakeFirst();
}

export async function insertExame(trx: Db, values: Insertable<ExamesTable>): Promise<number> {
  const { id } = await trx.insertInto('exames').values(values).returning('id').executeTakeFirstOrThrow();
  return id;
}

export async function insertExameArquivo(trx: Db, values: Insertable<ExameArquivosTable>): Promise<void> {
  await trx.insertInto('exame_arquivos').values(values).execute();
}

/** The signed report that came along with the exam. */
export async function insertLaudoDoExame(trx: Db, values: Insertable<LaudosTable>): Promise<void> {
  await trx.insertInto('laudos').values(values).execute();
}

/** What a delete checks, deleted exams included. */
export async function findExameParaExcluir(trx: Db, id: number) {
  return trx
    .selectFrom('exames')
    .select(['id', 'excluido_em', 'laudo_central', 'exportado_central'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Soft-deletes the exam and its live reports; answers how many reports. */
export async function excluirExame(
  trx: Db,
  id: number,
  exclusao: ExclusaoColumns & { excluido_em: string },
): Promise<number> {
  await trx
    .updateTable('exames')
    .set({ ...exclusao, atualizado_em: exclusao.excluido_em })
    .where('id', '=', id)
    .execute();
  const laudos = await trx
    .updateTable('laudos')
    .set(exclusao)
    .where('exame_id', '=', id)
    .where('excluido_em', 'is', null)
    .executeTakeFirst();
  return Number(laudos.numUpdatedRows);
}
