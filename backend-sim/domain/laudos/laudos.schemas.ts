import { z } from 'zod';
import { date, pageFields } from '../../lib/schemas.ts';
import { arquivoInput } from '../arquivos.ts';

export const laudoListSchema = z.object({
  exame_id: z.coerce.number().int().positive().optional(),
  paciente_id: z.coerce.number().int().positive().optional(),
  medico_laudo_id: z.coerce.number().int().positive().optional(),
  assinado: z.enum(['0', '1']).optional(),
  periodo_laudo_inicio: date.optional(),
  periodo_laudo_fim: date.optional(),
  ...pageFields,
});
export type LaudoListFilter = z.infer<typeof laudoListSchema>;

export const laudoIngestSchema = z.object({
  medico_laudo_id: z.number().int().positive(),
  arquivo: arquivoInput,
  titulo: z.string().max(255).nullable().optional(),
  referencia: z.string().max(255).nullable().optional(),
  cid_id: z.number().int().positive().nullable().optional(),
});
export type LaudoIngest = z.infer<typeof laudoIngestSchema>;
