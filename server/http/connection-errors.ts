import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { invalidParam, type ApiError } from '../errors.ts';
import { newRequestId, sendError } from './envelope.ts';
import type { AuditRecord } from '../audit/audit-writer.ts';
import { redactQuery } from '../audit/journal-entries.ts';

/** Where refusals made outside Fastify's routing are journaled (null: audit off). */
export interface RefusalJournal {
  entryOf(request: FastifyRequest, status: number, url: string, payload: string): AuditRecord;
  /** Resolves once committed; the refusal is answered either way (it is already a refusal). */
  write(record: AuditRecord): Promise<void>;
}

/**
 * The last word on a refusal of a request that did not authenticate (server/app.ts): the per-address
 * limiter turns it into a 429 with Retry-After once the address has spent its quota.
 */
export type RefusalGate = (request: FastifyRequest, error: ApiError) => ApiError;

/**
 * Requests Fastify refuses before routing (an undecodable URL) still get the envelope and headers,
 * and their audit entry (no route hook runs for them) before the answer leaves. They are refusals of
 * requests that did not authenticate: charged to their address like any other (`gate`).
 */
export function frameworkErrorHandler(release: string, journal: RefusalJournal | null, gate?: RefusalGate) {
  return (_error: Error, request: FastifyRequest, reply: FastifyReply): void => {
    request.startedAt = performance.now();
    reply.header('x-api-version', 'v1');
    reply.header('x-api-release', release);
    reply.header('x-content-type-options', 'nosniff');
    // No route hook ran (the write's X-Request-Id comes from one): the refusal names its id like any write's answer.
    reply.header('x-request-id', request.id);
    const refusal = invalidParam('path', 'URL invalida: caminho ou query string mal codificados.');
    const error = gate ? gate(request, refusal) : refusal;
    request.errorCode = error.code;
    const answer = () => void sendError(request, reply, error);
    // The journal's answer: the envelope sendError is about to write (its timing aside).
    const payload = JSON.stringify({
      data: null,
      meta: { request_id: request.id },
      error: { code: error.code, message: error.message, details: error.details },
    });
    if (!journal) {
      answer();
      return;
    }
    journal.write(journal.entryOf(request, error.status, request.raw.url ?? '?', payload)).then(answer, answer);
  };
}

/**
 * Requests node's HTTP parser refuses (headers too large, malformed request line) never reach
 * Fastify: answer them on the socket, in the envelope, before closing it, once their audit entry
 * (with what is known: the request line if it could be read, the client address) is committed.
 * They are charged to their client address like any unauthenticated refusal (`overQuota`): past the
 * quota the answer is a 429 with Retry-After instead, as long as the socket still takes it (a client
 * that already hung up gets nothing, and its refusal is journaled all the same).
 */
export function clientErrorHandler(
  release: string,
  journal: RefusalJournal | null,
  overQuota?: (address: string) => ApiError | null,
) {
  return (error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const limited = overQuota?.(socket.remoteAddress ?? '') ?? null;
    const [status, reason, code, message, details, headers]: [
      number,
      string,
      string,
      string,
      Record<string, unknown>,
      string,
    ] = limited
      ? [
          limited.status,
          'Too Many Requests',
          limited.code,
          limited.message,
          limited.details ?? {},
          headerLines(limited.headers),
        ]
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [
            431,
            'Request Header Fields Too Large',
            'VAL_INVALID_PARAM',
            'Cabecalhos da requisicao excedem o tamanho maximo.',
            { field: 'headers' },
            '',
          ]
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [
              408,
              'Request Timeout',
              'VAL_INVALID_PARAM',
              'A requisicao nao chegou completa a tempo.',
              { field: 'request' },
              '',
            ]
          : [400, 'Bad Request', 'VAL_INVALID_PARAM', 'Requisicao HTTP malformada.', { field: 'request' }, ''];
    const requestId = newRequestId();
    const body = JSON.stringify({
      data: null,
      meta: { request_id: requestId, duracao_ms: 0 },
      error: { code, message, details },
    });
    const line = requestLine(Buffer.isBuffer(error.rawPacket) ? error.rawPacket : undefined);
    const answer = () => {
      if (socket.writable) {
        // The headers every API answer carries (those Node and the envelope plugin add elsewhere), written by hand.
        socket.write(
          `HTTP/1.1 ${status} ${reason}\r\n` +
            `Date: ${new Date().toUTCString()}\r\n` +
            'Content-Type: application/json; charset=utf-8\r\n' +
            `Content-Length: ${Buffer.byteLength(body)}\r\n` +
            `X-Api-Version: v1\r\nX-Api-Release: ${release}\r\nX-Request-Id: ${requestId}\r\n${headers}` +
            'X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n' +
            body,
        );
      }
      socket.destroy();
    };
    if (!journal) {
      answer();
      return;
    }
    journal
      .write({
        request_id: requestId,
        ts: new Date().toISOString(),
        source: 'api',
        tenant_id: null,
        tenant_slug: null,
        chave_id: null,
        operator_id: null,
        method: line.method,
        path: line.path,
        status,
        error_code: code,
        duracao_ms: 0,
        client_ip: socket.remoteAddress ?? '',
        body: null,
        detail: JSON.stringify({ recusa: 'parser_http', causa: error.code ?? 'desconhecida' }),
        error_message: message,
        response_body: body,
        request_headers: null,
        journal_class: 'unattributed',
      })
      .then(answer, answer);
  };
}

/** `Name: value` lines of an error's headers (Retry-After), each ending in CRLF. */
function headerLines(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(
      ([name, value]) =>
        `${name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase())}: ${value}\r\n`,
    )
    .join('');
}

/** Method and target of a raw request line, when it can be read; the query is redacted like any audited URL. */
function requestLine(raw: Buffer | undefined): { method: string; path: string } {
  const first = raw?.subarray(0, 2048).toString('latin1').split('\r\n', 1)[0] ?? '';
  const match = /^([A-Z]{1,16}) (\S{1,2000}) HTTP\/\d\.\d$/.exec(first);
  return match ? { method: match[1], path: redactQuery(match[2]) } : { method: '?', path: '?' };
}
