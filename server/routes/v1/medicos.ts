import { z } from 'zod';
import {
  medicoCreateBody,
  medicoDetail,
  medicoIdParams,
  medicoListItem,
  medicoPatchBody,
  medicosListQuery,
} from '../../../contracts/schemas/medicos.ts';
import { catalogMeta, paginationMeta } from '../../../contracts/schemas/envelope.ts';
import { defineOperation } from '../operation.ts';
import { CATALOG_TAGS, catalogHandler } from './catalogos.ts';

const tags = ['Medicos'];
/** Spec: the doctor endpoints' own codes are "not shown"; these are the ones docs/decisions.md settles on. */
const WRITE_ERRORS = ['CONCURRENT_REQUEST', 'IDEMPOTENCY_CONFLICT', 'USUARIO_ALREADY_EXISTS', 'INVALID_REFERENCE', 'VALIDATION_ERROR', 'BUSINESS_RULE'] as const;

/** List and detail are catalogs (`catalogos:read`, cacheable); create and update need `medicos:write`. */
export const medicosOperations = [
  defineOperation({
    method: 'GET',
    url: '/medicos',
    summary: 'Medicos (lista)',
    tags: CATALOG_TAGS,
    scope: 'catalogos:read',
    cache: 'private-5min',
    query: medicosListQuery,
    response: { status: 200, data: z.array(medicoListItem), meta: [catalogMeta, paginationMeta] },
    handler: catalogHandler('/medicos', medicoListItem, true),
    errors: [],
    example: { query: { papel: 'LAUDO' } },
  }),
  defineOperation({
    method: 'GET',
    url: '/medicos/:id',
    summary: 'Detalhe de um medico',
    tags: CATALOG_TAGS,
    scope: 'catalogos:read',
    cache: 'private-5min',
    params: medicoIdParams,
    response: { status: 200, data: medicoDetail },
    errors: ['RES_NOT_FOUND'],
  }),
  defineOperation({
    method: 'POST',
    url: '/medicos',
    summary: 'Cria um medico (usuario do sistema)',
    tags,
    scope: 'medicos:write',
    idempotent: true,
    body: medicoCreateBody,
    response: { status: 201, data: medicoDetail, location: (m) => `/v1/medicos/${m.id}`, read: { url: '/medicos/:id', parameters: { id: '$response.body#/data/id' } } },
    errors: [...WRITE_ERRORS],
    example: { body: { nome: 'Dra. Ana Souza', usuario: 'ana.souza', senha: 'troque-me', papeis: ['LAUDO'] } },
  }),
  defineOperation({
    method: 'PATCH',
    url: '/medicos/:id',
    summary: 'Atualiza parte de um medico',
    tags,
    scope: 'medicos:write',
    idempotent: true,
    params: medicoIdParams,
    body: medicoPatchBody,
    response: { status: 200, data: medicoDetail },
    errors: ['RES_NOT_FOUND', ...WRITE_ERRORS],
    example: { body: { telefone: '1133334444' } },
  }),
];
