import { z } from 'zod';
import { BACKEND_FAULT_KINDS, backendFault } from '../backend/admin.ts';
import { tenantField } from './common.ts';

/** backend-sim's kinds, and `latency` (a delay alone, no failure). */
export const FAULT_KINDS = [...BACKEND_FAULT_KINDS, 'latency'] as const;
export const FAULT_METHODS = ['*', 'GET', 'POST', 'PATCH', 'DELETE'] as const;

/** `POST /faults`: a fault as the operator thinks of it: a public /v1 path (glob), not backend-sim's internal route. */
export const faultSchema = z
  .object({
    /** Tenant slug, or `*` for every clinic. */
    tenant: tenantField.default('*'),
    method: z.enum(FAULT_METHODS).default('*'),
    path: z
      .string()
      .trim()
      .regex(/^\/v1\/[A-Za-z0-9_\-/*?.]*$/, 'Use um caminho publico, ex.: /v1/pacientes*'),
    kind: z.enum(FAULT_KINDS),
    latency_ms: z.number().int().min(0).max(120_000, 'No maximo 120000 ms.').default(0),
    failure_rate: z.number().min(0).max(1, 'Entre 0 e 1.').default(1),
  })
  .refine((f) => f.kind !== 'latency' || f.latency_ms > 0, {
    message: 'Informe a latencia em ms.',
    path: ['latency_ms'],
  });
export type FaultInput = z.infer<typeof faultSchema>;

/**
 * A fault as the console lists it: backend-sim's fault, with the public path and method it was made from
 * and `latency` as the kind of a delay alone.
 */
export const faultView = backendFault.extend({ method: z.string(), path: z.string(), kind: z.enum(FAULT_KINDS) });
export type FaultView = z.infer<typeof faultView>;
