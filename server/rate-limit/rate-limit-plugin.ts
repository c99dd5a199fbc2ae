import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ApiError } from '../errors.ts';
import { LocalKeyRateLimiter, type KeyRateLimiter, type RateVerdict } from './key-limiter.ts';
import '../http/request-context.ts';

export interface RateLimitPluginOptions {
  perMinute: number;
  sandboxPerMinute: number;
  /** Where the buckets live: this process's (default, on a monotonic clock `now`) or the cluster's. */
  limiter?: KeyRateLimiter;
  /** The local buckets' monotonic clock in milliseconds (default `performance.now`); tests inject their own. */
  now?: () => number;
}

/**
 * Per-API-key token bucket: a burst of up to one minute's quota, refilled continuously.
 * The sandbox tenant has its own, lower quota. Over quota: 429 in the envelope with Retry-After.
 */
export default fp<RateLimitPluginOptions>(
  async function rateLimitPlugin(app: FastifyInstance, options) {
    const limiter = options.limiter ?? new LocalKeyRateLimiter(options.now);

    // Callback style: synchronous with the local buckets, a round trip with the cluster's.
    app.addHook('preValidation', (request, reply, done) => {
      const auth = request.auth;
      if (!auth) return done();
      const limit = auth.sandbox ? options.sandboxPerMinute : options.perMinute;
      reply.header('x-ratelimit-limit', String(limit));
      const verdict = limiter.take(auth.chaveId, limit);
      if (verdict instanceof Promise) verdict.then((v) => done(answer(reply, v, limit)), done);
      else done(answer(reply, verdict, limit));
    });
  },
  { name: 'rate-limit', dependencies: ['auth'] },
);

function answer(reply: FastifyReply, verdict: RateVerdict, limit: number): ApiError | undefined {
  if (verdict.ok) {
    reply.header('x-ratelimit-remaining', String(verdict.remaining));
    return undefined;
  }
  reply.header('x-ratelimit-remaining', '0');
  return new ApiError(
    'RATE_LIMIT_EXCEEDED',
    'Limite de requisicoes excedido. Reduza a concorrencia e aplique backoff exponencial.',
    { limite_por_minuto: limit },
    { headers: { 'retry-after': String(verdict.retryAfterSeconds) } },
  );
}
