import type { FastifyInstance } from 'fastify';
import { notFound } from '../../errors.ts';
import type { AdminDeps } from '../deps.ts';
import { parseInput } from '../http.ts';
import { findKeyById } from '../../keys/keys.repository.ts';
import { idParams } from '../../../contracts/admin/common.ts';
import {
  type fullApiKey,
  PLAYGROUND_MAX_BODY_CHARS,
  playgroundSendSchema,
  type PlaygroundAnswer,
} from '../../../contracts/admin/playground.ts';
import type { z } from 'zod';

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
  app.get('/keys/:id/api-key', async (request, reply): Promise<z.infer<typeof fullApiKey>> => {
    const { id } = parseInput(idParams, request.params);
    const row = await findKeyById(deps.db, id);
    if (!row) throw notFound();
    reply.header('cache-control', 'no-store');
    return { id: row.id, api_key: row.api_key, status: row.status };
  });

  app.post(
    '/playground/send',
    { bodyLimit: PLAYGROUND_MAX_BODY_CHARS * 2 },
    async (request, reply): Promise<PlaygroundAnswer> => {
      const input = parseInput(playgroundSendSchema, request.body);
      const started = performance.now();
      const res = await app.inject({
        method: input.method,
        url: input.path,
        headers: Object.fromEntries(Object.entries(input.headers).filter(([, value]) => value !== undefined)) as Record<
          string,
          string
        >,
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
    },
  );
}
