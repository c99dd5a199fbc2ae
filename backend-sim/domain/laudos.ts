import { sql } from 'kysely';
import { z } from 'zod';
import type { Db } from '../db/database.ts';
import { queryRows } from '../db/statements.ts';
import { countedTotal, pageStart, type DateCounts } from './paginas.ts';
import { BackendError, notFound } from '../errors.ts';
import type { CallContext } from '../lib/http.ts';
import { date } from '../lib/schemas.ts';
import type { FileStore } from '../storage.ts';
import { arquivoInput, decodeFiles, uploadAll } from './arquivos.ts';
import { medicoComPapel, requirePdf } from './exames.ts';

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
type LaudoRow = Awaited<ReturnType<ReturnType<typeof selectRow>['executeTakeFirstOrThrow']>>;

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

export function laudoItem(r: LaudoRow) {
  return {
    id: r.id,
    exame: r.exame_id ? { id: r.exame_id, paciente: { id: r.paciente_id!, nome: r.paciente_nome ?? '' }, tipo_exame: { id: r.procedimento_id!, nome: r.procedimento_nome ?? '' } } : null,
    medico_laudo: r.medico_laudo_id ? { id: r.medico_laudo_id, nome: r.medico_laudo_nome ?? '' } : null,
    data_laudo: r.data_laudo,
    hora_laudo: r.hora_laudo,
    assinado: r.assinado === 1,
    assinado_em: r.assinado === 1 ? r.assinado_em : null,
    tem_arquivo: downloadable(r),
    criado_em: r.criado_em,
  };
}

/** Orphan reports keep their PDF but it is not served until they are linked to an exam: no file to offer yet. */
const downloadable = (r: LaudoRow): boolean => r.arquivo_key !== null && r.exame_id !== null;

export function laudoDetail(r: LaudoRow, ingest = false) {
  const assinatura = r.assinado === 1 ? (ingest ? { tipo: r.assinatura_tipo ?? '', hash: null, validacao_url: null } : { tipo: r.assinatura_tipo ?? '' }) : null;
  return { ...laudoItem(r), assinatura, url_arquivo: downloadable(r) ? `/v1/laudos/${r.id}/arquivo` : null, atualizado_em: r.atualizado_em };
}

export const laudoListSchema = z.object({
  exame_id: z.coerce.number().int().positive().optional(),
  paciente_id: z.coerce.number().int().positive().optional(),
  medico_laudo_id: z.coerce.number().int().positive().optional(),
  assinado: z.enum(['0', '1']).optional(),
  periodo_laudo_inicio: date.optional(),
  periodo_laudo_fim: date.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

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
 * Newest first, like the exam list (domain/exames.ts): hand-written SQL on one held connection; without
 * exam, patient or bound-doctor (AMPLIADO) filters and with at most one of doctor / signed flag, the
 * total and a deep page's start come from the trigger-kept per-date counts (`laudos_contagem`).
 */
export async function listLaudos(db: Db, f: z.infer<typeof laudoListSchema>, ctx: CallContext) {
  const bound = ctx.medicoFiltroId;
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
    if (f.offset >= total) return { data: [], total };
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
    return { data: rows.map(laudoItem), total };
  });
}

export async function findVisibleLaudo(db: Db, id: number, ctx: CallContext): Promise<LaudoRow> {
  let q = baseQuery(db).where('laudos.id', '=', id);
  if (ctx.medicoFiltroId) q = ampliado(q, ctx.medicoFiltroId);
  const row = await selectRow(q).executeTakeFirst();
  if (!row) throw notFound();
  return row;
}

export async function locateLaudoArquivo(db: Db, files: FileStore, id: number, ctx: CallContext) {
  const r = await findVisibleLaudo(db, id, ctx);
  // Orphan reports are listed but their PDF is not served until linked to an exam.
  if (!r.exame_id || !r.arquivo_key) throw new BackendError('RES_ARQUIVO_NAO_DISPONIVEL', 'Arquivo do laudo ainda nao disponivel.');
  return files.locate(r.arquivo_key);
}

export const laudoIngestSchema = z.object({
  medico_laudo_id: z.number().int().positive(),
  arquivo: arquivoInput,
  titulo: z.string().max(255).nullable().optional(),
  referencia: z.string().max(255).nullable().optional(),
  cid_id: z.number().int().positive().nullable().optional(),
});

/** Stores a signed report for an exam; an exam keeps its first report forever. */
export async function ingestLaudo(db: Db, files: FileStore, tenant: string, exameId: number, b: z.infer<typeof laudoIngestSchema>, ctx: CallContext, clock: { now: string; today: string; hora: string }) {
  const exame = await db.selectFrom('exames').select(['id', 'excluido_em']).where('id', '=', exameId).executeTakeFirst();
  if (!exame || exame.excluido_em) throw notFound();
  const existing = await db.selectFrom('laudos').select('id').where('exame_id', '=', exameId).where('excluido_em', 'is', null).executeTakeFirst();
  if (existing) throw new BackendError('REPORT_ALREADY_EXISTS', 'O exame ja possui laudo; laudos nao sao sobrescritos.', { laudo_id_existente: existing.id });
  if (!(await medicoComPapel(db, b.medico_laudo_id, 'papel_laudo')))
    throw new BackendError('INVALID_REFERENCE', 'Medico laudador inexistente ou sem permissao para laudar.', { field: 'medico_laudo_id' });
  if (b.cid_id && !(await db.selectFrom('cids').select('id').where('id', '=', b.cid_id).executeTakeFirst()))
    throw new BackendError('INVALID_REFERENCE', 'CID inexistente.', { field: 'cid_id' });
  const [file] = decodeFiles([b.arquivo], ['PDF'], 'arquivo');
  requirePdf({ ...file, field: 'arquivo' });
  const [stored] = await uploadAll(files, tenant, 'laudos', [{ ...file, field: 'arquivo' }]);
  try {
    const id = await db.transaction().execute(async (trx) => {
      // Re-check inside the transaction: two concurrent ingests must not both win.
      const race = await trx.selectFrom('laudos').select('id').where('exame_id', '=', exameId).where('excluido_em', 'is', null).executeTakeFirst();
      if (race) throw new BackendError('REPORT_ALREADY_EXISTS', 'O exame ja possui laudo; laudos nao sao sobrescritos.', { laudo_id_existente: race.id });
      const { id } = await trx
        .insertInto('laudos')
        .values({
          exame_id: exameId, medico_laudo_id: b.medico_laudo_id, data_laudo: clock.today, hora_laudo: clock.hora,
          titulo: b.titulo ?? b.referencia ?? 'Laudo', referencia: b.referencia ?? null, cid_id: b.cid_id ?? null,
          assinado: 1, assinado_em: clock.now, assinatura_tipo: 'ICP-Brasil', arquivo_key: stored.object_key, criado_em: clock.now, criado_por_chave_id: ctx.chaveId,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await trx
        .updateTable('exames')
        .set({ arquivo_laudo_key: stored.object_key, medico_laudo_id: sql`COALESCE(medico_laudo_id, ${b.medico_laudo_id})`, atualizado_em: clock.now })
        .where('id', '=', exameId)
        .execute();
      await trx.insertInto('exame_arquivos').values({ exame_id: exameId, tipo: 'laudo', nome: file.nome, object_key: stored.object_key, tamanho: stored.tamanho, criado_em: clock.now }).execute();
      return id;
    });
    return selectRow(baseQuery(db).where('laudos.id', '=', id)).executeTakeFirstOrThrow();
  } catch (err) {
    await files.remove([stored.object_key]).catch(() => undefined);
    throw err;
  }
}
