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
    if (bucket.tokens < 1)
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000)) };
    bucket.tokens -= 1;
    return { ok: true, remaining: Math.floor(bucket.tokens) };
  }
}

/**
 * One bucket per key for the whole cluster, in PostgreSQL (rate_limit_buckets, gateway_rate_take and
 * gateway_rate_take_many, migrations 021 and 022): instances never disagree and a key gets its quota once, not
 * once per instance. The takes asked during one turn of the event loop go in one statement (group take), so under
 * load a round trip serves many requests, as the journal's group commit does.
 */
export class PostgresKeyRateLimiter implements KeyRateLimiter {
  private pending: Array<{
    chaveId: number;
    step: number;
    resolve: (v: RateVerdict) => void;
    reject: (e: Error) => void;
  }> = [];
  private scheduled = false;

  constructor(private readonly pool: pg.Pool) {}

  take(chaveId: number, limit: number): Promise<RateVerdict> {
    return new Promise((resolve, reject) => {
      this.pending.push({ chaveId, step: 60_000 / limit, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        void this.flush();
      });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    try {
      const { rows } = await this.pool.query<{ ord: number; allowed: boolean; wait_ms: number; remaining: number }>(
        'SELECT * FROM gateway_rate_take_many($1::integer[], $2::double precision[], 60000)',
        [batch.map((b) => b.chaveId), batch.map((b) => b.step)],
      );
      for (const { ord, allowed, wait_ms, remaining } of rows) {
        batch[ord - 1].resolve(
          allowed ? { ok: true, remaining } : { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(wait_ms / 1000)) },
        );
      }
    } catch (error) {
      for (const b of batch) b.reject(error as Error);
    }
  }
}
