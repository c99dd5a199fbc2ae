import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { ApiErrorCode } from '../../contracts/errors.ts';
import type { Scope } from '../../contracts/scopes.ts';
import {
  CONTROL_CHARACTER_MESSAGE,
  emptyQuery,
  fieldWithControlCharacter,
  paginationMeta,
} from '../../contracts/schemas/params.ts';
import type { Backend, BackendCall, BackendCallContext, BackendQuery } from '../backend/client.ts';
import { tenantPath } from '../../contracts/backend/tenants.ts';
import { invalidParam } from '../errors.ts';
import { addMeta } from '../http/envelope.ts';
import { conforming, RelayedJson } from '../http/schemas.ts';
import { syncHook } from '../http/sync-hooks.ts';
import { backendIdempotency } from '../idempotency/idempotency-plugin.ts';
import type { AuthContext } from '../http/request-context.ts';
import type { Presigner } from '../storage/presigner.ts';

/**
 * One definition per /v1 operation. `registerOperations` turns it into the Fastify route, with:
 * the required scope (or an explicit `public: true` for ping/config, which any valid key may call),
 * the idempotency contract for writes, the cache policy, a body limit enforced while the body
 * arrives, zod validation of params/query/body, the response schema that strips anything else,
 * the OpenAPI operation (openapi.ts reads `config.operation`), and enrolment in the generated
 * security suite (test/server/routes/v1/security.test.ts reads `app.operations`).
 */

export type OperationMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** Routes without inline files: generous for any JSON the spec allows, small enough to refuse padding. */
export const SMALL_BODY_LIMIT = 64 * 1024;
/** Spec § Limits: 20 MB per decoded inline file. */
export const MAX_FILE_BYTES = 20 * 1024 * 1024;
/** Bytes of base64 text for `bytes` of file. */
export const base64Length = (bytes: number): number => Math.ceil(bytes / 3) * 4;
/** Body limit of a route carrying up to `files` inline files of the maximum size, plus the small JSON around them. */
export const fileBodyLimit = (files: number): number => files * base64Length(MAX_FILE_BYTES) + SMALL_BODY_LIMIT;

export const CACHE_POLICIES = {
  'no-store': 'no-store',
  /** Spec: `GET /v1/config` and the catalogs. */
  'private-5min': 'private, max-age=300',
} as const;

type Access = { scope: Scope; public?: undefined } | { public: true; scope?: undefined };

export type ZodOrUndefined = z.ZodType | undefined;
type Out<T extends ZodOrUndefined> = T extends z.ZodType ? z.output<T> : undefined;

export interface OperationContext<P extends ZodOrUndefined, Q extends ZodOrUndefined, B extends ZodOrUndefined> {
  params: Out<P>;
  query: Out<Q>;
  body: Out<B>;
  auth: AuthContext;
  request: FastifyRequest;
  reply: FastifyReply;
  /** backend-sim, scoped to the caller's tenant, carrying the key id and the doctor filter. */
  backend: TenantBackend;
  /** Presigned GET URLs (300 s) for the files backend-sim locates. */
  presigner: Presigner;
}

export interface JsonResponse<R extends z.ZodType> {
  status: 200 | 201;
  /** Schema of `data` (the envelope is added by the envelope plugin): anything it does not name is stripped. */
  data: R;
  /**
   * A page of a list: `meta` has `limit`, `offset`, `total`, `has_more` (the default handler adds them from the query
   * and the backend's `meta.total`; a handler of its own adds them itself).
   */
  paginated?: boolean;
  /** `Location` header of a 201. */
  location?: (data: z.output<R>) => string;
  /** What the handler adds to `meta` besides the envelope's own, pagination and write fields (OpenAPI; named in server/openapi/components.ts). */
  meta?: z.ZodType[];
  /**
   * The GET that reads what a 201 created (OpenAPI `links`): its URL below /v1 and each of its path
   * parameters as a runtime expression (`$response.body#/data/id`, `$request.path.id`).
   */
  read?: { url: string; parameters: Record<string, string> };
}

export interface RedirectResponse {
  /** 302 to a presigned URL, empty body, `Cache-Control: no-store` (spec § File redirects). */
  status: 302;
}

interface OperationBase<P extends ZodOrUndefined, Q extends ZodOrUndefined, B extends ZodOrUndefined> {
  method: OperationMethod;
  /** Below `/v1`, Fastify syntax (`/pacientes/:id`). */
  url: string;
  summary: string;
  description?: string;
  tags: string[];
  /** Writes under the idempotency contract: `Idempotency-Key` required, replay, conflicts. */
  idempotent?: boolean;
  cache?: keyof typeof CACHE_POLICIES;
  /** Largest body accepted, in bytes; default SMALL_BODY_LIMIT. Refused with 413 as soon as it is passed. */
  bodyLimit?: number;
  params?: P;
  /** Query schema; default: no parameter accepted. */
  query?: Q;
  body?: B;
  /** Never calls backend-sim (ping): no 503/504 in its OpenAPI error list. */
  offline?: boolean;
  /**
   * Codes this operation answers besides the ones every signed route can and those its kind implies (OpenAPI;
   * server/openapi/document.ts operationErrorCodes: an idempotent write's CONCURRENT_REQUEST and IDEMPOTENCY_CONFLICT).
   */
  errors: ApiErrorCode[];
  /** A valid call (OpenAPI example, generated security suite). Path params default to 1. */
  example?: { params?: Record<string, number | string>; query?: Record<string, string>; body?: unknown };
}

export type JsonOperation<
  P extends ZodOrUndefined,
  Q extends ZodOrUndefined,
  B extends ZodOrUndefined,
  R extends z.ZodType,
> = Access &
  OperationBase<P, Q, B> & {
    response: JsonResponse<R>;
    /**
     * Default: forward to the same path in backend-sim (`backendPath` overrides) and parse `data` with `response.data`
     * (a GET relays it: TenantBackend.relay). A handler may answer a relayed `data` as it came.
     */
    handler?: (
      ctx: OperationContext<P, Q, B>,
    ) => Promise<z.input<R> | z.output<R> | RelayedJson> | z.input<R> | z.output<R> | RelayedJson;
    backendPath?: string;
  };

export type RedirectOperation<P extends ZodOrUndefined, Q extends ZodOrUndefined> = Access &
  OperationBase<P, Q, undefined> & {
    response: RedirectResponse;
    /** Returns the URL to redirect to. */
    handler: (ctx: OperationContext<P, Q, undefined>) => Promise<string>;
  };

/*
 * An operation whatever its schemas: a route table lists operations of different schemas, each checked where
 * defineOperation made it, so the lists and the code that walks them take any.
 */
// biome-ignore lint/suspicious/noExplicitAny: see above
export type AnyJsonOperation = JsonOperation<any, any, any, any>;
// biome-ignore lint/suspicious/noExplicitAny: see above
export type AnyRedirectOperation = RedirectOperation<any, any>;
// biome-ignore lint/suspicious/noExplicitAny: see above
type AnyOperationContext = OperationContext<any, any, any>;
export type Operation = AnyJsonOperation | AnyRedirectOperation;

export function defineOperation<
  P extends ZodOrUndefined = undefined,
  Q extends ZodOrUndefined = undefined,
  B extends ZodOrUndefined = undefined,
  R extends z.ZodType = z.ZodType,
>(operation: JsonOperation<P, Q, B, R>): Operation;
export function defineOperation<P extends ZodOrUndefined = undefined, Q extends ZodOrUndefined = undefined>(
  operation: RedirectOperation<P, Q>,
): Operation;
export function defineOperation(operation: Operation): Operation {
  return operation;
}

/** The tenant's subtree of backend-sim, with the caller's context on every call. */
export class TenantBackend {
  constructor(
    private readonly client: Backend,
    private readonly request: FastifyRequest,
    /** The operation's backend-hop histogram (server/metrics), made once per route. */
    private readonly timing?: BackendCallContext['timing'],
  ) {}

  async call<S extends z.ZodType>(
    schema: S,
    call: TenantCall,
  ): Promise<{ data: z.output<S>; meta: Record<string, unknown> }> {
    return this.client.call(this.scoped(call), schema);
  }

  /**
   * A read whose `data` the handler answers untouched: stamped by backend-sim with `schema`, it comes back as the
   * backend's JSON text (RelayedJson) and is written into the envelope without being parsed (Backend.relay).
   */
  async relay<S extends z.ZodType>(
    schema: S,
    call: TenantCall,
  ): Promise<{ data: z.output<S> | RelayedJson; meta: Record<string, unknown> }> {
    return this.client.relay(this.scoped(call), schema);
  }

  private scoped(call: TenantCall): BackendCall {
    const auth = this.request.auth!;
    return {
      method: call.method,
      path: tenantPath(auth.tenantSlug, call.path),
      query: call.query,
      body: call.body,
      context: {
        chaveId: auth.chaveId,
        medicoFiltroId: auth.medicoId,
        requestId: this.request.id,
        timing: this.timing,
        ...backendIdempotency(this.request, call.method),
      },
    };
  }
}

type TenantCall = { method: OperationMethod; path: string; query?: BackendQuery; body?: unknown };

/** How many items a list's answer has when its `meta` has no total: the parsed array's length (a relayed list always has its total). */
export const totalOf = (result: { data: unknown; meta: Record<string, unknown> }): number =>
  Number(result.meta.total ?? (Array.isArray(result.data) ? result.data.length : 0));

/** `/pacientes/:id` with `{id: 7}` → `/pacientes/7`. */
export function fillPath(url: string, params: Record<string, unknown> | undefined): string {
  return url.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) => encodeURIComponent(String(params?.[name])));
}

/**
 * The default handler: the same operation on backend-sim, its `data` parsed by the response schema; a read's
 * `data` relayed (TenantBackend.relay). A write's is parsed: its `Location` is made from it.
 */
async function forwardToBackend(operation: AnyJsonOperation, ctx: AnyOperationContext): Promise<unknown> {
  const call = {
    method: operation.method,
    path: fillPath(operation.backendPath ?? operation.url, ctx.params),
    query: operation.method === 'GET' ? (ctx.query as BackendQuery | undefined) : undefined,
    body: ctx.body,
  };
  const result =
    operation.method === 'GET'
      ? await ctx.backend.relay(operation.response.data, call)
      : await ctx.backend.call(operation.response.data, call);
  if (operation.response.paginated) {
    const { limit, offset } = ctx.query as { limit: number; offset: number };
    addMeta(ctx.reply, paginationMeta(limit, offset, Number(result.meta.total ?? 0)));
  }
  // Parsed by this very schema in the client: the serializer need not parse it again.
  return result.data instanceof RelayedJson ? result.data : conforming(result.data);
}

export interface RegisteredOperation {
  /** Full path as registered, e.g. `/v1/pacientes/:id`. */
  path: string;
  operation: Operation;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every /v1 operation registered, in order (generated security suite, OpenAPI checks). */
    operations: RegisteredOperation[];
  }
  interface FastifyContextConfig {
    /** The /v1 operation this route was registered from (declared here, not in request-context.ts: see its floor). */
    operation?: Operation;
  }
}

function checkAccess(operation: Operation): void {
  const { scope, public: isPublic } = operation as { scope?: unknown; public?: unknown };
  if ((scope === undefined || scope === null) && isPublic !== true) {
    throw new Error(`${operation.method} ${operation.url}: a /v1 operation needs a scope, or public: true`);
  }
  if (scope !== undefined && isPublic !== undefined) {
    throw new Error(`${operation.method} ${operation.url}: give a scope or public: true, not both`);
  }
}

export interface OperationDeps {
  backend: Backend;
  presigner: Presigner;
  /** The gateway's metrics (server/metrics/gateway-metrics.ts): each operation's backend calls are timed into it. */
  metrics?: { backendTimer(operation: Operation): NonNullable<BackendCallContext['timing']> };
  /** Tracing on (server/tracing/gateway-tracing.ts): each backend call of a request gets a client span. */
  tracing?: { backendFor(request: FastifyRequest, backend: Backend): Backend };
}

/**
 * A control character in a path or query parameter (its value or its name) is a 400 naming it, on every
 * operation, after authentication and before its schema: the schemas would word it as a bad id or date,
 * or pass it on (a name search), and backend-sim's search cannot take a NUL (docs/decisions.md).
 */
const rejectControlCharacters = syncHook((request) => {
  const field = fieldWithControlCharacter(request.params) ?? fieldWithControlCharacter(request.query);
  if (field === null) return;
  throw invalidParam(field, `Parametro invalido: ${field}. ${CONTROL_CHARACTER_MESSAGE}`, {
    lista: [{ field, msg: CONTROL_CHARACTER_MESSAGE }],
  });
});

/** A handler's context; its backend is made when the handler first asks for it (ping never does). */
function operationContext(
  request: FastifyRequest,
  reply: FastifyReply,
  backendFor: (request: FastifyRequest) => TenantBackend,
  presigner: Presigner,
): AnyOperationContext {
  let backend: TenantBackend | undefined;
  return {
    params: request.params,
    query: request.query,
    body: request.body,
    auth: request.auth!,
    request,
    reply,
    get backend() {
      backend ??= backendFor(request);
      return backend;
    },
    presigner,
  };
}

/** A JSON operation's answer: its status, its Location when it has one, `data` to envelope. */
function answer(reply: FastifyReply, json: AnyJsonOperation, data: unknown): unknown {
  reply.status(json.response.status);
  if (json.response.location) reply.header('location', json.response.location(data));
  return data;
}

/** Registers each definition as a route of `app` (the /v1 scope). */
export function registerOperations(app: FastifyInstance, operations: Operation[], deps: OperationDeps): void {
  const { tracing } = deps;
  const backendOf = tracing
    ? (request: FastifyRequest) => tracing.backendFor(request, deps.backend)
    : () => deps.backend;
  for (const operation of operations) {
    checkAccess(operation);
    const redirect = operation.response.status === 302;
    const json = redirect ? null : (operation as AnyJsonOperation);
    const timing = deps.metrics?.backendTimer(operation);
    const backendFor = (request: FastifyRequest) => new TenantBackend(backendOf(request), request, timing);
    // Not async: an operation answering synchronously (ping) costs no promise, no await and no microtask
    // (decision S32-1); one that returns a promise is answered when it settles, as from an async handler.
    const handler = (request: FastifyRequest, reply: FastifyReply): unknown => {
      const ctx = operationContext(request, reply, backendFor, deps.presigner);
      if (redirect) {
        return (operation as AnyRedirectOperation)
          .handler(ctx)
          .then((location) =>
            reply.status(302).header('location', location).header('cache-control', 'no-store').send(),
          );
      }
      const data = json!.handler ? json!.handler(ctx) : forwardToBackend(json!, ctx);
      return data instanceof Promise ? data.then((d) => answer(reply, json!, d)) : answer(reply, json!, data);
    };
    app.route({
      method: operation.method,
      url: operation.url,
      bodyLimit: operation.bodyLimit ?? SMALL_BODY_LIMIT,
      preValidation: rejectControlCharacters,
      // Absent keys rather than undefined ones: Fastify warns about a declared-but-missing schema.
      schema: {
        ...(operation.params ? { params: operation.params } : {}),
        querystring: operation.query ?? emptyQuery,
        ...(operation.body ? { body: operation.body } : {}),
        ...(json ? { response: { [json.response.status]: json.response.data } } : {}),
      },
      config: {
        scope: operation.public ? null : operation.scope,
        idempotent: operation.idempotent ?? false,
        cacheControl: CACHE_POLICIES[operation.cache ?? 'no-store'],
        operation,
      },
      handler,
    });
  }
}

/**
 * Guard for the /v1 subtree: every route must come from an operation definition (so it has a
 * scope or an explicit public marker, a body limit and its security cases). The CORS preflight
 * is the one framework route allowed. Registering anything else fails at startup.
 */
export function guardV1Routes(app: FastifyInstance, registry: RegisteredOperation[]): void {
  app.addHook('onRoute', (route) => {
    const config = route.config as { operation?: Operation; corsPreflight?: boolean } | undefined;
    if (config?.corsPreflight && route.method === 'OPTIONS') return;
    // Fastify's automatic HEAD twin of a GET operation carries the same config.
    if (route.method === 'HEAD' && config?.operation) return;
    if (!config?.operation) {
      throw new Error(
        `${String(route.method)} ${route.url}: /v1 routes must be registered as operations (server/routes/operation.ts), with a scope or public: true`,
      );
    }
    checkAccess(config.operation);
    registry.push({ path: route.url, operation: config.operation });
  });
}
