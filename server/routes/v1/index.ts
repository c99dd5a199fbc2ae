import type { Operation } from '../operation.ts';
import { catalogosOperations } from './catalogos.ts';
import { configOperations } from './config.ts';
import { medicosOperations } from './medicos.ts';
import { pacientesOperations } from './pacientes.ts';
import { pingOperations } from './ping.ts';

/** Every /v1 operation, by family. Adding a family: write its definitions file and list it here. */
export const V1_OPERATIONS: Operation[] = [
  ...pingOperations,
  ...configOperations,
  ...pacientesOperations,
  ...catalogosOperations,
  ...medicosOperations,
];
