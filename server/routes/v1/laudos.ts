import { z } from 'zod';
import { exameIdParams, storedObject } from '../../../contracts/schemas/exames.ts';
import { laudoDetail, laudoIdParams, laudoIngestBody, laudoIngested, laudoItem, laudosListQuery } from '../../../contracts/schemas/laudos.ts';
import { paginationMeta } from '../../../contracts/schemas/params.ts';
import { addMeta } from '../../http/envelope.ts';
import { PRESIGNED_URL_SECONDS } from '../../storage/presigner.ts';
import { defineOperation, fileBodyLimit } from '../operation.ts';
import { checkFileSizes } from './exames-create.ts';

const tags = ['Laudos'];

/**
 * Reports (spec 02 § Reports). Reads and the file redirect use the AMPLIADO doctor filter (the
 * report's doctor, or an exam visible under SIMPLES); ingest has no doctor filter.
 */
export const laudosOperations = [
  defineOperation({
    method: 'GET',
    url: '/laudos',
    summary: 'Lista laudos',
    description: 'Filtro AMPLIADO para chaves vinculadas a um medico; medico_laudo_id e ignorado. Laudos avulsos aparecem com exame null.',
    tags,
    scope: 'laudos:read',
    query: laudosListQuery,
    response: { status: 200, data: z.array(laudoItem), paginated: true },
    handler: async ({ query, auth, backend, reply }) => {
      // Ignored silently for bound keys (anti-enumeration): never forwarded.
      const { medico_laudo_id, ...rest } = query;
      const result = await backend.call(z.array(laudoItem), { method: 'GET', path: '/laudos', query: auth.medicoId ? rest : query });
      addMeta(reply, paginationMeta(query.limit, query.offset, Number(result.meta.total ?? 0)));
      return result.data;
    },
    errors: [],
    example: { query: { assinado: '1', limit: '20' } },
  }),
  defineOperation({
    method: 'GET',
    url: '/laudos/:id',
    summary: 'Detalhe de um laudo',
    tags,
    scope: 'laudos:read',
    params: laudoIdParams,
    response: { status: 200, data: laudoDetail },
    errors: ['RES_NOT_FOUND'],
  }),
  defineOperation({
    method: 'GET',
    url: '/laudos/:id/arquivo',
    summary: 'Redireciona (302) para o PDF do laudo',
    description: `Location: URL pre-assinada valida ${PRESIGNED_URL_SECONDS} s; nao reassinar com HMAC nem guardar em cache.`,
    tags,
    scope: 'laudos:read',
    params: laudoIdParams,
    response: { status: 302 },
    handler: async ({ params, auth, backend, presigner, request }) => {
      const located = await backend.call(storedObject, { method: 'GET', path: `/laudos/${params.id}/arquivo` });
      const url = await presigner.presignGet(located.data, { tenant: auth.tenantSlug });
      request.auditDetail = { id: params.id, tipo: 'laudo', expira_em_segundos: PRESIGNED_URL_SECONDS };
      return url;
    },
    errors: ['RES_NOT_FOUND', 'RES_ARQUIVO_NAO_DISPONIVEL', 'RES_ARQUIVO_S3_FALHA'],
  }),
  defineOperation({
    method: 'POST',
    url: '/exames/:id/laudo',
    summary: 'Recebe o laudo assinado (PDF) de um exame',
    description: 'O laudo e sempre gravado como assinado; o servico nao assina nem gera PDFs. Um exame aceita um unico laudo.',
    tags,
    scope: 'laudos:write',
    idempotent: true,
    bodyLimit: fileBodyLimit(1),
    params: exameIdParams,
    body: laudoIngestBody,
    response: { status: 201, data: laudoIngested, location: (l) => `/v1/laudos/${l.id}`, read: { url: '/laudos/:id', parameters: { id: '$response.body#/data/id' } } },
    handler: async ({ params, body, backend }) => {
      checkFileSizes([{ path: 'arquivo.base64', base64: body.arquivo.base64 }]);
      const result = await backend.call(laudoIngested, { method: 'POST', path: `/exames/${params.id}/laudo`, body });
      return result.data;
    },
    errors: ['RES_NOT_FOUND', 'VAL_FILE_TOO_LARGE', 'CONCURRENT_REQUEST', 'IDEMPOTENCY_CONFLICT', 'REPORT_ALREADY_EXISTS', 'INVALID_REFERENCE', 'VALIDATION_ERROR'],
    example: { body: { medico_laudo_id: 1, arquivo: { nome: 'laudo.pdf', base64: 'JVBERi0xLjQK' }, titulo: 'Laudo' } },
  }),
];
