import { z } from 'zod';
import { date, pageFields } from '../../lib/schemas.ts';
import { arquivoInput } from '../arquivos.ts';

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

const optId = z.number().int().positive().nullable().optional();
export const exameCreateSchema = z.object({
  paciente_id: z.number().int().positive(),
  procedimento_id: z.number().int().positive(),
  unidade_id: optId,
  medico_exame_id: optId,
  medico_laudo_id: optId,
  grupos_laudos_id: optId,
  medico_solicitante_id: optId,
  data_exame: date.optional(),
  numero: z.string().max(100).nullable().optional(),
  referencia: z.string().max(255).nullable().optional(),
  observacoes: z.string().max(5000).nullable().optional(),
  requer_laudo: z.union([z.literal(0), z.literal(1), z.boolean()]).optional(),
  cid_id: optId,
  complementos_id: optId,
  plano_id: optId,
  convenio_id: optId,
  prioridade: z.union([z.literal(1), z.literal(2), z.literal(3)]).optional(),
  arquivos: z.object({ exames: z.array(arquivoInput).optional(), laudos: z.array(arquivoInput).optional() }).optional(),
});
export type ExameCreate = z.infer<typeof exameCreateSchema>;

export const exameDeleteSchema = z.object({ motivo: z.string().trim().min(3).max(500) });
