import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { notFound } from '../../errors.ts';
import type { AdminDeps } from '../admin-plugin.ts';
import { parseInput } from '../http.ts';

const idParams = z.object({ id: z.coerce.number().int().positive() });

/** A body the public API would take (its own limit is lower for most routes; it answers 413 itself). */
const MAX_BODY_CHARS = 8 * 1024 * 1024;

/**
 * A request the signing playground signed in the browser: exactly what goes to /v1, the signing
 * headers included and the secret never. Only the public API, only the headers the spec defines.
 */
const sendSchema = z
  .object({
    method: z.enum(['GET', 'POST', 'PATCH', 'PUT', 'DELETE']),
    path: z.string().max(4096).regex(/^\/v1(\/|\?|$)/, 'Use um caminho publico, ex.: /v1/pacientes*'),
    headers: z
      .object({
        'x-api-key': z.string().max(256),
        'x-timestamp': z.string().max(32),
        'x-signature': z.string().max(256),
        'idempotency-key': z.string().max(256).optional(),
        'content-type': z.string().max(256).optional(),
      })
      .strict(),
    body: z.string().max(MAX_BODY_CHARS).optional(),
  })
  .strict();

/** Never relayed back to the page: cookies and the connection's own headers. */
const DROPPED = new Set(['set-cookie', 'connection', 'keep-alive', 'transfer-encoding']);

/**
 * The signing playground (issue 22 § 4). Choosing a key fills X-API-Key with it: the API key is the public
 * half, sent in clear on every request and shown in the journal's request headers; lists keep it masked so
 * a screen over a shoulder shows no usable identifier. The secret never leaves the browser: the operator
 * pastes the one they stored, and the page signs.
 *
 * Send goes through here: in production the public API refuses browser calls from any origin but the
 * portal's (server/http/cors-plugin.ts; development mode also takes the gateway's own), a browser puts
 * Origin on every write, and a page's fetch cannot show a redirect's Location. The request the page
 * signed is injected into the gateway unchanged (method, path as sent, the signing headers, the raw
 * body), from the operator's address: authenticated, journaled and answered like an integrator's. The
 * answer comes back whole, a redirect's Location included.
 */
export default async function playgroundRoutes(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  app.get('/keys/:id/api-key', async (request, reply) => {
    const { id } = parseInput(idParams, request.params);
    const row = await deps.db.selectFrom('api_keys').select(['id', 'api_key', 'status']).where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound();
    reply.header('cache-control', 'no-store');
    return { id: row.id, api_key: row.api_key, status: row.status };
  });

  app.post('/playground/send', { bodyLimit: MAX_BODY_CHARS * 2 }, async (request, reply) => {
    const input = parseInput(sendSchema, request.body);
    const started = performance.now();
    const res = await app.inject({
      method: input.method,
      url: input.path,
      headers: Object.fromEntries(Object.entries(input.headers).filter(([, value]) => value !== undefined)) as Record<string, string>,
      payload: input.body === undefined || input.body === '' ? undefined : input.body,
      remoteAddress: request.ip,
    });
    reply.header('cache-control', 'no-store');
    return {
      status: res.statusCode,
      headers: Object.entries(res.headers)
        .filter(([name]) => !DROPPED.has(name.toLowerCase()))
        .map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value)] as [string, string]),
      body: res.payload,
      duration_ms: Math.round(performance.now() - started),
    };
  });
}
