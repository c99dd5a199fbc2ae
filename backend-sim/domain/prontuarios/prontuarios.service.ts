import type { Db } from '../../db/database.ts';
import { BackendError, found, notFound } from '../../errors.ts';
import type { CallContext } from '../../lib/http.ts';
import type { FileStore } from '../../storage.ts';
import { decodeFiles, uploadAll } from '../arquivos.ts';
import { pageOf } from '../paginas.ts';
import { exists } from '../referencias.ts';
import * as repo from './prontuarios.repository.ts';
import type { AnexoPage, ProntuarioCreate, ProntuarioPage } from '../../../contracts/backend/prontuarios.ts';
import { prontuarioItem } from './prontuarios.views.ts';

async function assertPaciente(db: Db, id: number) {
  if (!(await exists(db, 'pacientes', id))) throw notFound();
}

/** File signatures of the accepted types: an attachment must be what its extension says. */
const ASSINATURAS: Record<string, { nome: string; bytes: number[] }> = {
  PDF: { nome: 'PDF', bytes: [0x25, 0x50, 0x44, 0x46, 0x2d] },
  PNG: { nome: 'PNG', bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  JPG: { nome: 'JPEG', bytes: [0xff, 0xd8, 0xff] },
};

function checkConteudo(anexos: { extensao: string; body: Buffer }[]) {
  anexos.forEach((a, i) => {
    const sig = ASSINATURAS[a.extensao];
    if (sig && !sig.bytes.every((b, k) => a.body[k] === b))
      throw new BackendError('VALIDATION_ERROR', `Anexo invalido: o conteudo nao e um arquivo ${sig.nome}.`, {
        field: `anexos.${i}.base64`,
      });
  });
}

/** Stored finished (rascunho = 0); the record's doctor is the key's bound doctor, if any. */
export async function createProntuario(
  db: Db,
  files: FileStore,
  tenant: string,
  pacienteId: number,
  b: ProntuarioCreate,
  ctx: CallContext,
  now: string,
) {
  await assertPaciente(db, pacienteId);
  const mensagem = b.mensagem?.trim() ?? '';
  // A message counts only when longer than 3 characters.
  const temMensagem = mensagem.length > 3;
  const anexos = decodeFiles(b.anexos ?? undefined, ['PDF', 'PNG', 'JPG'], 'anexos');
  checkConteudo(anexos);
  if (!temMensagem && anexos.length === 0)
    throw new BackendError('VALIDATION_ERROR', 'Informe uma mensagem ou ao menos um anexo.', { field: 'mensagem' });
  const medicoId = ctx.medicoFiltroId && (await exists(db, 'medicos', ctx.medicoFiltroId)) ? ctx.medicoFiltroId : null;
  const stored = await uploadAll(files, tenant, 'prontuarios', anexos);
  try {
    return await db.transaction().execute(async (trx) => {
      const id = await repo.insertProntuario(trx, {
        paciente_id: pacienteId,
        medico_id: medicoId,
        data_emissao: now,
        mensagem: temMensagem ? mensagem : '',
        exibir: b.exibir === undefined ? 1 : Number(b.exibir),
        rascunho: 0,
        criado_em: now,
        criado_por_chave_id: ctx.chaveId,
      });
      const out = [];
      for (const s of stored) {
        const descricao = s.descricao?.trim() || s.nome;
        const anexoId = await repo.insertAnexo(trx, {
          paciente_id: pacienteId,
          prontuario_id: id,
          descricao,
          nome_arquivo: s.nome,
          extensao: s.extensao,
          tamanho: s.tamanho,
          object_key: s.object_key,
          criado_em: now,
        });
        out.push({ id: anexoId, descricao, extensao: s.extensao, tamanho: s.tamanho });
      }
      return { prontuario_id: id, anexos: out };
    });
  } catch (err) {
    await files.remove(stored.map((s) => s.object_key)).catch(() => undefined);
    throw err;
  }
}

/**
 * Every finished record of the patient (whatever `exibir`), newest first. Drafts (rascunho = 1, only
 * possible for records written in the clinic system) are not records yet and are never listed.
 */
export async function listProntuarios(db: Db, pacienteId: number, f: ProntuarioPage) {
  await assertPaciente(db, pacienteId);
  return pageOf(await repo.listProntuarios(db, pacienteId, f), prontuarioItem);
}

export async function listAnexos(db: Db, pacienteId: number, f: AnexoPage) {
  await assertPaciente(db, pacienteId);
  const { rows, total } = await repo.listAnexos(db, pacienteId, f);
  return { data: rows, total };
}

/**
 * Attachment of another patient and a missing one are indistinguishable (404). An attachment whose
 * file was never stored (no object key) answers `null`: the gateway's 503 "backend returned no URL".
 */
export async function locateAnexo(db: Db, files: FileStore, pacienteId: number, anexoId: number) {
  const a = found(await repo.findAnexo(db, pacienteId, anexoId));
  if (!a.object_key.trim()) return null;
  return files.locate(a.object_key);
}
