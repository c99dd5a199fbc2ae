import type { Operation } from '../operation.ts';

/** Filled in by the prontuarios family (issue work in progress). */
export const prontuariosOperations: Operation[] = [];
