import { z } from 'zod';
import { date, pageFields } from '../../lib/schemas.ts';

export const exameListSchema = z.object({
  paciente_id: z.coerce.number().int().positive().optional(),
  medico_id: z.coerce.number().int().positive().optional(),
  tipo_exame_id: z.coerce.number().int().positive().optional(),
  periodo_realizado_inicio: date.optional(),
  periodo_realizado_fim: date.optional(),
  status_laudo: z.enum(['PENDENTE', 'EMITIDO', 'ASSINADO']).optional(),
  ...pageFields,
});
export type ExameListFilter = z.infer<typeof exameListSchema>;

/** What the gateway sends once aliases and defaults are resolved: the contract both processes parse with. */
export {
  exameCreateResolved as exameCreateSchema,
  type ExameCreateResolved as ExameCreate,
} from '../../../contracts/backend/exames.ts';

export const exameDeleteSchema = z.object({ motivo: z.string().trim().min(3).max(500) });
