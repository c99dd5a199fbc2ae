import { z } from 'zod';
import {
  exameArquivoQuery,
  exameCreateBody,
  exameCreated,
  exameDeleteBody,
  exameDeleteResult,
  exameDetail,
  exameIdParams,
  exameListItem,
  exameListQuery,
  storedObject,
} from '../../../contracts/schemas/exames.ts';
import { exameCreateMeta } from '../../../contracts/schemas/envelope.ts';
import { paginationMeta } from '../../../contracts/schemas/params.ts';
import { addMeta } from '../../http/envelope.ts';
import { PRESIGNED_URL_SECONDS } from '../../storage/presigner.ts';
import { defineOperation, fileBodyLimit } from '../operation.ts';
import { createExameHandler } from './exames-create.ts';

const tags = ['Exames'];

/**
 * Exams (spec 02 § Exams). Reads and the file redirect use the SIMPLES doctor filter (backend-sim
 * applies it from the key's doctor; `medico_id` is dropped here for bound keys); create and delete
 * have no doctor filter (spec 01 § Doctor auto-filter).
 */
export const examesOperations = [
  defineOperation({
    method: 'GET',
    url: '/exames',
    summary: 'Lista exames',
    description: 'Filtro SIMPLES: uma chave vinculada a um medico ve os exames em que ele e medico do exame, laudador ou solicitante; medico_id e ignorado.',
    tags,
    scope: 'exames:read',
    query: exameListQuery,
    response: { status: 200, data: z.array(exameListItem), paginated: true },
    handler: async ({ query, auth, backend, reply }) => {
      // Ignored silently for bound keys (anti-enumeration): never forwarded.
      const { medico_id, ...rest } = query;
      const result = await backend.call(z.array(exameListItem), { method: 'GET', path: '/exames', query: auth.medicoId ? rest : query });
      addMeta(reply, paginationMeta(query.limit, query.offset, Number(result.meta.total ?? 0)));
      return result.data;
    },
    errors: [],
    example: { query: { status_laudo: 'ASSINADO', periodo_realizado_inicio: '2026-01-01', limit: '20' } },
  }),
  defineOperation({
    method: 'GET',
    url: '/exames/:id',
    summary: 'Detalhe de um exame',
    tags,
    scope: 'exames:read',
    params: exameIdParams,
    response: { status: 200, data: exameDetail },
    errors: ['RES_NOT_FOUND'],
  }),
  defineOperation({
    method: 'GET',
    url: '/exames/:id/arquivo',
    summary: 'Redireciona (302) para o arquivo do exame ou do laudo',
    description: `Location: URL pre-assinada valida ${PRESIGNED_URL_SECONDS} s; nao reassinar com HMAC nem guardar em cache.`,
    tags,
    scope: 'exames:read',
    params: exameIdParams,
    query: exameArquivoQuery,
    response: { status: 302 },
    handler: async ({ params, query, auth, backend, presigner, request }) => {
      const located = await backend.call(storedObject, { method: 'GET', path: `/exames/${params.id}/arquivo`, query: { tipo: query.tipo } });
      const url = await presigner.presignGet(located.data, { tenant: auth.tenantSlug });
      // Metadata only: never the storage key or the URL (spec § File redirects).
      request.auditDetail = { id: params.id, tipo: query.tipo, expira_em_segundos: PRESIGNED_URL_SECONDS };
      return url;
    },
    errors: ['RES_NOT_FOUND', 'RES_ARQUIVO_NAO_DISPONIVEL', 'RES_ARQUIVO_S3_FALHA'],
    example: { query: { tipo: 'exame' } },
  }),
  defineOperation({
    method: 'POST',
    url: '/exames',
    summary: 'Cria um exame (aliases, defaults do tenant, arquivos em base64)',
    description:
      'Ids ou aliases (paciente_cpf, procedimento_codigo_tuss, procedimento_abreviacao, convenio_codigo_ans, convenio_nome, medico_exame_crm, medico_laudo_crm, unidade_nome); sem id nem alias valem os defaults do tenant (GET /v1/config).',
    tags,
    scope: 'exames:write',
    idempotent: true,
    // One exam file and one report PDF of the maximum size each.
    bodyLimit: fileBodyLimit(2),
    body: exameCreateBody,
    response: {
      status: 201,
      data: exameCreated,
      location: (e) => `/v1/exames/${e.id}`,
      meta: [exameCreateMeta],
      read: { url: '/exames/:id', parameters: { id: '$response.body#/data/id' } },
    },
    handler: createExameHandler,
    errors: [
      'VAL_FILE_TOO_LARGE',
      'CONCURRENT_REQUEST',
      'IDEMPOTENCY_CONFLICT',
      'PARAM_CONFLICT',
      'RESOLUTION_NOT_FOUND',
      'RESOLUTION_AMBIGUOUS',
      'VALIDATION_ERROR',
      'INVALID_REFERENCE',
      'REPORT_ALREADY_EXISTS',
    ],
    example: {
      body: {
        paciente_cpf: '52998224725',
        procedimento_codigo_tuss: '40901122',
        data_exame: '2026-11-02',
        prioridade: 1,
        arquivos: { exames: [{ nome: 'exame.pdf', base64: 'JVBERi0xLjQK' }] },
      },
    },
  }),
  defineOperation({
    method: 'DELETE',
    url: '/exames/:id',
    summary: 'Exclui um exame (e seus laudos, em cascata)',
    description: 'Escopo dedicado exames:delete. Corpo JSON assinado obrigatorio com motivo (3 a 500 caracteres).',
    tags,
    scope: 'exames:delete',
    idempotent: true,
    params: exameIdParams,
    body: exameDeleteBody,
    response: { status: 200, data: exameDeleteResult },
    errors: ['NOT_FOUND', 'EXAME_LAUDO_CENTRAL', 'CONCURRENT_REQUEST', 'IDEMPOTENCY_CONFLICT', 'BACKEND_CENTRAL_SYNC'],
    example: { body: { motivo: 'Exame cadastrado em duplicidade.' } },
  }),
];
