import { sql, type ExpressionBuilder } from 'kysely';
import { z } from 'zod';
import type { Database, Db } from '../db/database.ts';
import { queryRows } from '../db/statements.ts';
import { countedTotal, pageStart, type DateCounts } from './paginas.ts';
import { BackendError, notFound } from '../errors.ts';
import type { CallContext } from '../lib/http.ts';
import { date } from '../lib/schemas.ts';
import type { FileStore } from '../storage.ts';
import { arquivoInput, decodeFiles, uploadAll, type DecodedFile } from './arquivos.ts';
import { getClinicaConfig } from './clinica.ts';

type EB = ExpressionBuilder<Database, 'exames'>;

/** status_laudo is derived on read: no report file → PENDENTE; file and a signed live report → ASSINADO; else EMITIDO. */
const SIGNED_REPORT_EXISTS = 'EXISTS (SELECT 1 FROM laudos l WHERE l.exame_id = exames.id AND l.assinado = 1 AND l.excluido_em IS NULL)';
const STATUS_LAUDO = `CASE
  WHEN exames.arquivo_laudo_key IS NULL THEN 'PENDENTE'
  WHEN ${SIGNED_REPORT_EXISTS} THEN 'ASSINADO'
  ELSE 'EMITIDO' END`;
export const statusLaudoSql = sql<'PENDENTE' | 'EMITIDO' | 'ASSINADO'>`${sql.raw(STATUS_LAUDO)}`;

/** SIMPLES auto-filter: the bound doctor is exam doctor, report doctor or requester. */
export function simplesFilter(eb: EB, medicoId: number) {
  return eb.or([eb('exames.medico_exame_id', '=', medicoId), eb('exames.medico_laudo_id', '=', medicoId), eb('exames.medico_solicitante_id', '=', medicoId)]);
}

function baseQuery(db: Db) {
  return db
    .selectFrom('exames')
    .innerJoin('pacientes as p', 'p.id', 'exames.paciente_id')
    .innerJoin('procedimentos as pr', 'pr.id', 'exames.procedimento_id')
    .leftJoin('medicos as me', 'me.id', 'exames.medico_exame_id')
    .leftJoin('medicos as ml', 'ml.id', 'exames.medico_laudo_id')
    .leftJoin('medicos as ms', 'ms.id', 'exames.medico_solicitante_id')
    .where('exames.excluido_em', 'is', null);
}

function selectRow(q: ReturnType<typeof baseQuery>) {
  return q.select([
    'exames.id', 'exames.paciente_id', 'p.nome as paciente_nome', 'exames.procedimento_id', 'pr.nome as procedimento_nome',
    'exames.medico_exame_id', 'me.nome as medico_exame_nome', 'exames.medico_laudo_id', 'ml.nome as medico_laudo_nome',
    'exames.medico_solicitante_id', 'ms.nome as solicitante_nome', 'exames.data_realizado', 'exames.hora_realizado',
    'exames.arquivo_exame_key', 'exames.arquivo_laudo_key', 'exames.criado_em', 'exames.atualizado_em', 'exames.requer_laudo', 'exames.prioridade',
    statusLaudoSql.as('status_laudo'),
    sql<string | null>`(SELECT MAX(l.assinado_em) FROM laudos l WHERE l.exame_id = exames.id AND l.assinado = 1 AND l.excluido_em IS NULL)`.as('laudo_assinado_em'),
  ]);
}
type ExameRow = Awaited<ReturnType<ReturnType<typeof selectRow>['executeTakeFirstOrThrow']>>;

const ref = (id: number | null, nome: string | null) => (id ? { id, nome: nome ?? '' } : null);

/** What a list item reads from its row (the list query selects exactly this). */
type ExameItemRow = Pick<
  ExameRow,
  | 'id' | 'paciente_id' | 'paciente_nome' | 'procedimento_id' | 'procedimento_nome' | 'medico_exame_id' | 'medico_exame_nome' | 'medico_laudo_id'
  | 'medico_laudo_nome' | 'medico_solicitante_id' | 'solicitante_nome' | 'data_realizado' | 'status_laudo' | 'arquivo_exame_key' | 'arquivo_laudo_key' | 'criado_em'
>;

export function exameItem(r: ExameItemRow) {
  return {
    id: r.id,
    paciente: { id: r.paciente_id, nome: r.paciente_nome },
    medico_exame: ref(r.medico_exame_id, r.medico_exame_nome),
    medico_laudo: ref(r.medico_laudo_id, r.medico_laudo_nome),
    solicitante: ref(r.medico_solicitante_id, r.solicitante_nome),
    tipo_exame: { id: r.procedimento_id, nome: r.procedimento_nome },
    data_realizado: r.data_realizado,
    status_laudo: r.status_laudo,
    tem_arquivo_exame: r.arquivo_exame_key !== null,
    tem_arquivo_laudo: r.arquivo_laudo_key !== null,
    criado_em: r.criado_em,
  };
}

const urls = (r: ExameRow) => ({
  url_arquivo_exame: r.arquivo_exame_key ? `/v1/exames/${r.id}/arquivo?tipo=exame` : null,
  url_arquivo_laudo: r.arquivo_laudo_key ? `/v1/exames/${r.id}/arquivo?tipo=laudo` : null,
});

export function exameDetail(r: ExameRow) {
  return { ...exameItem(r), hora_realizado: r.hora_realizado, laudo_assinado_em: r.laudo_assinado_em, ...urls(r), atualizado_em: r.atualizado_em };
}

export function exameCreated(r: ExameRow) {
  return { ...exameItem(r), ...urls(r), requer_laudo: r.requer_laudo === 1, prioridade: r.prioridade };
}

export const exameListSchema = z.object({
  paciente_id: z.coerce.number().int().positive().optional(),
  medico_id: z.coerce.number().int().positive().optional(),
  tipo_exame_id: z.coerce.number().int().positive().optional(),
  periodo_realizado_inicio: date.optional(),
  periodo_realizado_fim: date.optional(),
  status_laudo: z.enum(['PENDENTE', 'EMITIDO', 'ASSINADO']).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

/** The report status as counted in `exames_contagem` (filtro 'status'). */
const STATUS_CODE = { PENDENTE: 0, EMITIDO: 1, ASSINADO: 2 } as const;

/** Above this many matches, a doctor-filtered page walks the date index instead of sorting the matches. */
const SCAN_BY_DATE_ABOVE = 2000;

const LIST_SELECT = `SELECT exames.id, exames.paciente_id, p.nome AS paciente_nome, exames.procedimento_id, pr.nome AS procedimento_nome,
  exames.medico_exame_id, me.nome AS medico_exame_nome, exames.medico_laudo_id, ml.nome AS medico_laudo_nome,
  exames.medico_solicitante_id, ms.nome AS solicitante_nome, exames.data_realizado, exames.arquivo_exame_key, exames.arquivo_laudo_key,
  exames.criado_em, ${STATUS_LAUDO} AS status_laudo
FROM exames
JOIN pacientes p ON p.id = exames.paciente_id
JOIN procedimentos pr ON pr.id = exames.procedimento_id
LEFT JOIN medicos me ON me.id = exames.medico_exame_id
LEFT JOIN medicos ml ON ml.id = exames.medico_laudo_id
LEFT JOIN medicos ms ON ms.id = exames.medico_solicitante_id`;
const NEWEST_FIRST = 'ORDER BY data_realizado DESC, id DESC';

/**
 * Newest first. Hand-written SQL (statements cached per SQL text) on one held connection, so the total
 * and the page see the same rows. Without a patient filter and with at most one of doctor / procedure /
 * report status, the total is a sum over the trigger-kept per-date counts (`exames_contagem`), and
 * a deep page finds the date and id it starts at from those counts (months, then days, then an OFFSET
 * within one day) and reads on from there by key, instead of stepping over `offset` index entries.
 * Other filter combinations count and page on the indexes as before.
 */
export async function listExames(db: Db, f: z.infer<typeof exameListSchema>, ctx: CallContext) {
  // medico_id is ignored for bound keys (anti-enumeration), as the spec requires.
  const medico = ctx.medicoFiltroId || f.medico_id || 0;
  const status = f.status_laudo ? STATUS_CODE[f.status_laudo] : undefined;
  const dimensions = [medico > 0, f.tipo_exame_id !== undefined, status !== undefined].filter(Boolean).length;
  const counted = !f.paciente_id && dimensions <= 1;
  const [filtro, valor] =
    medico ? ['medico', medico] : f.tipo_exame_id ? ['procedimento', f.tipo_exame_id] : status !== undefined ? ['status', status] : ['todos', 0];
  const counts: DateCounts = { table: 'exames_contagem', filtro, valor, inicio: f.periodo_realizado_inicio, fim: f.periodo_realizado_fim };

  /** The filters on `exames`; `byDate` spells the doctor test so that SQLite walks the date index. */
  const filters = (byDate: boolean) => {
    const where = ['excluido_em IS NULL'];
    const params: unknown[] = [];
    if (medico) {
      where.push(
        byDate
          ? '(+medico_exame_id = ? OR +medico_laudo_id = ? OR +medico_solicitante_id = ?)'
          : '(medico_exame_id = ? OR medico_laudo_id = ? OR medico_solicitante_id = ?)',
      );
      params.push(medico, medico, medico);
    }
    if (f.paciente_id) {
      where.push('paciente_id = ?');
      params.push(f.paciente_id);
    }
    if (f.tipo_exame_id) {
      where.push('procedimento_id = ?');
      params.push(f.tipo_exame_id);
    }
    if (f.periodo_realizado_inicio) {
      where.push('data_realizado >= ?');
      params.push(f.periodo_realizado_inicio);
    }
    if (f.periodo_realizado_fim) {
      where.push('data_realizado <= ?');
      params.push(f.periodo_realizado_fim);
    }
    // Spelled out (not via the CASE) so SQLite can use the partial indexes.
    if (f.status_laudo === 'PENDENTE') where.push('arquivo_laudo_key IS NULL');
    // likely(): a per-row subquery, not a join preceded by a Bloom filter over every signed report (80 ms at 1M).
    if (f.status_laudo === 'ASSINADO') where.push(`arquivo_laudo_key IS NOT NULL AND likely(${SIGNED_REPORT_EXISTS})`);
    if (f.status_laudo === 'EMITIDO') where.push(`arquivo_laudo_key IS NOT NULL AND NOT ${SIGNED_REPORT_EXISTS}`);
    return { where: where.join(' AND '), params };
  };

  return db.connection().execute(async (conn) => {
    const plain = filters(false);
    const total = counted
      ? await countedTotal(conn, counts)
      : (await queryRows<{ total: number }>(conn, `SELECT COUNT(*) AS total FROM exames WHERE ${plain.where}`, plain.params))[0].total;
    if (f.offset >= total) return { data: [], total };
    const byDate = medico > 0 && !f.paciente_id && total > SCAN_BY_DATE_ABOVE;
    const { where, params } = filters(byDate);
    let page = `SELECT id FROM exames WHERE ${where} ${NEWEST_FIRST} LIMIT ?`;
    let pageParams = [...params, f.limit];
    // Statuses cluster by age (recent exams pending, older ones signed): a status page starts from the
    // counts even at offset 0, at its newest date, instead of walking the newer exams that do not match.
    if (counted && (f.offset > 0 || status !== undefined)) {
      const dated = filters(true);
      const start = await pageStart(conn, counts, f.offset, async (data, k) => {
        const sql = `SELECT id FROM exames WHERE ${dated.where} AND data_realizado = ? ORDER BY id DESC LIMIT 1 OFFSET ?`;
        return (await queryRows<{ id: number }>(conn, sql, [...dated.params, data, k]))[0]?.id;
      });
      page = `SELECT id FROM exames WHERE ${where} AND (data_realizado, id) <= (?, ?) ${NEWEST_FIRST} LIMIT ?`;
      pageParams = [...params, start.data, start.id, f.limit];
    } else if (f.offset > 0) {
      page += ' OFFSET ?';
      pageParams.push(f.offset);
    }
    const rows = await queryRows<ExameItemRow>(conn, `${LIST_SELECT} WHERE exames.id IN (${page}) ORDER BY exames.data_realizado DESC, exames.id DESC`, pageParams);
    return { data: rows.map(exameItem), total };
  });
}

/** A visible, live exam row or 404 RES_NOT_FOUND (hidden and missing look the same). */
export async function findVisibleExame(db: Db, id: number, ctx: CallContext): Promise<ExameRow> {
  let q = baseQuery(db).where('exames.id', '=', id);
  if (ctx.medicoFiltroId) q = q.where((eb) => simplesFilter(eb, ctx.medicoFiltroId));
  const row = await selectRow(q).executeTakeFirst();
  if (!row) throw notFound();
  return row;
}

export async function locateExameArquivo(db: Db, files: FileStore, id: number, tipo: 'exame' | 'laudo', ctx: CallContext) {
  const row = await findVisibleExame(db, id, ctx);
  const key = tipo === 'exame' ? row.arquivo_exame_key : row.arquivo_laudo_key;
  if (!key) throw new BackendError('RES_ARQUIVO_NAO_DISPONIVEL', 'Arquivo ainda nao disponivel para este exame.');
  return files.locate(key);
}

const optId = z.number().int().positive().nullable().optional();
export const exameCreateSchema = z.object({
  paciente_id: z.number().int().positive(),
  procedimento_id: z.number().int().positive(),
  unidade_id: optId,
  medico_exame_id: optId,
  medico_laudo_id: optId,
  grupos_laudos_id: optId,
  medico_solicitante_id: optId,
  data_exame: date.optional(),
  numero: z.string().max(100).nullable().optional(),
  referencia: z.string().max(255).nullable().optional(),
  observacoes: z.string().max(5000).nullable().optional(),
  requer_laudo: z.union([z.literal(0), z.literal(1), z.boolean()]).optional(),
  cid_id: optId,
  complementos_id: optId,
  plano_id: optId,
  convenio_id: optId,
  prioridade: z.union([z.literal(1), z.literal(2), z.literal(3)]).optional(),
  arquivos: z.object({ exames: z.array(arquivoInput).optional(), laudos: z.array(arquivoInput).optional() }).optional(),
});
export type ExameCreate = z.infer<typeof exameCreateSchema>;

/** A report is a PDF: its content must start with the PDF header, whatever its name says. */
export function requirePdf(file: DecodedFile): void {
  if (file.body.subarray(0, 5).toString('latin1') !== '%PDF-')
    throw new BackendError('VALIDATION_ERROR', 'Anexo invalido: o laudo deve ser um arquivo PDF.', { field: `${file.field}.base64` });
}

const invalidRef = (field: string, msg: string) => new BackendError('INVALID_REFERENCE', msg, { field });

async function exists(db: Db, table: 'pacientes' | 'procedimentos' | 'unidades' | 'convenios' | 'cids' | 'complementos' | 'grupos_laudos', id: number) {
  return !!(await db.selectFrom(table).select('id').where('id', '=', id).executeTakeFirst());
}

/** A doctor that exists, is active and (when given) holds the role. */
export async function medicoComPapel(db: Db, id: number, papel: 'papel_exame' | 'papel_laudo' | 'papel_solicitante' | null) {
  const m = await db.selectFrom('medicos').selectAll().where('id', '=', id).executeTakeFirst();
  return !!m && m.ativo === 1 && (papel === null || m[papel] === 1);
}

async function checkReferences(db: Db, b: ExameCreate) {
  if (!(await exists(db, 'pacientes', b.paciente_id))) throw invalidRef('paciente_id', 'Paciente inexistente.');
  const procedimento = await db.selectFrom('procedimentos').select(['id', 'requer_laudo']).where('id', '=', b.procedimento_id).executeTakeFirst();
  if (!procedimento) throw invalidRef('procedimento_id', 'Procedimento inexistente.');
  if (b.unidade_id && !(await exists(db, 'unidades', b.unidade_id))) throw invalidRef('unidade_id', 'Unidade inexistente.');
  if (b.medico_exame_id && !(await medicoComPapel(db, b.medico_exame_id, 'papel_exame')))
    throw invalidRef('medico_exame_id', 'Medico executante inexistente ou sem permissao para executar exames.');
  if (b.medico_laudo_id && !(await medicoComPapel(db, b.medico_laudo_id, 'papel_laudo')))
    throw invalidRef('medico_laudo_id', 'Medico laudador inexistente ou sem permissao para laudar.');
  if (b.medico_solicitante_id && !(await medicoComPapel(db, b.medico_solicitante_id, null)))
    throw invalidRef('medico_solicitante_id', 'Medico solicitante inexistente.');
  if (b.grupos_laudos_id && !(await exists(db, 'grupos_laudos', b.grupos_laudos_id))) throw invalidRef('grupos_laudos_id', 'Grupo de laudos inexistente.');
  if (b.convenio_id && !(await exists(db, 'convenios', b.convenio_id))) throw invalidRef('convenio_id', 'Convenio inexistente.');
  if (b.plano_id) {
    const plano = await db.selectFrom('planos').select(['id', 'convenio_id']).where('id', '=', b.plano_id).executeTakeFirst();
    if (!plano || (b.convenio_id && plano.convenio_id !== b.convenio_id)) throw invalidRef('plano_id', 'Plano inexistente para o convenio.');
  }
  if (b.cid_id && !(await exists(db, 'cids', b.cid_id))) throw invalidRef('cid_id', 'CID inexistente.');
  if (b.complementos_id && !(await exists(db, 'complementos', b.complementos_id))) throw invalidRef('complementos_id', 'Complemento inexistente.');
  return { procedimento };
}

/**
 * Tenant defaults are applied by the gateway before the call; here only the clinic's mandatory
 * fields are enforced, then files go to S3 and the exam (plus a signed report if one came along) is stored.
 */
export async function createExame(db: Db, files: FileStore, tenant: string, b: ExameCreate, ctx: CallContext, clock: { now: string; today: string; hora: string }) {
  const cfg = await getClinicaConfig(db);
  if (cfg.medico_laudo_obrigatorio && !b.medico_laudo_id && !b.grupos_laudos_id)
    throw new BackendError('VALIDATION_ERROR', 'Medico laudador obrigatorio para esta clinica.', { field: 'medico_laudo_id' });
  if (cfg.solicitante_obrigatorio && !b.medico_solicitante_id)
    throw new BackendError('VALIDATION_ERROR', 'Medico solicitante obrigatorio para esta clinica.', { field: 'medico_solicitante_id' });
  const { procedimento } = await checkReferences(db, b);
  const exameFiles = decodeFiles(b.arquivos?.exames, ['PDF', 'PNG', 'JPG', 'JPEG'], 'arquivos.exames');
  const laudoFiles = decodeFiles(b.arquivos?.laudos, ['PDF'], 'arquivos.laudos');
  laudoFiles.forEach(requirePdf);
  // An exam accepts exactly one report.
  if (laudoFiles.length > 1) throw new BackendError('REPORT_ALREADY_EXISTS', 'O exame aceita um unico laudo.', { field: 'arquivos.laudos' });
  if (laudoFiles.length && !b.medico_laudo_id)
    throw new BackendError('VALIDATION_ERROR', 'Medico laudador obrigatorio quando o laudo acompanha o exame.', { field: 'medico_laudo_id' });

  const stored = await uploadAll(files, tenant, 'exames', [...exameFiles, ...laudoFiles]);
  const exameStored = stored.filter((s) => s.field.startsWith('arquivos.exames'));
  const laudoStored = stored.find((s) => s.field.startsWith('arquivos.laudos'));
  const data = b.data_exame ?? clock.today;
  try {
    const id = await db.transaction().execute(async (trx) => {
      const { id } = await trx
        .insertInto('exames')
        .values({
          paciente_id: b.paciente_id,
          procedimento_id: b.procedimento_id,
          unidade_id: b.unidade_id ?? null,
          medico_exame_id: b.medico_exame_id ?? null,
          medico_laudo_id: b.medico_laudo_id ?? null,
          medico_solicitante_id: b.medico_solicitante_id ?? null,
          grupo_laudo_id: b.grupos_laudos_id ?? null,
          convenio_id: b.convenio_id ?? null,
          plano_id: b.plano_id ?? null,
          cid_id: b.cid_id ?? null,
          complemento_id: b.complementos_id ?? null,
          data_realizado: data,
          hora_realizado: data === clock.today ? clock.hora : null,
          numero: b.numero ?? null,
          referencia: b.referencia ?? null,
          observacoes: b.observacoes ?? null,
          // Absent: what the procedure's catalog entry says (a consultation needs no report).
          requer_laudo: b.requer_laudo === undefined ? procedimento.requer_laudo : Number(b.requer_laudo),
          prioridade: b.prioridade ?? 1,
          arquivo_exame_key: exameStored[0]?.object_key ?? null,
          arquivo_laudo_key: laudoStored?.object_key ?? null,
          criado_em: clock.now,
          criado_por_chave_id: ctx.chaveId,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      for (const s of stored)
        await trx
          .insertInto('exame_arquivos')
          .values({ exame_id: id, tipo: s.field.startsWith('arquivos.laudos') ? 'laudo' : 'exame', nome: s.nome, object_key: s.object_key, tamanho: s.tamanho, criado_em: clock.now })
          .execute();
      if (laudoStored)
        await trx
          .insertInto('laudos')
          .values({
            exame_id: id, medico_laudo_id: b.medico_laudo_id!, data_laudo: clock.today, hora_laudo: clock.hora, titulo: b.referencia ?? 'Laudo', referencia: b.referencia ?? null,
            cid_id: b.cid_id ?? null, assinado: 1, assinado_em: clock.now, assinatura_tipo: 'ICP-Brasil', arquivo_key: laudoStored.object_key, criado_em: clock.now, criado_por_chave_id: ctx.chaveId,
          })
          .execute();
      return id;
    });
    return selectRow(baseQuery(db).where('exames.id', '=', id)).executeTakeFirstOrThrow();
  } catch (err) {
    await files.remove(stored.map((s) => s.object_key)).catch(() => undefined);
    throw err;
  }
}

export const exameDeleteSchema = z.object({ motivo: z.string().trim().min(3).max(500) });

/** Soft delete with cascade to the exam's live reports; refused when the external center issued the report. */
export async function deleteExame(db: Db, id: number, motivo: string, ctx: CallContext, now: string) {
  return db.transaction().execute(async (trx) => {
    const exame = await trx.selectFrom('exames').select(['id', 'excluido_em', 'laudo_central', 'exportado_central']).where('id', '=', id).executeTakeFirst();
    if (!exame || exame.excluido_em) throw new BackendError('NOT_FOUND', 'Exame nao encontrado ou ja excluido.');
    if (exame.laudo_central)
      throw new BackendError('EXAME_LAUDO_CENTRAL', 'Exame com laudo emitido pela central de laudos nao pode ser excluido.');
    // An exported exam's deletion must reach the external center first; if it cannot, nothing is deleted.
    if (exame.exportado_central && !(await getClinicaConfig(trx)).central_laudos_disponivel)
      throw new BackendError('BACKEND_CENTRAL_SYNC', 'Nao foi possivel sincronizar a exclusao com a central de laudos; nada foi excluido.');
    await trx.updateTable('exames').set({ excluido_em: now, excluido_motivo: motivo, excluido_por_chave_id: ctx.chaveId, atualizado_em: now }).where('id', '=', id).execute();
    const laudos = await trx
      .updateTable('laudos')
      .set({ excluido_em: now, excluido_motivo: motivo, excluido_por_chave_id: ctx.chaveId })
      .where('exame_id', '=', id)
      .where('excluido_em', 'is', null)
      .executeTakeFirst();
    return { id, status: 'EXCLUIDO' as const, excluido_em: now, motivo, laudos_excluidos: Number(laudos.numUpdatedRows) };
  });
}
