import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { notFound } from '../../errors.ts';
import type { AdminDeps } from '../admin-plugin.ts';
import { parseInput } from '../http.ts';

const idParams = z.object({ id: z.coerce.number().int().positive() });

/**
 * The signing playground's key (issue 22 § 4): choosing a key fills X-API-Key with it. The API key is the
 * public half, sent in clear on every request and shown in the journal's request headers; lists keep it
 * masked so a screen over a shoulder shows no usable identifier. The secret never leaves the gateway: the
 * operator pastes the one they stored, and the page signs in the browser.
 */
export default async function playgroundRoutes(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  app.get('/keys/:id/api-key', async (request, reply) => {
    const { id } = parseInput(idParams, request.params);
    const row = await deps.db.selectFrom('api_keys').select(['id', 'api_key', 'status']).where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound();
    reply.header('cache-control', 'no-store');
    return { id: row.id, api_key: row.api_key, status: row.status };
  });
}
