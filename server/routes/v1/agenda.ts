import type { Operation } from '../operation.ts';

/** Filled in by the agenda family (issue work in progress). */
export const agendaOperations: Operation[] = [];
