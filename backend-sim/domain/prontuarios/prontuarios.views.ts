import type { z } from 'zod';
import type { prontuario as prontuarioWire } from '../../../contracts/schemas/prontuarios.ts';
import type { listProntuarios } from './prontuarios.repository.ts';

type ProntuarioRow = Awaited<ReturnType<typeof listProntuarios>>['rows'][number];

/** A finished record as listed (drafts are never listed), typed by the public contract. */
export function prontuarioItem(r: ProntuarioRow): z.input<typeof prontuarioWire> {
  return {
    id: r.id,
    data_emissao: r.data_emissao,
    mensagem: r.mensagem,
    exibir: r.exibir === 1,
    rascunho: false as const,
    medico: r.medico_id ? { id: r.medico_id, nome: r.medico_nome ?? '' } : null,
  };
}
