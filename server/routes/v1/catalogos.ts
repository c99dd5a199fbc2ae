import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { BackendCall, BackendClient } from '../../backend/client.ts';
import { addMeta } from '../../http/envelope.ts';
import { paginationMeta } from '../../http/params.ts';
import { backendContext, tenantPath } from '../backend-context.ts';
import {
  cidItem,
  cidsQuery,
  complementoItem,
  convenioItem,
  conveniosQuery,
  grupoLaudoItem,
  procedimentoItem,
  procedimentosQuery,
  unidadeItem,
  wholeCatalogQuery,
} from './schemas/catalogos.ts';

/** Every catalog: `catalogos:read`, no doctor filter, cacheable for 5 minutes by the client. */
export const CATALOG_CONFIG = { scope: 'catalogos:read', cacheControl: 'private, max-age=300' } as const;

/** Largest page the backend serves; the whole-catalog endpoints ask for it. */
const WHOLE_CATALOG_LIMIT = 1000;

export interface CatalogOptions {
  backend: BackendClient;
  release: string;
}

/** Calls a catalog listing and writes the catalog meta (`version`, `timestamp`, plus pagination when paged). */
export async function listCatalog<T>(
  options: CatalogOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  path: string,
  query: BackendCall['query'],
  page: { limit: number; offset: number } | null,
): Promise<T[]> {
  const result = await options.backend.call<T[]>({
    method: 'GET',
    path: tenantPath(request, path),
    query: page ? { ...query, limit: page.limit, offset: page.offset } : { ...query, limit: WHOLE_CATALOG_LIMIT },
    context: backendContext(request),
  });
  const total = Number(result.meta.total ?? result.data.length);
  addMeta(reply, {
    version: options.release,
    timestamp: new Date().toISOString(),
    ...(page ? paginationMeta(page.limit, page.offset, total) : { total }),
  });
  return result.data;
}

const flag = (v: boolean | undefined): string | undefined => (v === undefined ? undefined : v ? '1' : '0');

export default (async (app, options) => {
  app.get(
    '/procedimentos',
    { schema: { querystring: procedimentosQuery, response: { 200: z.array(procedimentoItem) } }, config: CATALOG_CONFIG },
    async (request, reply) => {
      const { q, ativo, limit, offset } = request.query;
      return listCatalog<z.infer<typeof procedimentoItem>>(options, request, reply, '/procedimentos', { q, ativo: flag(ativo) }, { limit, offset });
    },
  );

  app.get(
    '/convenios',
    { schema: { querystring: conveniosQuery, response: { 200: z.array(convenioItem) } }, config: CATALOG_CONFIG },
    async (request, reply) => {
      const { q, ativo, limit, offset } = request.query;
      return listCatalog<z.infer<typeof convenioItem>>(options, request, reply, '/convenios', { q, ativo: flag(ativo) }, { limit, offset });
    },
  );

  app.get(
    '/cids',
    { schema: { querystring: cidsQuery, response: { 200: z.array(cidItem) } }, config: CATALOG_CONFIG },
    async (request, reply) => {
      const { q, limit, offset } = request.query;
      return listCatalog<z.infer<typeof cidItem>>(options, request, reply, '/cids', { q }, { limit, offset });
    },
  );

  app.get(
    '/unidades',
    { schema: { querystring: wholeCatalogQuery, response: { 200: z.array(unidadeItem) } }, config: CATALOG_CONFIG },
    async (request, reply) => listCatalog<z.infer<typeof unidadeItem>>(options, request, reply, '/unidades', {}, null),
  );

  app.get(
    '/complementos',
    { schema: { querystring: wholeCatalogQuery, response: { 200: z.array(complementoItem) } }, config: CATALOG_CONFIG },
    async (request, reply) => listCatalog<z.infer<typeof complementoItem>>(options, request, reply, '/complementos', {}, null),
  );

  app.get(
    '/grupos-laudos',
    { schema: { querystring: wholeCatalogQuery, response: { 200: z.array(grupoLaudoItem) } }, config: CATALOG_CONFIG },
    async (request, reply) => listCatalog<z.infer<typeof grupoLaudoItem>>(options, request, reply, '/grupos-laudos', {}, null),
  );
}) satisfies FastifyPluginAsyncZod<CatalogOptions>;
