import { z } from 'zod';
import { tenantField } from './common.ts';

/** `POST /storage-faults`: while one matches, the file redirects answer 500 RES_ARQUIVO_S3_FALHA. */
export const storageFaultSchema = z
  .object({
    /** Tenant slug, or `*` for every clinic. */
    tenant: tenantField.default('*'),
    failure_rate: z.number().gt(0, 'Entre 0 (exclusivo) e 1.').max(1, 'Entre 0 (exclusivo) e 1.').default(1),
  })
  .strict();
export type StorageFaultInput = z.input<typeof storageFaultSchema>;

/** A presign fault as listed (server/storage/storage-faults.ts StorageFault). */
export const storageFaultView = z.object({
  id: z.number().int(),
  /** Tenant slug, or `*` for every clinic. */
  tenant: z.string(),
  failure_rate: z.number(),
  criado_em: z.string(),
  /** Presigns it matched (failed or not). */
  hits: z.number().int(),
});
export type StorageFaultView = z.infer<typeof storageFaultView>;
