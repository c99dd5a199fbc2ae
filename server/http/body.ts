import sjson from 'secure-json-parse';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, invalidParam } from '../errors.ts';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from './json-depth.ts';
import './request-context.ts';

/**
 * Ceiling above every route's own limit (server/routes/operation.ts sets one per route, enforced
 * while the body arrives); refused from Content-Length before authentication.
 */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

export const bodyTooLarge = (limit: number): ApiError =>
  new ApiError(
    'VAL_INVALID_PARAM',
    `Corpo excede o limite de ${limit} bytes.`,
    { field: 'body', limite_bytes: limit },
    { status: 413 },
  );

/**
 * Bodies are kept as raw bytes at parse time: the signature covers the exact bytes received,
 * so JSON is parsed only after authentication (see `parseJsonBody`).
 */
export function registerRawBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES },
    (request, body, done) => {
      request.rawBody = body as Buffer;
      done(null, undefined);
    },
  );
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES }, (request, body, done) => {
    request.rawBody = body as Buffer;
    const type = request.headers['content-type'];
    // A body without Content-Type, or with another type, is refused after authentication.
    if ((body as Buffer).length > 0 || type) request.unsupportedContentType = type ?? '';
    done(null, undefined);
  });
}

/** Parses `request.rawBody` into `request.body`: 400 on bad type or bad JSON. */
export function parseJsonBody(request: FastifyRequest): void {
  const raw = request.rawBody;
  if (request.unsupportedContentType !== null) {
    throw invalidParam('Content-Type', 'Content-Type deve ser application/json.', {
      recebido: request.unsupportedContentType,
    });
  }
  const charset = charsetOf(request.headers['content-type']);
  if (charset !== null && charset !== 'utf-8' && charset !== 'utf8') {
    throw invalidParam('Content-Type', 'Apenas JSON em UTF-8 e aceito (charset=utf-8 ou nenhum).', {
      recebido: request.headers['content-type'],
    });
  }
  if (raw.length === 0) return;
  if (jsonDepthExceeds(raw)) {
    throw invalidParam('body', `JSON aninhado alem de ${MAX_JSON_DEPTH} niveis.`, {
      profundidade_maxima: MAX_JSON_DEPTH,
    });
  }
  try {
    request.body = sjson.parse(raw.toString('utf8'), null, { protoAction: 'remove', constructorAction: 'remove' });
  } catch {
    throw invalidParam('body', 'Corpo JSON invalido.');
  }
}

/** The `charset` parameter of a Content-Type, lower case and unquoted; null when absent. */
export function charsetOf(contentType: string | undefined): string | null {
  const match = /;\s*charset\s*=\s*("?)([^";\s]*)\1/i.exec(contentType ?? '');
  return match ? match[2].toLowerCase() : null;
}
