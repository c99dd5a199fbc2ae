import fp from 'fastify-plugin';
import { syncHook, syncPayloadHook } from './sync-hooks.ts';
import FindMyWay from 'find-my-way';
import type { FastifyError, FastifyInstance, FastifyRequest, HTTPMethods } from 'fastify';
import { ApiError, invalidParam } from '../errors.ts';
import { BackendContractError, backendUnavailable } from '../backend/client.ts';
import { bodyTooLarge, MAX_BODY_BYTES } from './body.ts';
import { isStorageFailure } from '../db/storage-failure.ts';
import { isEnvelope, sendError, successEnvelope } from './envelope.ts';
import { RouteSuggestions } from './route-suggestions.ts';
import './request-context.ts';
import { leaves } from './zod-leaves.ts';

const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);
const KNOWN_METHODS: HTTPMethods[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];

export interface EnvelopePluginOptions {
  release: string;
  /** Paths below these prefixes are not JSON API (console assets). */
  passthroughPrefixes: string[];
  /**
   * The last word on a refusal before it is written (the per-address limiter of unauthenticated
   * refusals turns one into a 429 there): receives the error about to be sent, returns the one to send.
   */
  gateRefusal?: (request: FastifyRequest, error: ApiError) => ApiError;
  /**
   * Development mode: a 404 for an unknown /v1 path names the closest operations in `details`. Production keeps
   * the spec's generic 404, `details` null.
   */
  suggestRoutes?: boolean;
}

/** `details` of a 404 for an unknown /v1 path in development mode (docs/decisions.md § Issue 29: api). */
function unknownPathDetails(suggestions: string[]): Record<string, unknown> {
  return {
    sugestoes: suggestions,
    ajuda:
      (suggestions.length > 0
        ? 'Operacoes com o caminho mais proximo deste. '
        : 'Nenhuma operacao tem um caminho proximo deste. ') +
      'A lista completa esta em /docs e /openapi.json. Estes detalhes so aparecem em APP_ENV=development.',
  };
}

/**
 * Envelope, standard headers, error mapping, 404 and 405 for the whole gateway.
 * Registered first so that every route and every failure goes through it.
 */
export default fp<EnvelopePluginOptions>(
  async function envelopePlugin(app: FastifyInstance, options) {
    // A second router holding only paths, to tell 405 (known path, other verb) from 404.
    const routeIndex = FindMyWay();
    // The verbs of each path without parameters: such a path is an endpoint of its own, even where a route
    // with a parameter matches it for another verb (PATCH /v1/pacientes/unificar is not /v1/pacientes/:id).
    const staticPaths = new Map<string, string[]>();
    // The /v1 operations a 404 may suggest (development mode), split once on the first unknown path.
    const v1Routes: Array<{ method: string; url: string }> = [];
    let suggestions: RouteSuggestions | null = null;
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      for (const method of methods) {
        if (method === 'HEAD' || route.url.endsWith('*')) continue;
        if (options.suggestRoutes && route.url.startsWith('/v1/')) v1Routes.push({ method, url: route.url });
        if (!route.url.includes(':'))
          staticPaths.set(route.url, [...new Set([...(staticPaths.get(route.url) ?? []), method])]);
        try {
          routeIndex.on(method as FindMyWay.HTTPMethod, route.url, () => undefined);
        } catch {
          // Same method+path registered twice in another scope: already indexed.
        }
      }
    });

    app.decorateRequest('startedAt', 0);
    app.decorateRequest('rawBody', null as unknown as Buffer);
    app.decorateRequest('unsupportedContentType', null);
    app.decorateRequest('auth', null);
    app.decorateRequest('presentedKey', null);
    app.decorateRequest('errorCode', null);
    app.decorateRequest('auditDetail', null);
    app.decorateRequest('idempotentOperation', null);
    app.decorateReply('extraMeta', null);

    app.addHook(
      'onRequest',
      syncHook((request, reply) => {
        request.startedAt = performance.now();
        request.rawBody = EMPTY;
        reply.header('x-api-version', 'v1');
        reply.header('x-api-release', options.release);
        reply.header('x-content-type-options', 'nosniff');
        reply.header('cache-control', request.routeOptions.config?.cacheControl ?? 'no-store');
        if (WRITE_METHODS.has(request.method)) reply.header('x-request-id', request.id);
        const fixed = request.routeOptions.url?.includes(':')
          ? staticPaths.get(request.url.split('?', 1)[0])
          : undefined;
        if (fixed) {
          throw new ApiError(
            'METHOD_NOT_ALLOWED',
            `Metodo ${request.method} nao permitido neste endpoint.`,
            { metodos_aceitos: fixed },
            { headers: { allow: fixed.join(', ') } },
          );
        }
      }),
    );

    app.addHook(
      'preSerialization',
      syncPayloadHook((request, reply, payload: unknown) => {
        if (isEnvelope(payload) || isPassthrough(request.url, options.passthroughPrefixes)) return payload;
        return successEnvelope(request, reply, payload);
      }),
    );

    app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
      const apiError =
        (error as FastifyError).code === 'FST_ERR_CTP_BODY_TOO_LARGE'
          ? bodyTooLarge(request.routeOptions.bodyLimit ?? MAX_BODY_BYTES)
          : toApiError(error, request.routeOptions.schema as RouteSchemas | undefined);
      if (apiError.status >= 500 && !(error instanceof ApiError)) {
        // Full detail goes to the server log only; the client sees a generic message.
        request.log.error({ err: error }, 'internal error');
      }
      return sendError(request, reply, options.gateRefusal ? options.gateRefusal(request, apiError) : apiError);
    });

    app.setNotFoundHandler(async (request, reply) => {
      const path = request.url.split('?', 1)[0];
      const allowed =
        staticPaths.get(path) ??
        KNOWN_METHODS.filter((m) => m !== request.method && routeIndex.find(m as FindMyWay.HTTPMethod, path));
      if (allowed.length > 0) {
        reply.header('allow', allowed.join(', '));
        const notAllowed = new ApiError(
          'METHOD_NOT_ALLOWED',
          `Metodo ${request.method} nao permitido neste endpoint.`,
          {
            metodos_aceitos: allowed,
          },
        );
        return sendError(request, reply, options.gateRefusal ? options.gateRefusal(request, notAllowed) : notAllowed);
      }
      const hint = options.suggestRoutes && path.startsWith('/v1/');
      if (hint) suggestions ??= new RouteSuggestions(v1Routes);
      const notFound = new ApiError(
        'RES_NOT_FOUND',
        'Endpoint nao encontrado.',
        hint && suggestions ? unknownPathDetails(suggestions.suggest(request.method, path)) : null,
      );
      return sendError(request, reply, options.gateRefusal ? options.gateRefusal(request, notFound) : notFound);
    });
  },
  { name: 'envelope' },
);

const EMPTY = Buffer.alloc(0);

function isPassthrough(url: string, prefixes: string[]): boolean {
  return prefixes.some((prefix) => url.startsWith(prefix));
}

/** The route's zod schemas by validation context (`body`, `querystring`, `params`…): they name the accepted fields. */
type RouteSchemas = Record<string, unknown>;

/** Maps anything thrown to the spec's codes. Only true internal faults become 500. */
export function toApiError(error: unknown, schemas?: RouteSchemas): ApiError {
  if (error instanceof ApiError) return error;
  // A backend answer outside the contract (logged and counted): to the integrator a backend failure like any other,
  // with its Retry-After; the cause is fixed on the appliance's side, and a client waits rather than hammers.
  if (error instanceof BackendContractError) return backendUnavailable();
  // gateway.db cannot take a write (disk full, I/O error): nothing was done; a retry may succeed later.
  if (isStorageFailure(error)) {
    return new ApiError(
      'SERVICE_UNAVAILABLE',
      'Armazenamento do gateway indisponivel: nada foi executado. Tente novamente.',
      null,
      {
        headers: { 'retry-after': '30' },
      },
    );
  }
  const e = error as FastifyError & { validation?: ValidationIssue[]; validationContext?: string };
  if (e.validation)
    return fromValidation(
      e.validation,
      e.validationContext,
      e.validationContext ? schemas?.[e.validationContext] : undefined,
    );
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return invalidParam('Content-Type', 'Content-Type deve ser application/json.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return invalidParam('body', 'Corpo JSON invalido.');
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_ASYNC_CONSTRAINT':
      return invalidParam('path', 'URL invalida.');
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return invalidParam('request', 'Requisicao invalida.');
  }
  return new ApiError('INTERNAL_ERROR', 'Erro interno do gateway. Informe o request_id ao suporte.');
}

interface ZodIssueParams {
  keys?: string[];
  values?: unknown[];
  options?: unknown[];
}

interface ValidationIssue {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: ZodIssueParams;
}

interface ListaItem {
  field: string;
  msg: string;
  valores_aceitos?: unknown[];
  /** An unknown query parameter or body field: the names this place accepts (issue 21 § 4). */
  campos_aceitos?: string[];
}

function fromValidation(issues: ValidationIssue[], context?: string, schema?: unknown): ApiError {
  const lista = issues.flatMap((issue): ListaItem[] => {
    // fastify-type-provider-zod puts the zod issue's own fields (keys, values…) on `params`.
    const inner = issue.params;
    const path = (issue.instancePath ?? '').split('/').filter(Boolean);
    // A strict object lists every unknown key in one issue: one item per key, each naming its field.
    if (issue.keyword === 'unrecognized_keys' && inner?.keys?.length) {
      return inner.keys.map(
        (key) =>
          unknownField([...path, key], context, schema) ?? {
            field: [...path, key].join('.'),
            msg: stripAccents(issue.message ?? 'Valor invalido.'),
          },
      );
    }
    let field = path.join('.');
    if (!field) field = context === 'body' ? 'body' : (context ?? 'request');
    const msg = stripAccents(issue.message ?? 'Valor invalido.');
    // An object closed by a catchall refuses each unknown key at the key's own path; a blocked field keeps its own reason.
    const unknown = path.length > 0 && !msg.startsWith('Campo bloqueado') ? unknownField(path, context, schema) : null;
    if (unknown) return [unknown];
    const accepted = inner?.values ?? inner?.options;
    return [{ field, msg, ...(Array.isArray(accepted) ? { valores_aceitos: accepted } : {}) }];
  });
  const first = lista[0];
  const message =
    lista.length === 1
      ? `Parametro invalido: ${first.field}. ${first.msg}`
      : `${lista.length} campos precisam de atencao.`;
  return new ApiError('VAL_INVALID_PARAM', message, { field: first.field, lista });
}

/**
 * When `path` names a key its object does not declare, the item saying so with the names it accepts (and the
 * nearest one when the key looks like a typo of it); null when the key is declared or the schema is unknown.
 */
function unknownField(path: string[], context: string | undefined, schema: unknown): ListaItem | null {
  if (schema === undefined) return null;
  const key = path[path.length - 1];
  const parent = path.slice(0, -1);
  const shapes = schemasAt(schema, parent).flatMap(objectShapes);
  if (shapes.length === 0 || shapes.some((shape) => Object.hasOwn(shape, key))) return null;
  const accepted = [
    ...new Set(shapes.flatMap((shape) => Object.keys(shape).filter((name) => !refusesEveryValue(shape[name])))),
  ];
  const where = parent.length > 0 ? ` em ${parent.join('.')}` : '';
  const query = context === 'querystring';
  const nearest = nearestName(key, accepted);
  const msg =
    accepted.length === 0
      ? query
        ? 'Este endpoint nao aceita parametros de query.'
        : `Nenhum campo e aceito${where || ' neste corpo'}.`
      : `${query ? 'Parametro de query' : 'Campo'} nao aceito neste endpoint. Aceitos${where}: ${accepted.join(', ')}.` +
        (nearest ? ` Voce quis dizer "${nearest}"?` : '');
  return { field: path.join('.'), msg: stripAccents(msg), campos_aceitos: accepted };
}

const objectShapes = (schema: unknown): Array<Record<string, unknown>> =>
  leaves(schema).flatMap((def) => (def.type === 'object' && def.shape ? [def.shape] : []));

/** The schemas of the value at `path` (object keys, and array items for numeric segments). */
function schemasAt(schema: unknown, path: string[]): unknown[] {
  let current: unknown[] = [schema];
  for (const segment of path) {
    current = current.flatMap((s) =>
      leaves(s).flatMap((def) => {
        if (def.type === 'object' && def.shape && Object.hasOwn(def.shape, segment)) return [def.shape[segment]];
        if (def.type === 'array' && /^\d+$/.test(segment)) return [def.element];
        return [];
      }),
    );
  }
  return current;
}

/** A declared field no value passes (`z.never()`): a blocked field, not one to offer. */
const refusesEveryValue = (schema: unknown): boolean => {
  const defs = leaves(schema);
  return defs.length > 0 && defs.every((def) => def.type === 'never');
};

/** The accepted name a typo most likely meant: case aside, at most 2 edits away (1 for short names). */
function nearestName(name: string, accepted: string[]): string | null {
  const wanted = name.toLowerCase();
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const candidate of accepted) {
    const distance = editDistance(wanted, candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best !== null && bestDistance <= (wanted.length <= 4 ? 1 : 2) ? best : null;
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2 || a.length > 64 || b.length > 64) return Infinity;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length];
}

/** The spec's messages are Portuguese without special accents. */
export const stripAccents = (text: string): string => text.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
