import type { Operation } from '../operation.ts';

/** Filled in by the exames family (issue work in progress). */
export const examesOperations: Operation[] = [];
