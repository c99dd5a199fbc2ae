import { z } from 'zod';
import { backendFault } from '../backend/admin.ts';
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

/**
 * A presign fault as listed (server/storage/storage-faults.ts StorageFault): like backend-sim's faults, its id, rate,
 * creation and hits (here the presigns it matched, failed or not); its tenant is a slug, or `*` for every clinic.
 */
export const storageFaultView = backendFault
  .pick({ id: true, failure_rate: true, criado_em: true, hits: true })
  .extend({ tenant: z.string() });
export type StorageFaultView = z.infer<typeof storageFaultView>;
