import { z } from 'zod';
import { prontuarioCreateBody, prontuariosListQuery } from '../schemas/prontuarios.ts';
import { inlineFileInput } from './files.ts';
import { backendPage, forwarded, wholeList } from './forwarded.ts';

/** gateway → backend-sim `/tenants/{slug}/pacientes/{id}/prontuarios...`: the public record schemas as backend-sim reads them (forwarded.ts). */

export const prontuarioCreateForwarded = forwarded(prontuarioCreateBody, {
  // The attachments' type, content and size are backend-sim's 422 VALIDATION_ERROR (backend-sim/domain/arquivos.ts).
  anexos: z.array(inlineFileInput).nullable().optional(),
});
export type ProntuarioCreate = z.output<typeof prontuarioCreateForwarded>;

export const prontuarioPageForwarded = forwarded(prontuariosListQuery, backendPage);
export type ProntuarioPage = z.output<typeof prontuarioPageForwarded>;

/** A patient's attachments: all of them unless the gateway sends limit/offset (it always does, default 50). */
export const anexoPageForwarded = forwarded(prontuariosListQuery, wholeList);
export type AnexoPage = z.output<typeof anexoPageForwarded>;
