import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiError } from '../errors.ts';

const ENVELOPED = Symbol('enveloped');

export interface Envelope {
  data: unknown;
  meta: Record<string, unknown>;
  error: { code: string; message: string; details: Record<string, unknown> | null } | null;
  [ENVELOPED]?: true;
}

/**
 * 24 hex chars: the time in milliseconds (12) then 48 random bits from a v4 UUID (node batches
 * its entropy). Time first keeps the audit log's request_id index append-only, which makes each
 * audit insert less than half as costly as with fully random ids.
 */
export const newRequestId = (): string => {
  const uuid = randomUUID();
  return Date.now().toString(16).padStart(12, '0') + uuid.slice(0, 8) + uuid.slice(9, 13);
};

export function isEnvelope(payload: unknown): payload is Envelope {
  return typeof payload === 'object' && payload !== null && (payload as Envelope)[ENVELOPED] === true;
}

/** `meta`: the request's id and duration, then what the handler added (keys already there keep their place). */
function metaOf(request: FastifyRequest, reply: FastifyReply): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    request_id: request.id,
    duracao_ms: Math.max(0, Math.round(performance.now() - request.startedAt)),
  };
  // One object, not two spread into a third: the same keys in the same order.
  return reply.extraMeta ? Object.assign(meta, reply.extraMeta) : meta;
}

/** The one envelope writer: success bodies and error bodies both come from here. */
export function successEnvelope(request: FastifyRequest, reply: FastifyReply, data: unknown): Envelope {
  return { data, meta: metaOf(request, reply), error: null, [ENVELOPED]: true };
}

export function errorEnvelope(request: FastifyRequest, reply: FastifyReply, error: ApiError): Envelope {
  return {
    data: null,
    meta: metaOf(request, reply),
    error: { code: error.code, message: error.message, details: error.details },
    [ENVELOPED]: true,
  };
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: ApiError): FastifyReply {
  request.errorCode = error.code;
  // Errors are never cacheable, even on routes whose successes are (config, catalogs).
  reply.header('cache-control', 'no-store');
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  // Refused before its body arrived (no key, too large): close instead of draining the rest of it. A request
  // without a body keeps its connection (an unsigned GET flood would otherwise cost a TCP handshake per request).
  if (!request.raw.complete && announcesBody(request)) reply.header('connection', 'close');
  return reply
    .status(error.status)
    .type('application/json; charset=utf-8')
    .send(errorEnvelope(request, reply, error));
}

function announcesBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

export function addMeta(reply: FastifyReply, meta: Record<string, unknown>): void {
  reply.extraMeta = { ...reply.extraMeta, ...meta };
}

/** Re-emits a stored envelope (idempotent replay) with this request's id and timing. */
export function replayEnvelope(request: FastifyRequest, reply: FastifyReply, storedBody: string): Envelope {
  const stored = JSON.parse(storedBody) as Envelope;
  return {
    data: stored.data,
    meta: { ...stored.meta, ...metaOf(request, reply), request_id_original: stored.meta?.request_id },
    error: stored.error,
    [ENVELOPED]: true,
  };
}
