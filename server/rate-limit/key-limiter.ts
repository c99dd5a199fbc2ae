import type pg from 'pg';
import { prepared } from '../db/postgres.ts';
import { oncePerTurn } from '../once-per-turn.ts';

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

/** At most this many tokens per lease (a quota of 6,400 a minute and more). */
export const LEASE_MAX_TOKENS = 64;
/** How long an instance may spend a lease; what is left after it goes back to the cluster's bucket. */
export const LEASE_LIFETIME_MS = 1000;

/**
 * Tokens an instance takes from the cluster's bucket at once for a quota of `perMinute`: one per hundred of the
 * minute's quota, 1 to LEASE_MAX_TOKENS. Quotas under 200 a minute (the sandbox's 120, the tests' small ones) are
 * taken one by one: exact, as before leases.
 */
export function leaseBlock(perMinute: number): number {
  return Math.min(LEASE_MAX_TOKENS, Math.max(1, Math.floor(perMinute / 100)));
}

interface Lease {
  limit: number;
  tokens: number;
  /** What the cluster's bucket held besides, when the lease was granted (x-ratelimit-remaining counts both). */
  bucketRemaining: number;
  expiresAt: number;
}

interface Ask {
  chaveId: number;
  limit: number;
  /** Positive: takes waiting for tokens (one each). Negative: tokens of an expired lease given back. */
  count: number;
  waiters: Array<{ resolve: (v: RateVerdict) => void; reject: (e: Error) => void }>;
}

export interface PostgresKeyRateLimiterOptions {
  /** Monotonic clock in milliseconds for the leases' lifetime (default `performance.now`). */
  now?: () => number;
  leaseLifetimeMs?: number;
}

/**
 * One bucket per key for the whole cluster, in PostgreSQL (rate_limit_buckets, migration 021; leases by
 * gateway_rate_lease_many, migration 028): a key gets its quota once, not once per instance. An instance takes
 * a key's tokens in blocks (leaseBlock) and spends them in memory for up to LEASE_LIFETIME_MS, so most requests
 * cost no statement; the asks of one turn of the event loop go in one statement, as the journal's group commit
 * does. Bounds (docs/decisions.md G32-1): the cluster never serves more tokens than its bucket granted; a token
 * may be spent up to a lease's lifetime after it was granted; while another instance holds unspent tokens of a
 * key, this one may refuse that key early, by at most (instances − 1) × (block − 1) requests for at most a lease's
 * lifetime, and what a lease did not spend goes back to the bucket. x-ratelimit-remaining is the bucket's count
 * at the grant plus the lease's tokens left: exact on one instance, approximate on several.
 */
export class PostgresKeyRateLimiter implements KeyRateLimiter {
  private readonly leases = new Map<number, Lease>();
  private asks = new Map<number, Ask>();
  private returns: Ask[] = [];
  private readonly schedule = oncePerTurn(() => void this.flush());
  private readonly now: () => number;
  private readonly lifetimeMs: number;
  private sweeper: NodeJS.Timeout | null = null;

  constructor(
    private readonly pool: pg.Pool,
    options: PostgresKeyRateLimiterOptions = {},
  ) {
    this.now = options.now ?? (() => performance.now());
    this.lifetimeMs = options.leaseLifetimeMs ?? LEASE_LIFETIME_MS;
  }

  take(chaveId: number, limit: number): RateVerdict | Promise<RateVerdict> {
    const lease = this.leases.get(chaveId);
    if (lease) {
      if (lease.tokens > 0 && lease.limit === limit && lease.expiresAt > this.now()) {
        lease.tokens -= 1;
        return { ok: true, remaining: lease.bucketRemaining + lease.tokens };
      }
      this.giveBack(chaveId, lease);
    }
    return new Promise((resolve, reject) => {
      let ask = this.asks.get(chaveId);
      if (!ask || ask.limit !== limit) {
        if (ask) this.asks.delete(chaveId);
        ask = { chaveId, limit, count: 0, waiters: [] };
        this.asks.set(chaveId, ask);
      }
      ask.count += 1;
      ask.waiters.push({ resolve, reject });
      this.schedule();
    });
  }

  /** Gives every lease back to the cluster's bucket (at shutdown); resolves when the statement has run. */
  async close(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
    for (const [chaveId, lease] of this.leases) this.giveBack(chaveId, lease);
    if (this.returns.length > 0) await this.flush();
  }

  /** A lease ends (spent, expired or for another quota): what it did not spend goes back with the next statement. */
  private giveBack(chaveId: number, lease: Lease): void {
    this.leases.delete(chaveId);
    if (lease.tokens > 0) {
      this.returns.push({ chaveId, limit: lease.limit, count: -lease.tokens, waiters: [] });
      this.schedule();
    }
  }

  /** Leases that outlived their lifetime unspent are given back even when their key is not asked again. */
  private sweepLater(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => {
      const t = this.now();
      for (const [chaveId, lease] of this.leases) if (lease.expiresAt <= t) this.giveBack(chaveId, lease);
      if (this.leases.size === 0 && this.sweeper) {
        clearInterval(this.sweeper);
        this.sweeper = null;
      }
    }, this.lifetimeMs);
    this.sweeper.unref();
  }

  private async flush(): Promise<void> {
    const batch = [...this.returns, ...this.asks.values()];
    this.returns = [];
    this.asks = new Map();
    if (batch.length === 0) return;
    // A lease's worth more than the waiters: they are served first, the rest is spent by the next takes here.
    const counts = batch.map((a) => (a.count > 0 ? a.count + leaseBlock(a.limit) - 1 : a.count));
    try {
      const { rows } = await this.pool.query<{ ord: number; granted: number; wait_ms: number; remaining: number }>(
        prepared('SELECT * FROM gateway_rate_lease_many($1::integer[], $2::double precision[], $3::integer[], 60000)', [
          batch.map((a) => a.chaveId),
          batch.map((a) => 60_000 / a.limit),
          counts,
        ]),
      );
      for (const { ord, granted, wait_ms, remaining } of rows)
        this.granted(batch[ord - 1], granted, wait_ms, remaining);
    } catch (error) {
      // Returns that failed are lost to the bucket until it refills: the cluster serves less, never more.
      for (const ask of batch) for (const waiter of ask.waiters) waiter.reject(error as Error);
    }
  }

  private granted(ask: Ask, granted: number, waitMs: number, remaining: number): void {
    if (ask.count <= 0) return;
    const served = Math.min(granted, ask.waiters.length);
    const left = granted - served;
    ask.waiters.forEach((waiter, i) => {
      waiter.resolve(
        i < served
          ? { ok: true, remaining: remaining + left + (served - 1 - i) }
          : { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) },
      );
    });
    if (left <= 0) return;
    const lease = this.leases.get(ask.chaveId);
    if (lease && lease.limit === ask.limit) {
      lease.tokens += left;
      lease.bucketRemaining = remaining;
      lease.expiresAt = this.now() + this.lifetimeMs;
    } else {
      if (lease) this.giveBack(ask.chaveId, lease);
      this.leases.set(ask.chaveId, {
        limit: ask.limit,
        tokens: left,
        bucketRemaining: remaining,
        expiresAt: this.now() + this.lifetimeMs,
      });
    }
    this.sweepLater();
  }
}
