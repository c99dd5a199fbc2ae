import { z } from 'zod';
import { API_ERROR_STATUS, type ApiErrorCode } from '../errors.ts';

/**
 * The envelope around every /v1 answer (spec 01 § Response envelope): `meta` and the error object with
 * `details` typed per code. The gateway writes these from server/http/envelope.ts; these schemas are
 * what the OpenAPI document publishes (components `Meta`, `ErrorEnvelope`, ...) and what
 * test/server/openapi/agreement.test.ts checks real answers against. Objects stay open to new fields:
 * the API evolves additively (spec 01 § Versioning).
 */

// ---------------------------------------------------------------- meta

export const meta = z.object({
  request_id: z
    .string()
    .regex(/^[0-9a-f]+$/)
    .describe('Identifica a chamada no journal de auditoria e no suporte (hexadecimal).'),
  duracao_ms: z.number().int().min(0).describe('Tempo de processamento no gateway, em milissegundos.'),
});

export const paginationMeta = z.object({
  limit: z.number().int().min(1).max(200),
  offset: z.number().int().min(0),
  total: z.number().int().min(0).describe('Registros que satisfazem o filtro no tenant.'),
  has_more: z.boolean().describe('true quando offset + limit < total.'),
});

export const writeMeta = z.object({
  idempotent_replay: z
    .boolean()
    .describe('true quando a resposta e a repeticao guardada de uma Idempotency-Key ja usada.'),
  request_id_original: z.string().optional().describe('Numa repeticao: o request_id da execucao original.'),
});

export const totalMeta = z.object({ total: z.number().int().min(0) });

export const versionMeta = z.object({ version: z.string().describe('Release do gateway (X-Api-Release).') });

export const catalogMeta = versionMeta.extend({
  timestamp: z.string().describe('Instante da resposta, ISO 8601 UTC.'),
});

const idsByField = z.record(z.string(), z.number().int());
export const exameCreateMeta = z.object({
  resolvido: idsByField
    .optional()
    .describe('Ids inferidos de aliases (`<campo>_id` → id); so quando algum alias foi resolvido.'),
  defaults_aplicados: idsByField
    .optional()
    .describe('Ids vindos dos defaults do tenant; so quando algum foi aplicado.'),
});

// ---------------------------------------------------------------- error details, per code

const ref = z.object({ id: z.number().int(), nome: z.string() });

export const listaItem = z.object({
  field: z.string(),
  msg: z.string(),
  code: z.string().optional(),
  valores_aceitos: z.array(z.unknown()).optional(),
  campos_aceitos: z.array(z.string()).optional().describe('Campo ou parametro desconhecido: os nomes aceitos ali.'),
  candidatos: z.array(ref).optional(),
  id_informado: z.number().int().optional(),
  id_resolvido: z.number().int().optional(),
  limite_bytes: z.number().int().optional(),
  tamanho_bytes: z.number().int().optional(),
  fonte: z.string().optional().describe('Onde consultar o valor (por exemplo uma linha de requisicao de catalogo).'),
  alias_aceito: z.string().nullable().optional().describe('Alias que evita enviar o id.'),
});

/** `field` names the first failing field; `lista[]` every one, in the same pass (spec 01 § Consolidated envelope). */
export const validationDetails = z.object({
  field: z.string(),
  lista: z.array(listaItem).optional(),
  candidatos: z.array(ref).optional(),
  limite_bytes: z.number().int().optional(),
});

/** One named `details` shape and the codes that carry it: each API code in exactly one group. */
export interface ErrorDetailsGroup {
  /** Component name in the OpenAPI document. */
  name: string;
  details: z.ZodType;
  codes: ApiErrorCode[];
}

export const ERROR_DETAILS: ErrorDetailsGroup[] = [
  {
    name: 'ValidationDetails',
    details: validationDetails,
    codes: ['VAL_INVALID_PARAM', 'RESOLUTION_NOT_FOUND', 'RESOLUTION_AMBIGUOUS', 'PARAM_CONFLICT'],
  },
  {
    name: 'FileTooLargeDetails',
    details: validationDetails.extend({ limite_bytes: z.number().int() }),
    codes: ['VAL_FILE_TOO_LARGE'],
  },
  {
    name: 'NoDetails',
    details: z.null(),
    codes: [
      'AUTH_KEY_NOT_FOUND',
      'AUTH_TENANT_OPEN_FAILED',
      'AUTH_KEY_REVOKED',
      'AUTH_KEY_LEGACY',
      'RES_NOT_FOUND',
      'NOT_FOUND',
      'RES_ARQUIVO_NAO_DISPONIVEL',
      'CONCURRENT_REQUEST',
      'EXAME_LAUDO_CENTRAL',
      'INTERNAL_ERROR',
      'RES_ARQUIVO_S3_FALHA',
      'BACKEND_CENTRAL_SYNC',
      'SERVICE_TIMEOUT',
    ],
  },
  {
    name: 'FieldDetails',
    details: z.object({ field: z.string() }),
    codes: [
      'AUTH_INVALID_API_KEY_FORMAT',
      'AUTH_INVALID_TIMESTAMP',
      'IDEMPOTENCY_CONFLICT',
      'PACIENTES_UNIFICACAO_MESMO_ID',
    ],
  },
  {
    name: 'BackendFieldDetails',
    details: z.object({ field: z.string().optional() }).nullable(),
    codes: ['VAL_BACKEND', 'CONFLICT', 'BUSINESS_RULE', 'INVALID_REFERENCE'],
  },
  {
    name: 'MissingHeaderDetails',
    details: z.object({ field: z.string(), ausentes: z.array(z.string()) }),
    codes: ['AUTH_MISSING_HEADER'],
  },
  {
    name: 'TimestampDetails',
    details: z.object({
      field: z.string(),
      server_time: z.string(),
      server_timestamp: z.number().int(),
      skew_seconds: z.number().int().describe('X-Timestamp menos o relogio do servidor, em segundos.'),
      window_seconds: z.number().int(),
      appliance_offset_seconds: z
        .number()
        .int()
        .describe('Quanto o relogio do appliance foi adiantado de proposito (0 em tempo real).'),
    }),
    codes: ['AUTH_TIMESTAMP_EXPIRED'],
  },
  {
    name: 'SignatureDetails',
    details: z
      .object({ field: z.string().optional() })
      .nullable()
      .describe(
        'null; em modo desenvolvimento, o que o servidor assinou e a causa provavel (docs/api/README-signing.md).',
      ),
    codes: ['AUTH_INVALID_SIGNATURE'],
  },
  {
    name: 'ScopeDetails',
    details: z.object({
      escopo_necessario: z.string(),
      escopos_da_chave: z.array(z.string()).describe('Os escopos da chave usada.'),
    }),
    codes: ['AUTH_INSUFFICIENT_SCOPE'],
  },
  {
    name: 'OperationDetails',
    details: z.object({ escopo: z.string().optional(), field: z.string().optional() }).nullable(),
    codes: ['OPERATION_NOT_ALLOWED'],
  },
  {
    name: 'MethodDetails',
    details: z.object({ metodos_aceitos: z.array(z.string()) }).nullable(),
    codes: ['METHOD_NOT_ALLOWED'],
  },
  {
    name: 'DuplicateDetails',
    details: z.object({ agendamento_id_existente: z.number().int().optional() }).nullable(),
    codes: ['DUPLICATE'],
  },
  { name: 'StateDetails', details: z.object({ status: z.string().optional() }).nullable(), codes: ['INVALID_STATE'] },
  {
    name: 'ExistingPatientDetails',
    details: z.object({ paciente_id_existente: z.number().int(), nome: z.string() }),
    codes: ['CPF_ALREADY_EXISTS', 'MEDICAL_RECORD_ALREADY_EXISTS'],
  },
  {
    name: 'ExistingUserDetails',
    details: z.object({
      field: z.string().optional(),
      paciente_id_existente: z.number().int().optional(),
      medico_id_existente: z.number().int().optional(),
      nome: z.string().optional(),
    }),
    codes: ['USUARIO_ALREADY_EXISTS'],
  },
  {
    name: 'ExistingReportDetails',
    details: z.object({ laudo_id_existente: z.number().int().optional(), field: z.string().optional() }).nullable(),
    codes: ['REPORT_ALREADY_EXISTS'],
  },
  {
    name: 'BackendValidationDetails',
    details: z.object({ field: z.string().optional(), valores_aceitos: z.array(z.unknown()).optional() }).nullable(),
    codes: ['VALIDATION_ERROR'],
  },
  {
    name: 'RateLimitDetails',
    details: z.object({ limite_por_minuto: z.number().int(), escopo: z.string().optional() }),
    codes: ['RATE_LIMIT_EXCEEDED'],
  },
  {
    name: 'UnavailableDetails',
    details: z.object({ motivo: z.string().optional() }).nullable(),
    codes: ['SERVICE_UNAVAILABLE'],
  },
];

export const API_ERROR_CODES = Object.keys(API_ERROR_STATUS) as ApiErrorCode[];
