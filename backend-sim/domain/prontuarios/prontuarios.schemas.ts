import { z } from 'zod';
import { wholeListFields } from '../../lib/schemas.ts';
import { arquivoInput } from '../arquivos.ts';

export const prontuarioCreateSchema = z.object({
  mensagem: z.string().max(200_000).nullable().optional(),
  anexos: z.array(arquivoInput).nullable().optional(),
  exibir: z.union([z.literal(0), z.literal(1), z.boolean()]).optional(),
});
export type ProntuarioCreate = z.infer<typeof prontuarioCreateSchema>;

/** A patient's attachments: all of them unless the gateway sends limit/offset. */
export const anexoPageSchema = z.object(wholeListFields);
export type AnexoPage = z.infer<typeof anexoPageSchema>;
