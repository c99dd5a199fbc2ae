import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { keySet, PING_REDACTED_KEYS, redact } from '../../http/redact.ts';
import { emptyQuery } from '../../http/params.ts';
import { maskApiKey } from '../../keys/keys.service.ts';
import type { FastifyRequest } from 'fastify';

export const PING_MAX_BODY_BYTES = 2048;
const PING_KEYS = keySet(PING_REDACTED_KEYS);

const pingData = z.object({
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

function pong(request: FastifyRequest, method: 'GET' | 'POST', body: unknown): z.infer<typeof pingData> {
  const auth = request.auth!;
  return {
    ok: true,
    service: 'clinic-exams-gateway',
    version: 'v1',
    server_time: new Date().toISOString(),
    backend_called: false,
    auth: {
      api_key_masked: maskApiKey(auth.apiKey),
      chave_id: auth.chaveId,
      clinica: auth.tenantSlug,
      medico_id: auth.medicoId,
      escopos: auth.scopes,
    },
    echo: { method, body },
  };
}

/** Health: any valid key, never calls the backend. */
const pingRoutes: FastifyPluginAsyncZod = async (app) => {
  const schema = { querystring: emptyQuery, response: { 200: pingData } };

  app.get('/ping', { schema, config: { scope: null } }, async (request) => pong(request, 'GET', null));

  app.post(
    '/ping',
    { schema, config: { scope: null, maxBodyBytes: PING_MAX_BODY_BYTES } },
    // An empty body is echoed as null; any JSON value is accepted and echoed after redaction.
    async (request) => pong(request, 'POST', request.body === undefined ? null : redact(request.body, PING_KEYS)),
  );
};

export default pingRoutes;
