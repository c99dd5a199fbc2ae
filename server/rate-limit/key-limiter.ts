import type pg from 'pg';

/** One request's verdict: allowed (with what is left of the minute's quota) or refused (and when to retry). */
export type RateVerdict = { ok: true; remaining: number } | { ok: false; retryAfterSeconds: number };

/** Per-API-key limits: this process's buckets (one gateway) or the cluster's, kept in PostgreSQL. */
export interface KeyRateLimiter {
  take(chaveId: number, perMinute: number): RateVerdict | Promise<RateVerdict>;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/**
 * Token buckets in this process: a burst of up to one minute's quota, refilled continuously, on a monotonic
 * clock in milliseconds (default `performance.now`), never the wall clock: a wall clock stepped back (NTP, an
 * operator, a VM resumed) would make every bucket wait out the step, and one stepped forward would refill them all.
 */
export class LocalKeyRateLimiter implements KeyRateLimiter {
  private readonly buckets = new Map<number, Bucket>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  take(chaveId: number, limit: number): RateVerdict {
    const perMs = limit / 60_000;
    const t = this.now();
    let bucket = this.buckets.get(chaveId);
    if (!bucket) {
      bucket = { tokens: limit, updatedAt: t };
      this.buckets.set(chaveId, bucket);
    }
    // Never negative, even from an injected clock that is not monotonic: time going back refills nothing and takes nothing.
    bucket.tokens = Math.min(limit, bucket.tokens + Math.max(0, t - bucket.updatedAt) * perMs);
    bucket.updatedAt = t;
    if (bucket.tokens < 1) return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000)) };
    bucket.tokens -= 1;
    return { ok: true, remaining: Math.floor(bucket.tokens) };
  }
}

/**
 * One bucket per key for the whole cluster, in PostgreSQL (rate_limit_buckets and gateway_rate_take, migration
 * 021): instances never disagree and a key gets its quota once, not once per instance. One round trip per
 * request: the price of a limit exact across instances.
 */
export class PostgresKeyRateLimiter implements KeyRateLimiter {
  constructor(private readonly pool: pg.Pool) {}

  async take(chaveId: number, limit: number): Promise<RateVerdict> {
    const { rows } = await this.pool.query<{ allowed: boolean; wait_ms: number; remaining: number }>('SELECT * FROM gateway_rate_take($1, $2, 60000)', [
      chaveId,
      60_000 / limit,
    ]);
    const { allowed, wait_ms, remaining } = rows[0];
    return allowed ? { ok: true, remaining } : { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(wait_ms / 1000)) };
  }
}
