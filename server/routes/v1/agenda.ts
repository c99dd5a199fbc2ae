import { z } from 'zod';
import {
  agendaConfig,
  agendaConfigsQuery,
  agendamento,
  agendamentoCancelado,
  agendamentoCreateBody,
  agendamentoDetail,
  agendamentoIdParams,
  agendamentoReagendado,
  agendamentosListQuery,
  cancelarBody,
  reagendarBody,
  slotGroup,
  slotsQuery,
} from '../../../contracts/schemas/agenda.ts';
import { totalMeta } from '../../../contracts/schemas/envelope.ts';
import { addMeta } from '../../http/envelope.ts';
import { defineOperation, totalOf } from '../operation.ts';
import { family } from './family.ts';

const agenda = family({ tags: ['Agenda'], read: 'agenda:read', write: 'agenda:write' });
const slotGroups = z.array(slotGroup);

/**
 * Agenda: SIMPLES doctor filter on reads and writes (an agenda is visible when its config belongs to
 * the key's doctor). The gateway sends the key's doctor on every backend call; backend-sim applies
 * it, ignores `medico_id` for bound keys and answers 404 for anything outside the filter.
 */
export const agendaOperations = [
  agenda.list({
    url: '/agenda/agendamentos',
    summary: 'Agendamentos de um paciente',
    description:
      'paciente_id e obrigatorio (anti-dump). Agendamentos cancelados aparecem; agendamentos criados sem paciente_id nunca aparecem. ' +
      'Para chaves vinculadas a um medico, medico_id e ignorado e so aparecem agendamentos das agendas desse medico.',
    query: agendamentosListQuery,
    item: agendamento,
    example: { query: { paciente_id: '1', status: 'agendado', limit: '20' } },
  }),
  agenda.detail({
    url: '/agenda/agendamentos/:id',
    summary: 'Detalhe de um agendamento, com historico',
    params: agendamentoIdParams,
    data: agendamentoDetail,
  }),
  defineOperation({
    method: 'GET',
    url: '/agenda/slots',
    summary: 'Proximo horario livre por medico ou sala',
    description:
      'Um grupo por medico (ou sala) e unidade que oferece o procedimento com duracao configurada; proximo_slot null quando nao ha horario livre no horizonte. ' +
      'Ordem: proximo_slot.data (depois hora_inicio), nulos por ultimo por label. Encaixes nao bloqueiam a grade.',
    tags: agenda.tags,
    scope: 'agenda:read',
    query: slotsQuery,
    response: { status: 200, data: slotGroups, meta: [totalMeta] },
    handler: async (ctx) => {
      const result = await ctx.backend.relay(slotGroups, { method: 'GET', path: '/agenda/slots', query: ctx.query });
      addMeta(ctx.reply, { total: totalOf(result) });
      return result.data;
    },
    errors: [],
    example: { query: { procedimento_id: '21', horizonte_dias: '30' } },
  }),
  agenda.list({
    url: '/agenda/configs',
    summary: 'Agendas configuradas',
    query: agendaConfigsQuery,
    item: agendaConfig,
    example: { query: { tipo_vinculo: 'medico', ativo: '1' } },
  }),
  agenda.create({
    url: '/agenda/agendamentos',
    summary: 'Cria um agendamento',
    description:
      'hora_fim e calculado pela duracao do procedimento na agenda. Sem paciente_id, paciente_nome e paciente_celular sao obrigatorios; ' +
      'os dados pessoais enviados (paciente_cpf, paciente_celular, paciente_nascimento, paciente_sexo, paciente_email) sao guardados e nunca devolvidos.',
    body: agendamentoCreateBody,
    data: agendamentoDetail,
    readUrl: '/agenda/agendamentos/:id',
    errors: ['RES_NOT_FOUND', 'CONFLICT', 'DUPLICATE', 'BUSINESS_RULE'],
    example: {
      body: {
        agenda_config_id: 1,
        procedimento_id: 21,
        convenio_id: 0,
        data: '2026-12-01',
        hora_inicio: '09:00',
        paciente_id: 1,
      },
    },
  }),
  agenda.write({
    method: 'POST',
    url: '/agenda/agendamentos/:id/cancelar',
    summary: 'Cancela um agendamento',
    description: 'De qualquer status exceto cancelado e finalizado (422 INVALID_STATE). O historico e mantido.',
    params: agendamentoIdParams,
    body: cancelarBody,
    data: agendamentoCancelado,
    errors: ['RES_NOT_FOUND', 'INVALID_STATE', 'BUSINESS_RULE'],
    example: { body: { motivo: 'Paciente solicitou cancelamento' } },
  }),
  agenda.write({
    method: 'POST',
    url: '/agenda/agendamentos/:id/reagendar',
    summary: 'Reagenda um agendamento (mesmo id)',
    description:
      'O agendamento e atualizado no lugar e volta a agendado; uma entrada de historico registra a data e a hora anteriores. ' +
      'Com chave vinculada a um medico, o agendamento original e a agenda de destino devem ser desse medico (senao 404).',
    params: agendamentoIdParams,
    body: reagendarBody,
    data: agendamentoReagendado,
    errors: ['RES_NOT_FOUND', 'CONFLICT', 'INVALID_STATE', 'BUSINESS_RULE'],
    example: { body: { nova_data: '2026-12-02', nova_hora_inicio: '10:00', motivo: 'Paciente pediu outro dia' } },
  }),
];
