import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { BackendClient } from '../../backend/client.ts';
import { emptyQuery } from '../../http/params.ts';
import { backendContext, tenantPath } from '../backend-context.ts';
import { CATALOG_CONFIG, listCatalog } from './catalogos.ts';
import { medicoCreateBody, medicoDetail, medicoIdParams, medicoListItem, medicoPatchBody, medicosListQuery } from './schemas/medicos.ts';

type Detail = z.input<typeof medicoDetail>;

/**
 * The whole /medicos path family in one plugin: list and detail are catalogs (`catalogos:read`,
 * cacheable), create and update need `medicos:write` and an Idempotency-Key.
 */
export default (async (app, options) => {
  const { backend } = options;

  app.get(
    '/medicos',
    { schema: { querystring: medicosListQuery, response: { 200: z.array(medicoListItem) } }, config: CATALOG_CONFIG },
    async (request, reply) => {
      const { papel, q, ativo, limit, offset } = request.query;
      return listCatalog<z.infer<typeof medicoListItem>>(options, request, reply, '/medicos', { papel, q, ativo: ativo ? '1' : '0' }, { limit, offset });
    },
  );

  app.get(
    '/medicos/:id',
    { schema: { params: medicoIdParams, querystring: emptyQuery, response: { 200: medicoDetail } }, config: CATALOG_CONFIG },
    async (request) => {
      const result = await backend.call<Detail>({
        method: 'GET',
        path: tenantPath(request, `/medicos/${request.params.id}`),
        context: backendContext(request),
      });
      return result.data;
    },
  );

  app.post(
    '/medicos',
    {
      schema: { querystring: emptyQuery, body: medicoCreateBody, response: { 201: medicoDetail } },
      config: { scope: 'medicos:write', idempotent: true },
    },
    async (request, reply) => {
      const result = await backend.call<Detail>({
        method: 'POST',
        path: tenantPath(request, '/medicos'),
        body: request.body,
        context: backendContext(request),
      });
      reply.status(201).header('location', `/v1/medicos/${result.data.id}`);
      return result.data;
    },
  );

  app.patch(
    '/medicos/:id',
    {
      schema: { params: medicoIdParams, querystring: emptyQuery, body: medicoPatchBody, response: { 200: medicoDetail } },
      config: { scope: 'medicos:write', idempotent: true },
    },
    async (request) => {
      const result = await backend.call<Detail>({
        method: 'PATCH',
        path: tenantPath(request, `/medicos/${request.params.id}`),
        body: request.body,
        context: backendContext(request),
      });
      return result.data;
    },
  );
}) satisfies FastifyPluginAsyncZod<{ backend: BackendClient; release: string }>;
