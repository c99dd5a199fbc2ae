import {
  pacienteCreateBody,
  pacienteDetailRead,
  pacienteDetailWrite,
  pacienteIdParams,
  pacienteListItem,
  pacientePatchBody,
  pacientesListQuery,
  unificarBody,
  unificarResult,
} from '../../../contracts/schemas/pacientes.ts';
import { z } from 'zod';
import { defineOperation } from '../operation.ts';

const tags = ['Pacientes'];
const WRITE_ERRORS = ['CONCURRENT_REQUEST', 'IDEMPOTENCY_CONFLICT', 'CPF_ALREADY_EXISTS', 'MEDICAL_RECORD_ALREADY_EXISTS', 'USUARIO_ALREADY_EXISTS', 'BUSINESS_RULE'] as const;

/** Patients: no doctor filter (spec 01 § Doctor auto-filter). */
export const pacientesOperations = [
  defineOperation({
    method: 'GET',
    url: '/pacientes',
    summary: 'Lista pacientes',
    tags,
    scope: 'pacientes:read',
    query: pacientesListQuery,
    response: { status: 200, data: z.array(pacienteListItem), paginated: true },
    errors: [],
    example: { query: { nome: 'SILVA', limit: '10' } },
  }),
  defineOperation({
    method: 'GET',
    url: '/pacientes/:id',
    summary: 'Detalhe de um paciente',
    tags,
    scope: 'pacientes:read',
    params: pacienteIdParams,
    response: { status: 200, data: pacienteDetailRead },
    errors: ['RES_NOT_FOUND'],
  }),
  defineOperation({
    method: 'POST',
    url: '/pacientes',
    summary: 'Cria um paciente',
    tags,
    scope: 'pacientes:write',
    idempotent: true,
    body: pacienteCreateBody,
    response: {
      status: 201,
      data: pacienteDetailWrite,
      location: (p) => `/v1/pacientes/${p.id}`,
      read: { url: '/pacientes/:id', parameters: { id: '$response.body#/data/id' } },
    },
    errors: [...WRITE_ERRORS],
    example: { body: { nome: 'Maria da Silva', data_nascimento: '1985-03-14', sexo: 'FEM', celular: '11987654321' } },
  }),
  defineOperation({
    method: 'PATCH',
    url: '/pacientes/:id',
    summary: 'Atualiza parte de um paciente (JSON Merge Patch)',
    tags,
    scope: 'pacientes:write',
    idempotent: true,
    params: pacienteIdParams,
    body: pacientePatchBody,
    response: { status: 200, data: pacienteDetailWrite },
    errors: ['RES_NOT_FOUND', ...WRITE_ERRORS],
    example: { body: { telefone: '1133334444' } },
  }),
  defineOperation({
    method: 'POST',
    url: '/pacientes/unificar',
    summary: 'Unifica dois pacientes duplicados',
    description: 'O paciente duplicado e removido fisicamente e todas as referencias passam ao principal; irreversivel.',
    tags,
    scope: 'pacientes:write',
    idempotent: true,
    body: unificarBody,
    response: { status: 200, data: unificarResult },
    errors: ['CONCURRENT_REQUEST', 'IDEMPOTENCY_CONFLICT', 'PACIENTES_UNIFICACAO_MESMO_ID', 'BUSINESS_RULE'],
    example: { body: { paciente_id_principal: 1, paciente_id_duplicado: 2 } },
  }),
];
