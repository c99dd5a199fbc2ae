import { z } from 'zod';
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
} from '../../../contracts/schemas/catalogos.ts';
import { catalogMeta, paginationMeta as paginationMetaSchema, totalMeta } from '../../../contracts/schemas/envelope.ts';
import { paginationMeta } from '../../../contracts/schemas/params.ts';
import { API_RELEASE } from '../../config.ts';
import { addMeta } from '../../http/envelope.ts';
import type { RelayedJson } from '../../http/schemas.ts';
import { defineOperation, totalOf, type OperationContext } from '../operation.ts';
import { family } from './family.ts';

/** Largest page the backend serves; the whole-catalog endpoints ask for it. */
const WHOLE_CATALOG_LIMIT = 1000;

/**
 * A catalog listing: the query forwarded as parsed, and the catalog meta (`version`, `timestamp`,
 * plus pagination when the catalog is paged, `total` when it is returned whole).
 */
function catalogHandler<S extends z.ZodType>(path: string, item: S, paged: boolean) {
  const page = z.array(item);
  return async (ctx: OperationContext<undefined, z.ZodType, undefined>): Promise<z.output<S>[] | RelayedJson> => {
    const query = (ctx.query ?? {}) as Record<string, string | number | boolean | string[] | undefined>;
    const result = await ctx.backend.relay(page, {
      method: 'GET',
      path,
      query: paged ? query : { ...query, limit: WHOLE_CATALOG_LIMIT },
    });
    const total = totalOf(result);
    addMeta(ctx.reply, {
      version: API_RELEASE,
      timestamp: new Date().toISOString(),
      ...(paged ? paginationMeta(Number(query.limit), Number(query.offset), total) : { total }),
    });
    return result.data;
  };
}

/** Every catalog: `catalogos:read`, no doctor filter, cacheable 5 minutes by the client. */
export const catalogs = family({ tags: ['Catalogos'], read: 'catalogos:read', cache: 'private-5min' });

/** A catalog list: paged (pagination meta) or returned whole (`total`), with the catalog meta. */
export const catalog = <S extends z.ZodType>(
  url: string,
  summary: string,
  query: z.ZodType,
  item: S,
  paged: boolean,
  example?: Record<string, string>,
) =>
  defineOperation({
    method: 'GET',
    url,
    summary,
    tags: catalogs.tags,
    scope: 'catalogos:read',
    cache: 'private-5min',
    query,
    response: {
      status: 200,
      data: z.array(item),
      meta: paged ? [catalogMeta, paginationMetaSchema] : [catalogMeta, totalMeta],
    },
    handler: catalogHandler(url, item, paged),
    errors: [],
    example: example ? { query: example } : undefined,
  });

export const catalogosOperations = [
  catalog('/procedimentos', 'Procedimentos (tipos de exame)', procedimentosQuery, procedimentoItem, true, { q: 'US' }),
  catalog('/convenios', 'Convenios com seus planos', conveniosQuery, convenioItem, true),
  catalog('/cids', 'Busca na CID-10', cidsQuery, cidItem, true, { q: 'J0' }),
  catalog('/unidades', 'Unidades da clinica (fonte do alias unidade_nome)', wholeCatalogQuery, unidadeItem, false),
  catalog(
    '/complementos',
    'Complementos de exame (fonte de complementos_id)',
    wholeCatalogQuery,
    complementoItem,
    false,
  ),
  catalog(
    '/grupos-laudos',
    'Grupos de medicos laudadores (fonte de grupos_laudos_id)',
    wholeCatalogQuery,
    grupoLaudoItem,
    false,
  ),
];
