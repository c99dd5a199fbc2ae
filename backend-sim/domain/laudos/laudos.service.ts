import type { Db } from '../../db/database.ts';
import { BackendError, found, notFound } from '../../errors.ts';
import type { CallContext } from '../../lib/http.ts';
import type { FileStore } from '../../storage.ts';
import { decodeFiles, requirePdf, uploadAll } from '../arquivos.ts';
import { insertExameArquivo } from '../exames/exames.repository.ts';
import { medicoComPapel } from '../medicos/medicos.service.ts';
import { pageOf } from '../paginas.ts';
import { exists } from '../referencias.ts';
import * as repo from './laudos.repository.ts';
import type { LaudoIngest, LaudoListFilter } from '../../../contracts/backend/laudos.ts';
import { laudoDetail, laudoItem } from './laudos.views.ts';

export async function listLaudos(db: Db, f: LaudoListFilter, ctx: CallContext) {
  return pageOf(await repo.listLaudos(db, f, ctx.medicoFiltroId), laudoItem);
}

async function findVisibleLaudo(db: Db, id: number, ctx: CallContext) {
  return found(await repo.findLaudo(db, id, ctx.medicoFiltroId));
}

export async function getLaudo(db: Db, id: number, ctx: CallContext) {
  return laudoDetail(await findVisibleLaudo(db, id, ctx));
}

export async function locateLaudoArquivo(db: Db, files: FileStore, id: number, ctx: CallContext) {
  const r = await findVisibleLaudo(db, id, ctx);
  // Orphan reports are listed but their PDF is not served until linked to an exam.
  if (!r.exame_id || !r.arquivo_key)
    throw new BackendError('RES_ARQUIVO_NAO_DISPONIVEL', 'Arquivo do laudo ainda nao disponivel.');
  return files.locate(r.arquivo_key);
}

const alreadyReported = (laudoId: number) =>
  new BackendError('REPORT_ALREADY_EXISTS', 'O exame ja possui laudo; laudos nao sao sobrescritos.', {
    laudo_id_existente: laudoId,
  });

/** Stores a signed report for an exam and answers it; an exam keeps its first report forever. */
export async function ingestLaudo(
  db: Db,
  files: FileStore,
  tenant: string,
  exameId: number,
  b: LaudoIngest,
  ctx: CallContext,
  clock: { now: string; today: string; hora: string },
) {
  const exame = await repo.findExame(db, exameId);
  if (!exame || exame.excluido_em) throw notFound();
  const existing = await repo.findLaudoDoExame(db, exameId);
  if (existing) throw alreadyReported(existing.id);
  if (!(await medicoComPapel(db, b.medico_laudo_id, 'papel_laudo')))
    throw new BackendError('INVALID_REFERENCE', 'Medico laudador inexistente ou sem permissao para laudar.', {
      field: 'medico_laudo_id',
    });
  if (b.cid_id && !(await exists(db, 'cids', b.cid_id)))
    throw new BackendError('INVALID_REFERENCE', 'CID inexistente.', { field: 'cid_id' });
  const [file] = decodeFiles([b.arquivo], ['PDF'], 'arquivo');
  requirePdf({ ...file, field: 'arquivo' });
  const [stored] = await uploadAll(files, tenant, 'laudos', [{ ...file, field: 'arquivo' }]);
  let id: number;
  try {
    id = await db.transaction().execute(async (trx) => {
      // Re-check inside the transaction: two concurrent ingests must not both win.
      const race = await repo.findLaudoDoExame(trx, exameId);
      if (race) throw alreadyReported(race.id);
      const id = await repo.insertLaudo(
        trx,
        repo.signedLaudo(exameId, b.medico_laudo_id, b, stored.object_key, ctx, clock),
      );
      await repo.setArquivoLaudo(trx, exameId, stored.object_key, b.medico_laudo_id, clock.now);
      await insertExameArquivo(trx, {
        exame_id: exameId,
        tipo: 'laudo',
        nome: file.nome,
        object_key: stored.object_key,
        tamanho: stored.tamanho,
        criado_em: clock.now,
      });
      return id;
    });
  } catch (err) {
    await files.remove([stored.object_key]).catch(() => undefined);
    throw err;
  }
  return laudoDetail((await repo.findLaudo(db, id))!, true);
}
