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
import { family } from './family.ts';

const pacientes = family({ tags: ['Pacientes'], read: 'pacientes:read', write: 'pacientes:write' });
const WRITE_ERRORS = [
  'CPF_ALREADY_EXISTS',
  'MEDICAL_RECORD_ALREADY_EXISTS',
  'USUARIO_ALREADY_EXISTS',
  'BUSINESS_RULE',
] as const;

/** Patients: no doctor filter (spec 01 § Doctor auto-filter). */
export const pacientesOperations = [
  pacientes.list({
    url: '/pacientes',
    summary: 'Lista pacientes',
    query: pacientesListQuery,
    item: pacienteListItem,
    example: { query: { nome: 'SILVA', limit: '10' } },
  }),
  pacientes.detail({
    url: '/pacientes/:id',
    summary: 'Detalhe de um paciente',
    params: pacienteIdParams,
    data: pacienteDetailRead,
  }),
  pacientes.create({
    url: '/pacientes',
    summary: 'Cria um paciente',
    body: pacienteCreateBody,
    data: pacienteDetailWrite,
    readUrl: '/pacientes/:id',
    errors: [...WRITE_ERRORS],
    example: { body: { nome: 'Maria da Silva', data_nascimento: '1985-03-14', sexo: 'FEM', celular: '11987654321' } },
  }),
  pacientes.update({
    url: '/pacientes/:id',
    summary: 'Atualiza parte de um paciente (JSON Merge Patch)',
    params: pacienteIdParams,
    body: pacientePatchBody,
    data: pacienteDetailWrite,
    errors: WRITE_ERRORS,
    example: { body: { telefone: '1133334444' } },
  }),
  pacientes.write({
    method: 'POST',
    url: '/pacientes/unificar',
    summary: 'Unifica dois pacientes duplicados',
    description:
      'O paciente duplicado e removido fisicamente e todas as referencias passam ao principal; irreversivel.',
    body: unificarBody,
    data: unificarResult,
    errors: ['PACIENTES_UNIFICACAO_MESMO_ID', 'BUSINESS_RULE'],
    example: { body: { paciente_id_principal: 1, paciente_id_duplicado: 2 } },
  }),
];
