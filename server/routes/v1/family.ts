import { z } from 'zod';
import type { ApiErrorCode } from '../../../contracts/errors.ts';
import type { Scope } from '../../../contracts/scopes.ts';
import { paginationMeta } from '../../../contracts/schemas/params.ts';
import { storedObject } from '../../../contracts/schemas/exames.ts';
import type { BackendQuery } from '../../backend/client.ts';
import { PRESIGNED_URL_SECONDS } from '../../storage/presigner.ts';
import { addMeta } from '../../http/envelope.ts';
import type { RelayedJson } from '../../http/schemas.ts';
import {
  type CACHE_POLICIES,
  defineOperation,
  fillPath,
  type JsonOperation,
  type Operation,
  type OperationContext,
  type RedirectOperation,
  type ZodOrUndefined,
} from '../operation.ts';

/** What an operation of a family says for itself: everything but what the family and the kind of operation decide. */
type Own<P extends ZodOrUndefined, Q extends ZodOrUndefined, B extends ZodOrUndefined, R extends z.ZodType> = Omit<
  JsonOperation<P, Q, B, R>,
  'method' | 'tags' | 'scope' | 'public' | 'idempotent' | 'cache' | 'response' | 'errors'
>;

/**
 * One family of /v1 operations (`/pacientes`, `/exames`, …): its tags, the scope its reads need and the one its
 * writes need. The kinds of operation a family has — a page of a list, the detail of one item, a create, a write —
 * each decide their method, access, idempotency, success response and the errors every operation of that kind
 * answers; a family's file gives only what is its own (URL, summary, schemas, examples, its own errors).
 */
export interface Family {
  tags: string[];
  read: Scope;
  write?: Scope;
  /** Cache policy of the reads (catalogs); writes are never cached. */
  cache?: keyof typeof CACHE_POLICIES;
}

export function family(f: Family) {
  const reads = { tags: f.tags, scope: f.read, ...(f.cache ? { cache: f.cache } : {}) };
  const writes = (scope = f.write) => {
    if (!scope) throw new Error(`${f.tags.join(', ')}: a write needs a scope`);
    return { tags: f.tags, scope, idempotent: true };
  };
  return {
    tags: f.tags,

    /** `GET`: a page of `item`s; `meta` has `limit`, `offset`, `total` and `has_more`. */
    list<P extends ZodOrUndefined, Q extends ZodOrUndefined, I extends z.ZodType>(
      o: Own<P, Q, undefined, z.ZodArray<I>> & { item: I; errors?: ApiErrorCode[] },
    ): Operation {
      const { item, errors = [], ...own } = o;
      return defineOperation({
        method: 'GET',
        ...own,
        ...reads,
        response: { status: 200, data: z.array(item), paginated: true },
        errors,
      });
    },

    /** `GET`: one item by its path parameters; 404 when it does not exist or the key's doctor may not see it. */
    detail<P extends ZodOrUndefined, R extends z.ZodType>(o: Own<P, undefined, undefined, R> & { data: R }): Operation {
      const { data, ...own } = o;
      return defineOperation({
        method: 'GET',
        ...own,
        ...reads,
        response: { status: 200, data },
        errors: ['RES_NOT_FOUND'],
      });
    },

    /**
     * `POST`, idempotent: 201 with the created item, its `Location` and the OpenAPI link that reads it; `readUrl` is
     * the detail operation's URL (`/pacientes/:id`), filled with the created item's id.
     */
    create<P extends ZodOrUndefined, B extends ZodOrUndefined, R extends z.ZodType<{ id: number }>>(
      o: Own<P, undefined, B, R> & { data: R; readUrl: string; meta?: z.ZodType[]; errors: ApiErrorCode[] },
    ): Operation {
      const { data, readUrl, meta, errors, ...own } = o;
      return defineOperation({
        method: 'POST',
        ...own,
        ...writes(),
        response: {
          status: 201,
          data,
          location: (created) => `/v1${fillPath(readUrl, { id: created.id })}`,
          ...(meta ? { meta } : {}),
          read: { url: readUrl, parameters: { id: '$response.body#/data/id' } },
        },
        errors,
      });
    },

    /** `GET` answered `302` to a presigned URL (`handler` returns it); `Cache-Control: no-store`, empty body. */
    redirect<P extends ZodOrUndefined, Q extends ZodOrUndefined>(
      o: Omit<RedirectOperation<P, Q>, 'method' | 'tags' | 'scope' | 'public' | 'idempotent' | 'cache' | 'response'>,
    ): Operation {
      return defineOperation<P, Q>({ method: 'GET', ...o, tags: f.tags, scope: f.read, response: { status: 302 } });
    },

    /** `PATCH` of one item by its path parameters, idempotent: 200 with the updated item; 404 when it does not exist. */
    update<P extends ZodOrUndefined, B extends ZodOrUndefined, R extends z.ZodType>(
      o: Own<P, undefined, B, R> & { data: R; errors: readonly ApiErrorCode[] },
    ): Operation {
      const { data, errors, ...own } = o;
      return defineOperation({
        method: 'PATCH',
        ...own,
        ...writes(),
        response: { status: 200, data },
        errors: ['RES_NOT_FOUND', ...errors],
      });
    },

    /** An idempotent write answering 200 with `data` (an update, an action, a delete); `scope` when not the family's write scope. */
    write<P extends ZodOrUndefined, B extends ZodOrUndefined, R extends z.ZodType>(
      o: Own<P, undefined, B, R> & {
        method: 'POST' | 'PATCH' | 'DELETE';
        data: R;
        errors: ApiErrorCode[];
        scope?: Scope;
      },
    ): Operation {
      const { data, errors, scope, ...own } = o;
      return defineOperation({ ...own, ...writes(scope), response: { status: 200, data }, errors });
    },
  };
}

/**
 * Handler of a list whose `param` filters by doctor: for a key bound to a doctor it is dropped, never forwarded
 * (anti-enumeration; backend-sim applies the key's doctor instead), and silently: no error says it was sent.
 */
export function listIgnoringForBoundKeys<I extends z.ZodType>(path: string, item: I, param: string) {
  const page = z.array(item);
  return async ({
    query,
    auth,
    backend,
    reply,
  }: OperationContext<ZodOrUndefined, z.ZodType, undefined>): Promise<z.output<I>[] | RelayedJson> => {
    const { [param]: _ignored, ...rest } = query as BackendQuery;
    const result = await backend.relay(page, {
      method: 'GET',
      path,
      query: auth.medicoId ? rest : (query as BackendQuery),
    });
    const { limit, offset } = query as { limit: number; offset: number };
    addMeta(reply, paginationMeta(limit, offset, Number(result.meta.total ?? 0)));
    return result.data;
  };
}

/** The description of a redirect to a stored file. */
export const PRESIGNED_FILE = `Location: URL pre-assinada valida ${PRESIGNED_URL_SECONDS} s; nao reassinar com HMAC nem guardar em cache.`;

/**
 * A redirect to a file backend-sim stores for the caller's clinic: backend-sim locates it (and applies the key's
 * doctor), the gateway presigns it for the caller's tenant, and the journal gets metadata only (`audit`, the URL's
 * lifetime), never the storage key or the URL (spec § File redirects).
 */
export async function presignedFile(
  ctx: Pick<OperationContext<ZodOrUndefined, ZodOrUndefined, undefined>, 'auth' | 'backend' | 'presigner' | 'request'>,
  located: { path: string; query?: BackendQuery },
  audit: { id: number; tipo: string },
): Promise<string> {
  const { data } = await ctx.backend.call(storedObject, { method: 'GET', ...located });
  const url = await ctx.presigner.presignGet(data, { tenant: ctx.auth.tenantSlug });
  ctx.request.auditDetail = { ...audit, expira_em_segundos: PRESIGNED_URL_SECONDS };
  return url;
}
