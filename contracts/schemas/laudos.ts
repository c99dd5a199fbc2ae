import { z } from 'zod';
import { arquivoLaudoInput, blockedFields } from './exames.ts';
import { closedObject, positiveInt, text } from './fields.ts';
import {
  dateString,
  flagQuery,
  idParam,
  paginationQuery,
  periodInOrder,
  positiveIntQuery,
  queryObject,
} from './params.ts';

/** Reports (spec 02 § Report (laudo), § Reports, § POST /v1/exames/{id}/laudo). */

export const laudoIdParams = z.strictObject({ id: idParam });

export const laudosListQuery = queryObject({
  exame_id: positiveIntQuery.optional(),
  paciente_id: positiveIntQuery.optional(),
  medico_laudo_id: positiveIntQuery.optional(),
  assinado: flagQuery.optional(),
  periodo_laudo_inicio: dateString.optional(),
  periodo_laudo_fim: dateString.optional(),
  ...paginationQuery,
}).superRefine(periodInOrder('periodo_laudo_inicio', 'periodo_laudo_fim'));

/** Spec: blocked fields of report ingest (400): the report is always stored signed, the client cannot choose. */
export const LAUDO_BLOCKED_FIELDS = [
  'rascunho',
  'assinado_digitalmente',
  'medico_senha',
  'certificado',
  'tipo_assinatura',
  'exames_id',
  '_via_api_chave_id',
] as const;

export const laudoIngestBody = closedObject({
  medico_laudo_id: positiveInt,
  arquivo: arquivoLaudoInput,
  titulo: text(255),
  referencia: text(255),
  cid_id: positiveInt.nullable().optional(),
  ...blockedFields(LAUDO_BLOCKED_FIELDS),
});

// ---------------------------------------------------------------- responses

const ref = z.object({ id: z.number().int(), nome: z.string() });

export const laudoItem = z.object({
  id: z.number().int(),
  exame: z.object({ id: z.number().int(), paciente: ref, tipo_exame: ref }).nullable(),
  medico_laudo: ref.nullable(),
  data_laudo: z.string(),
  hora_laudo: z.string().nullable(),
  assinado: z.boolean(),
  assinado_em: z.string().nullable(),
  tem_arquivo: z.boolean(),
  criado_em: z.string(),
});

export const laudoDetail = laudoItem.extend({
  assinatura: z.object({ tipo: z.string() }).nullable(),
  url_arquivo: z.string().nullable(),
  atualizado_em: z.string().nullable(),
});

/** Ingest response: the detail, with `assinatura.hash` and `assinatura.validacao_url` shown as null. */
export const laudoIngested = laudoDetail.extend({
  assinatura: z.object({ tipo: z.string(), hash: z.null(), validacao_url: z.null() }),
});
