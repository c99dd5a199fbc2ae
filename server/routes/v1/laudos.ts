import type { Operation } from '../operation.ts';

/** Filled in by the laudos family (issue work in progress). */
export const laudosOperations: Operation[] = [];
