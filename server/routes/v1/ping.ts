import { z } from 'zod';
import { keySet, PING_REDACTED_KEYS, redact } from '../../http/redact.ts';
import { defineOperation } from '../operation.ts';
import { conforming } from '../../http/schemas.ts';
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

/** Built field by field from typed values, so it conforms to `pingData` by construction (not parsed again). */
function pong(request: FastifyRequest, method: 'GET' | 'POST', body: unknown): z.infer<typeof pingData> {
  const auth = request.auth!;
  return conforming({
    ok: true,
    service: 'clinic-exams-gateway',
    version: 'v1',
    // Appliance time: real time plus the development-mode clock offset (server/clock.ts).
    server_time: new Date(request.server.applianceClock.now()).toISOString(),
    backend_called: false,
    auth: {
      api_key_masked: maskApiKey(auth.apiKey),
      chave_id: auth.chaveId,
      clinica: auth.tenantSlug,
      medico_id: auth.medicoId,
      escopos: auth.scopes,
    },
    echo: { method, body },
  });
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
    handler: async ({ request, body }) =>
      pong(request, method, method === 'GET' || body === undefined ? null : redact(body, PING_KEYS)),
    errors: [],
    example: method === 'POST' ? { body: { teste: 'ola', senha: 'nao aparece no eco' } } : undefined,
  });

/** Health: any valid key, never calls the backend. */
export const pingOperations = [pingOperation('GET'), pingOperation('POST')];
