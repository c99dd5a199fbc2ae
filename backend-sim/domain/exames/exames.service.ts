import type { Db } from '../../db/database.ts';
import { BackendError, found } from '../../errors.ts';
import type { CallContext } from '../../lib/http.ts';
import type { FileStore } from '../../storage.ts';
import { decodeFiles, requirePdf, uploadAll } from '../arquivos.ts';
import { getClinicaConfig } from '../clinica/clinica.repository.ts';
import { getSettings } from '../clinica/clinica.service.ts';
import { clinicRequires } from '../../../contracts/backend/settings.ts';
import { signedLaudo } from '../laudos/laudos.repository.ts';
import { medicoComPapel } from '../medicos/medicos.service.ts';
import { pageOf } from '../paginas.ts';
import { exists } from '../referencias.ts';
import * as repo from './exames.repository.ts';
import type { ExameCreateResolved as ExameCreate, ExameListFilter } from '../../../contracts/backend/exames.ts';
import { exameCreated, exameDetail, exameItem } from './exames.views.ts';

export async function listExames(db: Db, f: ExameListFilter, ctx: CallContext) {
  // medico_id is ignored for bound keys (anti-enumeration), as the spec requires.
  const medico = ctx.medicoFiltroId || f.medico_id || 0;
  return pageOf(await repo.listExames(db, f, medico), exameItem);
}

/** A visible, live exam row or 404 RES_NOT_FOUND (hidden and missing look the same). */
async function findVisibleExame(db: Db, id: number, ctx: CallContext) {
  return found(await repo.findExame(db, id, ctx.medicoFiltroId));
}

export async function getExame(db: Db, id: number, ctx: CallContext) {
  return exameDetail(await findVisibleExame(db, id, ctx));
}

export async function locateExameArquivo(
  db: Db,
  files: FileStore,
  id: number,
  tipo: 'exame' | 'laudo',
  ctx: CallContext,
) {
  const row = await findVisibleExame(db, id, ctx);
  const key = tipo === 'exame' ? row.arquivo_exame_key : row.arquivo_laudo_key;
  if (!key) throw new BackendError('RES_ARQUIVO_NAO_DISPONIVEL', 'Arquivo ainda nao disponivel para este exame.');
  return files.locate(key);
}

const invalidRef = (field: string, msg: string) => new BackendError('INVALID_REFERENCE', msg, { field });

async function checkReferences(db: Db, b: ExameCreate) {
  if (!(await exists(db, 'pacientes', b.paciente_id))) throw invalidRef('paciente_id', 'Paciente inexistente.');
  const procedimento = await repo.findProcedimento(db, b.procedimento_id);
  if (!procedimento) throw invalidRef('procedimento_id', 'Procedimento inexistente.');
  if (b.unidade_id && !(await exists(db, 'unidades', b.unidade_id)))
    throw invalidRef('unidade_id', 'Unidade inexistente.');
  if (b.medico_exame_id && !(await medicoComPapel(db, b.medico_exame_id, 'papel_exame')))
    throw invalidRef('medico_exame_id', 'Medico executante inexistente ou sem permissao para executar exames.');
  if (b.medico_laudo_id && !(await medicoComPapel(db, b.medico_laudo_id, 'papel_laudo')))
    throw invalidRef('medico_laudo_id', 'Medico laudador inexistente ou sem permissao para laudar.');
  if (b.medico_solicitante_id && !(await medicoComPapel(db, b.medico_solicitante_id, null)))
    throw invalidRef('medico_solicitante_id', 'Medico solicitante inexistente.');
  if (b.grupos_laudos_id && !(await exists(db, 'grupos_laudos', b.grupos_laudos_id)))
    throw invalidRef('grupos_laudos_id', 'Grupo de laudos inexistente.');
  if (b.convenio_id && !(await exists(db, 'convenios', b.convenio_id)))
    throw invalidRef('convenio_id', 'Convenio inexistente.');
  if (b.plano_id) {
    const plano = await repo.findPlano(db, b.plano_id);
    if (!plano || (b.convenio_id && plano.convenio_id !== b.convenio_id))
      throw invalidRef('plano_id', 'Plano inexistente para o convenio.');
  }
  if (b.cid_id && !(await exists(db, 'cids', b.cid_id))) throw invalidRef('cid_id', 'CID inexistente.');
  if (b.complementos_id && !(await exists(db, 'complementos', b.complementos_id)))
    throw invalidRef('complementos_id', 'Complemento inexistente.');
  return { procedimento };
}

/**
 * Tenant defaults are applied by the gateway before the call; here only the clinic's mandatory
 * fields are enforced, then files go to S3 and the exam (plus a signed report if one came along) is
 * stored. Answers the created exam.
 */
export async function createExame(
  db: Db,
  files: FileStore,
  tenant: string,
  b: ExameCreate,
  ctx: CallContext,
  clock: { now: string; today: string; hora: string },
) {
  // The clinic's doctor rules as the gateway reads them before the call (contracts/backend/settings.ts).
  const settings = await getSettings(db);
  if (clinicRequires.medico_laudo_id(settings, b) && !b.medico_laudo_id)
    throw new BackendError('VALIDATION_ERROR', 'Medico laudador obrigatorio para esta clinica.', {
      field: 'medico_laudo_id',
    });
  if (clinicRequires.medico_solicitante_id(settings, b) && !b.medico_solicitante_id)
    throw new BackendError('VALIDATION_ERROR', 'Medico solicitante obrigatorio para esta clinica.', {
      field: 'medico_solicitante_id',
    });
  const { procedimento } = await checkReferences(db, b);
  const exameFiles = decodeFiles(b.arquivos?.exames, ['PDF', 'PNG', 'JPG', 'JPEG'], 'arquivos.exames');
  const laudoFiles = decodeFiles(b.arquivos?.laudos, ['PDF'], 'arquivos.laudos');
  laudoFiles.forEach(requirePdf);
  // An exam accepts exactly one report.
  if (laudoFiles.length > 1)
    throw new BackendError('REPORT_ALREADY_EXISTS', 'O exame aceita um unico laudo.', { field: 'arquivos.laudos' });
  if (laudoFiles.length && !b.medico_laudo_id)
    throw new BackendError('VALIDATION_ERROR', 'Medico laudador obrigatorio quando o laudo acompanha o exame.', {
      field: 'medico_laudo_id',
    });

  const stored = await uploadAll(files, tenant, 'exames', [...exameFiles, ...laudoFiles]);
  const exameStored = stored.filter((s) => s.field.startsWith('arquivos.exames'));
  const laudoStored = stored.find((s) => s.field.startsWith('arquivos.laudos'));
  const data = b.data_exame ?? clock.today;
  let id: number;
  try {
    id = await db.transaction().execute(async (trx) => {
      const id = await repo.insertExame(trx, {
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
      });
      for (const s of stored)
        await repo.insertExameArquivo(trx, {
          exame_id: id,
          tipo: s.field.startsWith('arquivos.laudos') ? 'laudo' : 'exame',
          nome: s.nome,
          object_key: s.object_key,
          tamanho: s.tamanho,
          criado_em: clock.now,
        });
      if (laudoStored)
        await repo.insertLaudoDoExame(
          trx,
          signedLaudo(
            id,
            b.medico_laudo_id!,
            { referencia: b.referencia, cid_id: b.cid_id },
            laudoStored.object_key,
            ctx,
            clock,
          ),
        );
      return id;
    });
  } catch (err) {
    await files.remove(stored.map((s) => s.object_key)).catch(() => undefined);
    throw err;
  }
  return exameCreated((await repo.findExame(db, id))!);
}

/** Soft delete with cascade to the exam's live reports; refused when the external center issued the report. */
export async function deleteExame(db: Db, id: number, motivo: string, ctx: CallContext, now: string) {
  return db.transaction().execute(async (trx) => {
    const exame = await repo.findExameParaExcluir(trx, id);
    if (!exame || exame.excluido_em) throw new BackendError('NOT_FOUND', 'Exame nao encontrado ou ja excluido.');
    if (exame.laudo_central)
      throw new BackendError(
        'EXAME_LAUDO_CENTRAL',
        'Exame com laudo emitido pela central de laudos nao pode ser excluido.',
      );
    // An exported exam's deletion must reach the external center first; if it cannot, nothing is deleted.
    if (exame.exportado_central && !(await getClinicaConfig(trx)).central_laudos_disponivel)
      throw new BackendError(
        'BACKEND_CENTRAL_SYNC',
        'Nao foi possivel sincronizar a exclusao com a central de laudos; nada foi excluido.',
      );
    const laudos = await repo.excluirExame(trx, id, {
      excluido_em: now,
      excluido_motivo: motivo,
      excluido_por_chave_id: ctx.chaveId,
    });
    return { id, status: 'EXCLUIDO' as const, excluido_em: now, motivo, laudos_excluidos: laudos };
  });
}
