import { z } from 'zod';
import { SNAPSHOT_NAME_PATTERN } from './snapshots.ts';
import { TENANT_SLUG_PATTERN } from './tenants.ts';

/** gateway → backend-sim `POST /admin/tenants/{template}/clone` (issue 30): a file copy under a new slug. */
export const backendCloneInput = z.strictObject({
  slug: z.string().regex(TENANT_SLUG_PATTERN),
  snapshot: z.string().regex(SNAPSHOT_NAME_PATTERN).optional(),
});
export type BackendCloneInput = z.infer<typeof backendCloneInput>;

export const backendClone = z.object({
  slug: z.string(),
  template: z.string(),
  snapshot: z.string().nullable(),
  nome: z.string(),
  bytes: z.number().int(),
  files_copied: z.number().int(),
  /** Rows that named an object the storage did not have (a template whose files a reset deleted). */
  files_missing: z.number().int(),
  database_ms: z.number(),
  duration_ms: z.number(),
});
export type BackendClone = z.infer<typeof backendClone>;

/** `DELETE /admin/tenants/{slug}`: its database, first-start copy, snapshots and stored files; idempotent. */
export const backendTenantDrop = z.object({
  slug: z.string(),
  /** false: there was no database (dropped already, or a drop that died half-way is finished now). */
  dropped: z.boolean(),
  files_removed: z.number().int(),
});
export type BackendTenantDrop = z.infer<typeof backendTenantDrop>;
