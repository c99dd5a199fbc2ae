import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { invalidParam } from '../errors.ts';
import { newRequestId, sendError } from './envelope.ts';

/**
 * Requests Fastify refuses before routing (an undecodable URL) still get the envelope and headers.
 */
export function frameworkErrorHandler(release: string) {
  return (_error: Error, request: FastifyRequest, reply: FastifyReply): void => {
    request.startedAt = performance.now();
    reply.header('x-api-version', 'v1');
    reply.header('x-api-release', release);
    reply.header('x-content-type-options', 'nosniff');
    void sendError(request, reply, invalidParam('path', 'URL invalida: caminho ou query string mal codificados.'));
  };
}

/**
 * Requests node's HTTP parser refuses (headers too large, malformed request line) never reach
 * Fastify: answer them on the socket, in the envelope, before closing it.
 */
export function clientErrorHandler(release: string) {
  return (error: Error & { code?: string }, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const [status, reason, field, message] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'headers', 'Cabecalhos da requisicao excedem o tamanho maximo.']
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'Request Timeout', 'request', 'A requisicao nao chegou completa a tempo.']
          : [400, 'Bad Request', 'request', 'Requisicao HTTP malformada.'];
    const body = JSON.stringify({
      data: null,
      meta: { request_id: newRequestId(), duracao_ms: 0 },
      error: { code: 'VAL_INVALID_PARAM', message, details: { field } },
    });
    if (socket.writable) {
      socket.write(
        `HTTP/1.1 ${status} ${reason}\r\n` +
          'Content-Type: application/json; charset=utf-8\r\n' +
          `Content-Length: ${Buffer.byteLength(body)}\r\n` +
          `X-Api-Version: v1\r\nX-Api-Release: ${release}\r\n` +
          'X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n' +
          body,
      );
    }
    socket.destroy();
  };
}
