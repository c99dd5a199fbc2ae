import type { z } from 'zod';
import { laudoIngestBody, laudosListQuery } from '../schemas/laudos.ts';
import { inlineFileInput } from './files.ts';
import { backendPage, forwarded, queryFlag } from './forwarded.ts';

/** gateway → backend-sim `/tenants/{slug}/laudos`, `.../exames/{id}/laudo`: the public report schemas as backend-sim reads them (forwarded.ts). */

export const laudoListForwarded = forwarded(laudosListQuery, { assinado: queryFlag.optional(), ...backendPage });
export type LaudoListFilter = z.output<typeof laudoListForwarded>;

export const laudoIngestForwarded = forwarded(laudoIngestBody, {
  // The file's type, content and size are backend-sim's 422 VALIDATION_ERROR (backend-sim/domain/arquivos.ts).
  arquivo: inlineFileInput,
});
export type LaudoIngest = z.output<typeof laudoIngestForwarded>;
