import type { Operation } from '../operation.ts';
import { catalogosOperations } from './catalogos.ts';
import { configOperations } from './config.ts';
import { medicosOperations } from './medicos.ts';
import { pacientesOperations } from './pacientes.ts';
import { pingOperations } from './ping.ts';
import { examesOperations } from './exames.ts';
import { laudosOperations } from './laudos.ts';
import { agendaOperations } from './agenda.ts';
import { prontuariosOperations } from './prontuarios.ts';

/** Every /v1 operation, by family. Adding a family: write its definitions file and list it here. */
export const V1_OPERATIONS: Operation[] = [
  ...pingOperations,
  ...configOperations,
  ...pacientesOperations,
  ...catalogosOperations,
  ...medicosOperations,
  ...examesOperations,
  ...laudosOperations,
  ...agendaOperations,
  ...prontuariosOperations,
];
