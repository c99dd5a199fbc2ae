import type { z } from 'zod';
import type {
  laudoDetail as laudoDetailWire,
  laudoIngested,
  laudoItem as laudoItemWire,
} from '../../../contracts/schemas/laudos.ts';
import type { LaudoRow } from './laudos.repository.ts';

// Typed by the public contract: the gateway parses these answers with the same schemas.

export function laudoItem(r: LaudoRow): z.input<typeof laudoItemWire> {
  return {
    id: r.id,
    exame: r.exame_id
      ? {
          id: r.exame_id,
          paciente: { id: r.paciente_id!, nome: r.paciente_nome ?? '' },
          tipo_exame: { id: r.procedimento_id!, nome: r.procedimento_nome ?? '' },
        }
      : null,
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

export function laudoDetail(
  r: LaudoRow,
  ingest = false,
): z.input<typeof laudoDetailWire> | z.input<typeof laudoIngested> {
  const assinatura =
    r.assinado === 1
      ? ingest
        ? { tipo: r.assinatura_tipo ?? '', hash: null, validacao_url: null }
        : { tipo: r.assinatura_tipo ?? '' }
      : null;
  return {
    ...laudoItem(r),
    assinatura,
    url_arquivo: downloadable(r) ? `/v1/laudos/${r.id}/arquivo` : null,
    atualizado_em: r.atualizado_em,
  };
}
