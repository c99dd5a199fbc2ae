import fp from 'fastify-plugin';
import { syncHook } from './sync-hooks.ts';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.ts';

export interface CorsPluginOptions {
  allowedOrigins: string[];
  /**
   * Also accept a browser call from the gateway's own origin (the /docs page's "Try it out", which signs in the page).
   * Development mode only, like the development origin: in production only the portal calls from a browser.
   */
  sameOrigin?: boolean;
}

const ALLOWED_HEADERS = 'Content-Type, X-API-Key, X-Timestamp, X-Signature, Idempotency-Key';
const EXPOSED_HEADERS =
  'X-Api-Version, X-Api-Release, X-Request-Id, Idempotency-Key, Idempotency-Replay, Location, Retry-After';
const ALLOWED_METHODS = 'GET, POST, PATCH, DELETE';

/**
 * Browser calls only from the portal origin (and, in development, the development origin and the gateway's own).
 * Server-to-server calls send no Origin and are unaffected. A browser call from any other
 * origin is refused with 403 OPERATION_NOT_ALLOWED, so it never reaches the clinic data.
 */
export default fp<CorsPluginOptions>(
  async function corsPlugin(app: FastifyInstance, options) {
    const allowed = new Set(options.allowedOrigins);

    app.addHook(
      'onRequest',
      syncHook((request, reply) => {
        const origin = request.headers.origin;
        if (origin === undefined) return;
        if (
          !allowed.has(origin) &&
          !(options.sameOrigin && origin === `${request.protocol}://${request.headers.host}`)
        ) {
          throw new ApiError('OPERATION_NOT_ALLOWED', 'Origem do navegador nao permitida.', { field: 'Origin' });
        }
        reply.header('access-control-allow-origin', origin);
        reply.header('vary', 'Origin');
        reply.header('access-control-expose-headers', EXPOSED_HEADERS);
      }),
    );

    // Preflight: answered here, before authentication (browsers send no credentials on it).
    app.options('/*', { config: { corsPreflight: true } }, async (request, reply) => {
      if (!request.headers.origin || !request.headers['access-control-request-method']) {
        throw new ApiError('METHOD_NOT_ALLOWED', 'Metodo OPTIONS aceito apenas como preflight CORS.');
      }
      reply.header('access-control-allow-methods', ALLOWED_METHODS);
      reply.header('access-control-allow-headers', ALLOWED_HEADERS);
      reply.header('access-control-max-age', '600');
      return { preflight: true, metodos: ALLOWED_METHODS.split(', ') };
    });
  },
  { name: 'cors', dependencies: ['envelope'] },
);
