import { z } from 'zod';
import { dayDate, inlineFileInput } from './files.ts';

const optId = z.number().int().positive().nullable().optional();

/**
 * gateway → backend-sim `POST /tenants/{slug}/exames`: the exam once the gateway has resolved its aliases
 * and applied the tenant defaults (server/routes/v1/exames-create.ts): ids only, no alias. backend-sim
 * parses it and applies the business rules (references, roles, the clinic's mandatory fields).
 */
export const exameCreateResolved = z.object({
  paciente_id: z.number().int().positive(),
  procedimento_id: z.number().int().positive(),
  unidade_id: optId,
  medico_exame_id: optId,
  medico_laudo_id: optId,
  grupos_laudos_id: optId,
  medico_solicitante_id: optId,
  data_exame: dayDate.optional(),
  numero: z.string().max(100).nullable().optional(),
  referencia: z.string().max(255).nullable().optional(),
  observacoes: z.string().max(5000).nullable().optional(),
  requer_laudo: z.union([z.literal(0), z.literal(1), z.boolean()]).optional(),
  cid_id: optId,
  complementos_id: optId,
  plano_id: optId,
  convenio_id: optId,
  prioridade: z.union([z.literal(1), z.literal(2), z.literal(3)]).optional(),
  arquivos: z
    .object({ exames: z.array(inlineFileInput).optional(), laudos: z.array(inlineFileInput).optional() })
    .optional(),
});
export type ExameCreateResolved = z.infer<typeof exameCreateResolved>;

const ref = z.object({ id: z.number().int(), nome: z.string() });

/** backend-sim `GET /tenants/{slug}/resolucao/...`: at most 10 exact matches of an alias, `meta.total` counts them all. */
export const resolucaoMatches = z.array(ref).max(10);
