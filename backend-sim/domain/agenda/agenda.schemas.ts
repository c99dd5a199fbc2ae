import { z } from 'zod';
import { date, optionalText, pageFields } from '../../lib/schemas.ts';

export const STATUS = [
  'agendado',
  'aguardando_confirmacao',
  'confirmado',
  'checkin',
  'em_atendimento',
  'finalizado',
  'cancelado',
  'nao_compareceu',
] as const;
const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/);

export const configListSchema = z.object({
  medico_id: z.coerce.number().int().positive().optional(),
  sala_id: z.coerce.number().int().positive().optional(),
  unidade_id: z.coerce.number().int().positive().optional(),
  tipo_vinculo: z.enum(['medico', 'sala']).optional(),
  ativo: z.enum(['0', '1']).optional(),
  nome: z.string().optional(),
  ...pageFields,
});
export type ConfigListFilter = z.infer<typeof configListSchema>;

export const apptListSchema = z.object({
  paciente_id: z.coerce.number().int().positive(),
  data_inicio: date.optional(),
  data_fim: date.optional(),
  status: z.enum(STATUS).optional(),
  medico_id: z.coerce.number().int().positive().optional(),
  unidade_id: z.coerce.number().int().positive().optional(),
  agenda_config_id: z.coerce.number().int().positive().optional(),
  ...pageFields,
});
export type ApptListFilter = z.infer<typeof apptListSchema>;

export const apptCreateSchema = z.object({
  agenda_config_id: z.number().int().positive(),
  procedimento_id: z.number().int().positive(),
  convenio_id: z.number().int().min(0),
  data: date,
  hora_inicio: hhmm,
  paciente_id: z.number().int().positive().nullable().optional(),
  paciente_nome: optionalText,
  paciente_celular: optionalText,
  paciente_cpf: optionalText,
  paciente_nascimento: optionalText,
  paciente_sexo: optionalText,
  paciente_email: optionalText,
  plano_id: z.number().int().positive().nullable().optional(),
  encaixe: z.boolean().nullable().optional(),
  observacoes: z.string().max(500).nullable().optional(),
  unidade_id: z.number().int().positive().nullable().optional(),
});
export type ApptCreate = z.infer<typeof apptCreateSchema>;

export const cancelSchema = z.object({ motivo: z.string().trim().min(3).max(500) });

export const reagendarSchema = z.object({
  nova_data: date,
  nova_hora_inicio: hhmm,
  agenda_config_id: z.number().int().positive().nullable().optional(),
  motivo: z.string().max(500).nullable().optional(),
});
export type Reagendar = z.infer<typeof reagendarSchema>;

export const slotsSchema = z.object({
  procedimento_id: z.coerce.number().int().positive(),
  unidade_id: z.coerce.number().int().positive().optional(),
  horizonte_dias: z.coerce.number().int().min(1).max(180).default(60),
});
export type SlotsFilter = z.infer<typeof slotsSchema>;
