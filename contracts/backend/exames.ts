import { z } from 'zod';
import { EXAME_ALIAS_FORMATS, exameArquivoQuery, exameDeleteBody, exameListQuery } from '../schemas/exames.ts';
import { ufField } from '../schemas/fields.ts';
import { PAPEIS } from '../schemas/medicos.ts';
import { pacientesListQuery } from '../schemas/pacientes.ts';
import { dayDate, inlineFileInput } from './files.ts';
import { backendPage, forwarded } from './forwarded.ts';

/** gateway → backend-sim `/tenants/{slug}/exames`: the public exam schemas as backend-sim reads them (forwarded.ts). */

export const exameListForwarded = forwarded(exameListQuery, backendPage);
export type ExameListFilter = z.output<typeof exameListForwarded>;

export const exameArquivoForwarded = forwarded(exameArquivoQuery);

export const exameDeleteForwarded = forwarded(exameDeleteBody);

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

/**
 * gateway → backend-sim `GET /tenants/{slug}/resolucao/...`: the exact-match lookup behind one alias of exam create,
 * its value as the public alias format left it (server/routes/v1/exames-create.ts `lookup`).
 */
export const resolucaoPacienteQuery = z.object({
  // 11 digits, check digits not required: a lookup of a CPF no patient can have finds nothing.
  cpf: pacientesListQuery.shape.cpf.unwrap(),
});
export const resolucaoProcedimentoQuery = z.union([
  z.object({ codigo_tuss: EXAME_ALIAS_FORMATS.procedimento_codigo_tuss }),
  z.object({ abreviacao: EXAME_ALIAS_FORMATS.procedimento_abreviacao }),
]);
export const resolucaoConvenioQuery = z.union([
  z.object({ codigo_ans: EXAME_ALIAS_FORMATS.convenio_codigo_ans }),
  z.object({ nome: EXAME_ALIAS_FORMATS.convenio_nome }),
]);
/** A CRM alias as the gateway splits it (`parseCrm`): the number, its state when given, the role looked for. */
export const resolucaoMedicoQuery = z.object({
  crm: z.string().regex(/^\d{1,10}$/),
  uf: ufField.optional(),
  papel: z.enum(PAPEIS),
});
export const resolucaoUnidadeQuery = z.object({ nome: EXAME_ALIAS_FORMATS.unidade_nome });

export type ResolucaoPacienteQuery = z.output<typeof resolucaoPacienteQuery>;
export type ResolucaoProcedimentoQuery = z.output<typeof resolucaoProcedimentoQuery>;
export type ResolucaoConvenioQuery = z.output<typeof resolucaoConvenioQuery>;
export type ResolucaoMedicoQuery = z.output<typeof resolucaoMedicoQuery>;
export type ResolucaoUnidadeQuery = z.output<typeof resolucaoUnidadeQuery>;

/** backend-sim's answer to those lookups: at most 10 exact matches of an alias, `meta.total` counts them all. */
export const resolucaoMatches = z.array(ref).max(10);
