import fp from 'fastify-plugin';
import { syncHook } from '../http/sync-hooks.ts';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.ts';
import '../http/request-context.ts';

export interface RateLimitPluginOptions {
  perMinute: number;
  sandboxPerMinute: number;
  /**
   * A monotonic clock in milliseconds (default `performance.now`), never the wall clock: a wall clock
   * stepped back (NTP, an operator, a VM resumed) would make every bucket wait out the step, and one
   * stepped forward would refill them all. Tests inject their own monotonic clock here.
   */
  now?: () => number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/**
 * Per-API-key token bucket: a burst of up to one minute's quota, refilled continuously.
 * The sandbox tenant has its own, lower quota. Over quota: 429 in the envelope with Retry-After.
 */
export default fp<RateLimitPluginOptions>(
  async function rateLimitPlugin(app: FastifyInstance, options) {
    const now = options.now ?? (() => performance.now());
    const buckets = new Map<number, Bucket>();

    app.addHook('preValidation', syncHook((request, reply) => {
      const auth = request.auth;
      if (!auth) return;
      const limit = auth.sandbox ? options.sandboxPerMinute : options.perMinute;
      const perMs = limit / 60_000;
      const t = now();
      let bucket = buckets.get(auth.chaveId);
      if (!bucket) {
        bucket = { tokens: limit, updatedAt: t };
        buckets.set(auth.chaveId, bucket);
      }
      // Never negative, even from an injected clock that is not monotonic: time going back refills nothing and takes nothing.
      bucket.tokens = Math.min(limit, bucket.tokens + Math.max(0, t - bucket.updatedAt) * perMs);
      bucket.updatedAt = t;
      reply.header('x-ratelimit-limit', String(limit));
      if (bucket.tokens < 1) {
        const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000));
        reply.header('x-ratelimit-remaining', '0');
        throw new ApiError(
          'RATE_LIMIT_EXCEEDED',
          'Limite de requisicoes excedido. Reduza a concorrencia e aplique backoff exponencial.',
          { limite_por_minuto: limit },
          { headers: { 'retry-after': String(retryAfter) } },
        );
      }
      bucket.tokens -= 1;
      reply.header('x-ratelimit-remaining', String(Math.floor(bucket.tokens)));
    }));
  },
  { name: 'rate-limit', dependencies: ['auth'] },
);
