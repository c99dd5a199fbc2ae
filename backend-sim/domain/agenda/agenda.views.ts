import type { ApptRow, listConfigs } from './agenda.repository.ts';

type ConfigRow = Awaited<ReturnType<typeof listConfigs>>['rows'][number];

export function configItem(r: ConfigRow) {
  return {
    id: r.id,
    nome: r.nome,
    tipo_vinculo: r.tipo_vinculo,
    medico: r.medico_id ? { id: r.medico_id, nome: r.medico_nome ?? '' } : null,
    sala: r.sala_id ? { id: r.sala_id, nome: r.sala_nome ?? '' } : null,
    unidade: { id: r.unidade_id, nome: r.unidade_nome },
    ativo: r.ativo === 1,
    data_inicio: r.data_inicio,
    data_fim: r.data_fim,
    criado_em: r.criado_em,
  };
}

export function apptItem(r: ApptRow) {
  return {
    id: r.id,
    paciente: { id: r.paciente_id, nome: r.paciente_nome ?? r.snapshot_nome ?? '' },
    medico: r.medico_id ? { id: r.medico_id, nome: r.medico_nome ?? '' } : null,
    sala: r.sala_id ? { id: r.sala_id, nome: r.sala_nome ?? '' } : null,
    unidade: { id: r.unidade_id, nome: r.unidade_nome },
    procedimento: { id: r.procedimento_id, nome: r.procedimento_nome },
    agenda_config_id: r.agenda_config_id,
    data_agendamento: r.data_agendamento,
    hora_inicio: r.hora_inicio,
    hora_fim: r.hora_fim,
    status: r.status,
    encaixe: r.encaixe === 1,
    cancelado_em: r.cancelado_em,
    criado_em: r.criado_em,
  };
}
