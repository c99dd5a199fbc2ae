import { makeCpf, type TenantFixtures } from './fixtures.ts';

/**
 * "Another tenant" for the generated security suite: every table a /v1 route can address by id
 * holds a row with id OTHER_ID here, so a route called with OTHER_ID in every path parameter from
 * the main tenant can only answer 404 because tenants are isolated. Names start with OUTRA so a
 * listing that leaked them would show it.
 */
export const OTHER_ID = 500_001;
export const OTHER_CPF = makeCpf(31_337);

export function seedOtherTenant(other: TenantFixtures): void {
  const id = OTHER_ID;
  const at = '2024-01-01T00:00:00Z';

  // ---- patients, doctors, catalogs
  other.paciente({ id, nome: 'OUTRA PACIENTE UM', cpf: OTHER_CPF });
  other.paciente({ id: id + 1, nome: 'OUTRA PACIENTE DOIS' });
  other.medico({ id, nome: 'OUTRA MEDICA', usuario: 'outra.medica', papel_exame: 1, papel_laudo: 1 });
  other.insert('procedimentos', { id, nome: 'OUTRA PROCEDIMENTO', abreviacao: 'OUTRA', codigo_tuss: '99999999' });
  other.insert('unidades', { id, nome: 'OUTRA UNIDADE' });
  const convenio = other.insert('convenios', { id, nome: 'OUTRA CONVENIO' });
  other.insert('planos', { id, convenio_id: convenio, nome: 'OUTRA PLANO' });
  other.insert('cids', { id, codigo: 'Z99.9', nome: 'OUTRA DOENCA' });
  other.insert('complementos', { id, nome: 'OUTRA COMPLEMENTO' });
  other.insert('grupos_laudos', { id, nome: 'OUTRA GRUPO' });

  // ---- exams and reports
  other.insert('exames', {
    id,
    paciente_id: id,
    procedimento_id: id,
    unidade_id: id,
    medico_exame_id: id,
    medico_laudo_id: id,
    data_realizado: '2024-01-01',
    arquivo_exame_key: 'outra/exames/500001.pdf',
    arquivo_laudo_key: 'outra/laudos/500001.pdf',
    criado_em: at,
  });
  other.insert('laudos', {
    id,
    exame_id: id,
    medico_laudo_id: id,
    data_laudo: '2024-01-02',
    assinado: 1,
    assinado_em: at,
    assinatura_tipo: 'ICP-Brasil',
    arquivo_key: 'outra/laudos/500001.pdf',
    criado_em: at,
  });

  // ---- agenda
  other.insert('agenda_configs', {
    id,
    nome: 'OUTRA AGENDA',
    tipo_vinculo: 'medico',
    medico_id: id,
    unidade_id: id,
    data_inicio: '2024-01-01',
  });
  other.insert('agendamentos', {
    id,
    agenda_config_id: id,
    paciente_id: id,
    medico_id: id,
    unidade_id: id,
    procedimento_id: id,
    convenio_id: 0,
    data_agendamento: '2030-01-07',
    hora_inicio: '08:00',
    hora_fim: '08:30',
    status: 'agendado',
    criado_em: at,
  });
  // Agenda family (issue 11): the other clinic's agenda is bookable every day for procedure 21 (the agenda examples'
  // procedure) and holds an appointment of a patient id 1, so a leak would show OUTRA in the main clinic's slots
  // (the group's label is the doctor's name) and in `GET /v1/agenda/agendamentos?paciente_id=1`.
  other.insert('procedimentos', { id: 21, nome: 'OUTRA PROCEDIMENTO 21' });
  other.paciente({ id: 1, nome: 'OUTRA PACIENTE ID 1' });
  for (let dia = 0; dia < 7; dia++)
    other.insert('agenda_horarios', { agenda_config_id: id, dia_semana: dia, hora_inicio: '08:00', hora_fim: '18:00' });
  for (const procedimento of [21, id])
    other.insert('agenda_procedimentos', { agenda_config_id: id, procedimento_id: procedimento, duracao_minutos: 30 });
  other.insert('agendamentos', {
    id: id + 1,
    agenda_config_id: id,
    paciente_id: 1,
    medico_id: id,
    unidade_id: id,
    procedimento_id: 21,
    convenio_id: 0,
    data_agendamento: '2030-01-08',
    hora_inicio: '09:00',
    hora_fim: '09:30',
    status: 'agendado',
    criado_em: at,
  });
  other.insert('agendamento_historico', {
    agendamento_id: id,
    status_anterior: null,
    status_novo: 'agendado',
    data_hora: at,
    observacao: 'OUTRA HISTORIA',
    origem: 'API',
  });

  // ---- patient records
  other.insert('prontuarios', { id, paciente_id: id, data_emissao: at, mensagem: '<p>OUTRA</p>', criado_em: at });
  other.insert('prontuario_anexos', {
    id,
    paciente_id: id,
    prontuario_id: id,
    descricao: 'OUTRA ANEXO',
    nome_arquivo: 'outra.pdf',
    extensao: 'PDF',
    tamanho: 10,
    object_key: 'outra/prontuarios/500001.pdf',
    criado_em: at,
  });
}
