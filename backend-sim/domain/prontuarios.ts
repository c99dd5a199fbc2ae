import { z } from 'zod';
import type { Db } from '../db/database.ts';
import { BackendError, notFound } from '../errors.ts';
import type { CallContext } from '../lib/http.ts';
import type { FileStore } from '../storage.ts';
import { arquivoInput, decodeFiles, uploadAll } from './arquivos.ts';

async function assertPaciente(db: Db, id: number) {
  if (!(await db.selectFrom('pacientes').select('id').where('id', '=', id).executeTakeFirst())) throw notFound();
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
      throw new BackendError('VALIDATION_ERROR', `Anexo invalido: o conteudo nao e um arquivo ${sig.nome}.`, { field: `anexos.${i}.base64` });
  });
}

export const prontuarioCreateSchema = z.object({
  mensagem: z.string().max(200_000).nullable().optional(),
  anexos: z.array(arquivoInput).nullable().optional(),
  exibir: z.union([z.literal(0), z.literal(1), z.boolean()]).optional(),
});

/** Stored finished (rascunho = 0); the record's doctor is the key's bound doctor, if any. */
export async function createProntuario(db: Db, files: FileStore, tenant: string, pacienteId: number, b: z.infer<typeof prontuarioCreateSchema>, ctx: CallContext, now: string) {
  await assertPaciente(db, pacienteId);
  const mensagem = b.mensagem?.trim() ?? '';
  // A message counts only when longer than 3 characters.
  const temMensagem = mensagem.length > 3;
  const anexos = decodeFiles(b.anexos ?? undefined, ['PDF', 'PNG', 'JPG'], 'anexos');
  checkConteudo(anexos);
  if (!temMensagem && anexos.length === 0) throw new BackendError('VALIDATION_ERROR', 'Informe uma mensagem ou ao menos um anexo.', { field: 'mensagem' });
  const medicoId = ctx.medicoFiltroId && (await db.selectFrom('medicos').select('id').where('id', '=', ctx.medicoFiltroId).executeTakeFirst()) ? ctx.medicoFiltroId : null;
  const stored = await uploadAll(files, tenant, 'prontuarios', anexos);
  try {
    return await db.transaction().execute(async (trx) => {
      const { id } = await trx
        .insertInto('prontuarios')
        .values({ paciente_id: pacienteId, medico_id: medicoId, data_emissao: now, mensagem: temMensagem ? mensagem : '', exibir: b.exibir === undefined ? 1 : Number(b.exibir), rascunho: 0, criado_em: now, criado_por_chave_id: ctx.chaveId })
        .returning('id')
        .executeTakeFirstOrThrow();
      const out = [];
      for (const s of stored) {
        const descricao = s.descricao?.trim() || s.nome;
        const { id: anexoId } = await trx
          .insertInto('prontuario_anexos')
          .values({ paciente_id: pacienteId, prontuario_id: id, descricao, nome_arquivo: s.nome, extensao: s.extensao, tamanho: s.tamanho, object_key: s.object_key, criado_em: now })
          .returning('id')
          .executeTakeFirstOrThrow();
        out.push({ id: anexoId, descricao, extensao: s.extensao, tamanho: s.tamanho });
      }
      return { prontuario_id: id, anexos: out };
    });
  } catch (err) {
    await files.remove(stored.map((s) => s.object_key)).catch(() => undefined);
    throw err;
  }
}

export const pageSchema = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

/**
 * Every finished record of the patient (whatever `exibir`), newest first. Drafts (rascunho = 1, only
 * possible for records written in the clinic system) are not records yet and are never listed.
 */
export async function listProntuarios(db: Db, pacienteId: number, f: z.infer<typeof pageSchema>) {
  await assertPaciente(db, pacienteId);
  const q = db.selectFrom('prontuarios as pt').leftJoin('medicos as m', 'm.id', 'pt.medico_id').where('pt.paciente_id', '=', pacienteId).where('pt.rascunho', '=', 0);
  const [rows, count] = await Promise.all([
    q.select(['pt.id', 'pt.data_emissao', 'pt.mensagem', 'pt.exibir', 'pt.rascunho', 'pt.medico_id', 'm.nome as medico_nome']).orderBy('pt.data_emissao', 'desc').orderBy('pt.id', 'desc').limit(f.limit).offset(f.offset).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return {
    total: Number(count.total),
    data: rows.map((r) => ({
      id: r.id,
      data_emissao: r.data_emissao,
      mensagem: r.mensagem,
      exibir: r.exibir === 1,
      rascunho: false as const,
      medico: r.medico_id ? { id: r.medico_id, nome: r.medico_nome ?? '' } : null,
    })),
  };
}

export const anexoPageSchema = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(1000),
  offset: z.coerce.number().int().min(0).default(0),
});

export async function listAnexos(db: Db, pacienteId: number, f: z.infer<typeof anexoPageSchema>) {
  await assertPaciente(db, pacienteId);
  const q = db.selectFrom('prontuario_anexos').where('paciente_id', '=', pacienteId);
  const [rows, count] = await Promise.all([
    q.select(['id', 'descricao', 'extensao', 'tamanho']).orderBy('id').limit(f.limit).offset(f.offset).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { total: Number(count.total), data: rows };
}

/**
 * Attachment of another patient and a missing one are indistinguishable (404). An attachment whose
 * file was never stored (no object key) answers `null`: the gateway's 503 "backend returned no URL".
 */
export async function locateAnexo(db: Db, files: FileStore, pacienteId: number, anexoId: number) {
  const a = await db.selectFrom('prontuario_anexos').select(['object_key']).where('id', '=', anexoId).where('paciente_id', '=', pacienteId).executeTakeFirst();
  if (!a) throw notFound();
  if (!a.object_key.trim()) return null;
  return files.locate(a.object_key);
}
