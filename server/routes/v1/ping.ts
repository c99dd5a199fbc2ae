import { z } from 'zod';
import { keySet, PING_REDACTED_KEYS, redact } from '../../http/redact.ts';
import { defineOperation } from '../operation.ts';
import { RelayedJson } from '../../http/schemas.ts';
import type { AuthContext } from '../../http/request-context.ts';
import { maskApiKey } from '../../keys/keys.service.ts';
import type { FastifyRequest } from 'fastify';

export const PING_MAX_BODY_BYTES = 2048;
const PING_KEYS = keySet(PING_REDACTED_KEYS);

export const pingData = z.object({
  ok: z.literal(true),
  service: z.string(),
  version: z.literal('v1'),
  server_time: z.string(),
  backend_called: z.literal(false),
  auth: z.object({
    api_key_masked: z.string(),
    chave_id: z.number().int(),
    clinica: z.string(),
    medico_id: z.number().int(),
    escopos: z.array(z.string()),
  }),
  echo: z.object({ method: z.enum(['GET', 'POST']), body: z.unknown() }),
});

/**
 * The ping's `data` as JSON text, written field by field in `pingData`'s order from typed values (a serializer
 * compiled by hand for this one schema): it conforms by construction and is spliced into the envelope as it is,
 * without an object per field, a generic JSON.stringify walk or a schema check per request (decision S32-2). The
 * same bytes as JSON.stringify of the object (test/server/routes/v1/ping-json.test.ts).
 */
export function pongJson(auth: PingAuth, serverTime: string, method: 'GET' | 'POST', body: unknown): string {
  const echoed = body === undefined ? '' : `,"body":${JSON.stringify(body)}`;
  return (
    `{"ok":true,"service":"clinic-exams-gateway","version":"v1","server_time":${JSON.stringify(serverTime)},` +
    `"backend_called":false,"auth":{"api_key_masked":${JSON.stringify(maskApiKey(auth.apiKey))},` +
    `"chave_id":${JSON.stringify(auth.chaveId)},"clinica":${JSON.stringify(auth.tenantSlug)},` +
    `"medico_id":${JSON.stringify(auth.medicoId)},"escopos":${JSON.stringify(auth.scopes)}},` +
    `"echo":{"method":${JSON.stringify(method)}${echoed}}}`
  );
}

/** What the ping echoes of the caller's key. */
export type PingAuth = Pick<AuthContext, 'apiKey' | 'chaveId' | 'tenantSlug' | 'medicoId' | 'scopes'>;

function pong(request: FastifyRequest, method: 'GET' | 'POST', body: unknown): RelayedJson {
  // Appliance time: real time plus the development-mode clock offset (server/clock.ts).
  const serverTime = new Date(request.server.applianceClock.now()).toISOString();
  return new RelayedJson(pongJson(request.auth!, serverTime, method, body));
}

const pingOperation = (method: 'GET' | 'POST') =>
  defineOperation({
    method,
    url: '/ping',
    summary:
      method === 'GET'
        ? 'Verifica a chave e o relogio, sem chamar o backend'
        : 'Ecoa um corpo JSON de ate 2 KB, apos redacao',
    tags: ['Saude'],
    public: true,
    offline: true,
    bodyLimit: PING_MAX_BODY_BYTES,
    response: { status: 200, data: pingData },
    // An empty body is echoed as null; any JSON value is accepted and echoed after redaction.
    handler: ({ request, body }) =>
      pong(request, method, method === 'GET' || body === undefined ? null : redact(body, PING_KEYS)),
    errors: [],
    example: method === 'POST' ? { body: { teste: 'ola', senha: 'nao aparece no eco' } } : undefined,
  });

/** Health: any valid key, never calls the backend. */
export const pingOperations = [pingOperation('GET'), pingOperation('POST')];
