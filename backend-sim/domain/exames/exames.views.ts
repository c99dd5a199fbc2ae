import type { z } from 'zod';
import type {
  exameCreated as exameCreatedWire,
  exameDetail as exameDetailWire,
  exameListItem,
} from '../../../contracts/schemas/exames.ts';
import type { ExameItemRow, ExameRow } from './exames.repository.ts';

// Typed by the public contract: the gateway parses these answers with the same schemas.

const ref = (id: number | null, nome: string | null) => (id ? { id, nome: nome ?? '' } : null);

export function exameItem(r: ExameItemRow): z.input<typeof exameListItem> {
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

export function exameDetail(r: ExameRow): z.input<typeof exameDetailWire> {
  return {
    ...exameItem(r),
    hora_realizado: r.hora_realizado,
    laudo_assinado_em: r.laudo_assinado_em,
    ...urls(r),
    atualizado_em: r.atualizado_em,
  };
}

export function exameCreated(r: ExameRow): z.input<typeof exameCreatedWire> {
  return { ...exameItem(r), ...urls(r), requer_laudo: r.requer_laudo === 1, prioridade: r.prioridade };
}
