import fp from 'fastify-plugin';
import { syncHook, syncPayloadHook } from './sync-hooks.ts';
import FindMyWay from 'find-my-way';
import type { FastifyError, FastifyInstance, FastifyRequest, HTTPMethods } from 'fastify';
import { ApiError, invalidParam } from '../errors.ts';
import { BackendContractError } from '../backend/client.ts';
import { bodyTooLarge, MAX_BODY_BYTES } from './body.ts';
import { isStorageFailure } from '../db/storage-failure.ts';
import { isEnvelope, sendError, successEnvelope } from './envelope.ts';
import './request-context.ts';

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
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      for (const method of methods) {
        if (method === 'HEAD' || route.url.endsWith('*')) continue;
        if (!route.url.includes(':')) staticPaths.set(route.url, [...new Set([...(staticPaths.get(route.url) ?? []), method])]);
        try {
          routeIndex.on(method as any, route.url, () => undefined);
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

    app.addHook('onRequest', syncHook((request, reply) => {
      request.startedAt = performance.now();
      request.rawBody = EMPTY;
      reply.header('x-api-version', 'v1');
      reply.header('x-api-release', options.release);
      reply.header('x-content-type-options', 'nosniff');
      reply.header('cache-control', request.routeOptions.config?.cacheControl ?? 'no-store');
      if (WRITE_METHODS.has(request.method)) reply.header('x-request-id', request.id);
      const fixed = request.routeOptions.url?.includes(':') ? staticPaths.get(request.url.split('?', 1)[0]) : undefined;
      if (fixed) {
        throw new ApiError('METHOD_NOT_ALLOWED', `Metodo ${request.method} nao permitido neste endpoint.`, { metodos_aceitos: fixed }, { headers: { allow: fixed.join(', ') } });
      }
    }));

    app.addHook('preSerialization', syncPayloadHook((request, reply, payload: unknown) => {
      if (isEnvelope(payload) || isPassthrough(request.url, options.passthroughPrefixes)) return payload;
      return successEnvelope(request, reply, payload);
    }));

    app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
      const apiError =
        (error as FastifyError).code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? bodyTooLarge(request.routeOptions.bodyLimit ?? MAX_BODY_BYTES) : toApiError(error);
      if (apiError.status >= 500 && !(error instanceof ApiError)) {
        // Full detail goes to the server log only; the client sees a generic message.
        request.log.error({ err: error }, 'internal error');
      }
      return sendError(request, reply, options.gateRefusal ? options.gateRefusal(request, apiError) : apiError);
    });

    app.setNotFoundHandler(async (request, reply) => {
      const path = request.url.split('?', 1)[0];
      const allowed = staticPaths.get(path) ?? KNOWN_METHODS.filter((m) => m !== request.method && routeIndex.find(m as any, path));
      if (allowed.length > 0) {
        reply.header('allow', allowed.join(', '));
        const notAllowed = new ApiError('METHOD_NOT_ALLOWED', `Metodo ${request.method} nao permitido neste endpoint.`, {
          metodos_aceitos: allowed,
        });
        return sendError(request, reply, options.gateRefusal ? options.gateRefusal(request, notAllowed) : notAllowed);
      }
      const notFound = new ApiError('RES_NOT_FOUND', 'Endpoint nao encontrado.');
      return sendError(request, reply, options.gateRefusal ? options.gateRefusal(request, notFound) : notFound);
    });
  },
  { name: 'envelope' },
);

const EMPTY = Buffer.alloc(0);

function isPassthrough(url: string, prefixes: string[]): boolean {
  return prefixes.some((prefix) => url.startsWith(prefix));
}

/** Maps anything thrown to the spec's codes. Only true internal faults become 500. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof BackendContractError) return new ApiError('SERVICE_UNAVAILABLE', 'Servico temporariamente indisponivel. Tente novamente.');
  // gateway.db cannot take a write (disk full, I/O error): nothing was done; a retry may succeed later.
  if (isStorageFailure(error)) {
    return new ApiError('SERVICE_UNAVAILABLE', 'Armazenamento do gateway indisponivel: nada foi executado. Tente novamente.', null, {
      headers: { 'retry-after': '30' },
    });
  }
  const e = error as FastifyError & { validation?: ValidationIssue[]; validationContext?: string };
  if (e.validation) return fromValidation(e.validation, e.validationContext);
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

function fromValidation(issues: ValidationIssue[], context?: string): ApiError {
  const lista = issues.map((issue) => {
    // fastify-type-provider-zod puts the zod issue's own fields (keys, values…) on `params`.
    const inner = issue.params;
    let field = (issue.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
    if (issue.keyword === 'unrecognized_keys' && inner?.keys?.length) {
      field = field ? `${field}.${inner.keys[0]}` : inner.keys[0];
    }
    if (!field) field = context === 'body' ? 'body' : (context ?? 'request');
    const accepted = inner?.values ?? inner?.options;
    return {
      field,
      msg: stripAccents(issue.message ?? 'Valor invalido.'),
      ...(Array.isArray(accepted) ? { valores_aceitos: accepted } : {}),
    };
  });
  const first = lista[0];
  const message = lista.length === 1 ? `Parametro invalido: ${first.field}. ${first.msg}` : `${lista.length} campos precisam de atencao.`;
  return new ApiError('VAL_INVALID_PARAM', message, { field: first.field, lista });
}

/** The spec's messages are Portuguese without special accents. */
export const stripAccents = (text: string): string => text.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
