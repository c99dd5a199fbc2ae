import { z } from 'zod';

/**
 * The console API's storage faults (`/admin/api/storage-faults`), shared by the route and the console's
 * panel: no server imports, so the console bundle can take it.
 */
export const storageFaultSchema = z
  .object({
    /** Tenant slug, or `*` for every clinic. */
    tenant: z.string().trim().min(1).max(63).default('*'),
    failure_rate: z.number().gt(0, 'Entre 0 (exclusivo) e 1.').max(1, 'Entre 0 (exclusivo) e 1.').default(1),
  })
  .strict();
export type StorageFaultInput = z.input<typeof storageFaultSchema>;

/** A presign fault as listed (server/storage/storage-faults.ts StorageFault). */
export interface StorageFaultView {
  id: number;
  /** Tenant slug, or `*` for every clinic. */
  tenant: string;
  failure_rate: number;
  criado_em: string;
  /** Presigns it matched (failed or not). */
  hits: number;
}
