import { z } from 'zod';
import { TENANT_REFERENCE_MAX_LENGTH, TENANT_SLUG_PATTERN } from './tenants.ts';

/**
 * gateway → backend-sim's own administration (`/admin/...`): clinics, injected faults, first-start
 * copies and resets. Never reached by an integrator; the gateway's console API fronts them.
 */

/** `POST /admin/tenants`: idempotent; an existing clinic only takes the name. */
export const backendTenantInput = z.object({
  slug: z.string().regex(TENANT_SLUG_PATTERN),
  nome: z.string().min(1).max(200).optional(),
});

export const BACKEND_FAULT_KINDS = ['http500', 'drop', 'invalid_json', 'hang'] as const;
export type BackendFaultKind = (typeof BACKEND_FAULT_KINDS)[number];

/** `POST /admin/faults`: `route` is a glob or regular expression over `METHOD /path` (backend-sim/faults.ts). */
export const backendFaultInput = z.object({
  tenant: z.string().min(1).max(TENANT_REFERENCE_MAX_LENGTH).optional(),
  route: z.string().min(1).max(300),
  latency_ms: z.number().int().min(0).max(600_000).default(0),
  failure_rate: z.number().min(0).max(1).default(1),
  kind: z.enum(BACKEND_FAULT_KINDS).optional(),
});
export type BackendFaultInput = z.infer<typeof backendFaultInput>;

/** A fault as `GET /admin/faults` lists it. */
export const backendFault = z.object({
  id: z.number().int(),
  /** A slug, or `*` for every clinic. */
  tenant: z.string().nullable(),
  route: z.string(),
  latency_ms: z.number(),
  failure_rate: z.number(),
  kind: z.enum(BACKEND_FAULT_KINDS).nullable(),
  criado_em: z.string(),
  /** Requests this fault matched (latency and/or failure applied). */
  hits: z.number().int(),
});
export type BackendFault = z.infer<typeof backendFault>;

/** `POST /admin/tenants/{slug}/reset`: the clinic database back to its first-start copy. */
export const backendTenantResetInput = z.strictObject({ files: z.boolean().optional() });
export const backendTenantReset = z.object({
  slug: z.string(),
  nome: z.string(),
  rows: z.number().int(),
  idempotency_markers_removed: z.number().int(),
  files_removed: z.number().int().nullable(),
  database_ms: z.number(),
});

/** `POST /admin/tenants/{slug}/pristine`: records the clinic's state as its first-start copy. */
export const backendSnapshotInput = z.strictObject({ replace: z.boolean().optional() });
