/**
 * A token bucket per client address for requests that did not authenticate (issue 19 § Outsiders cannot
 * evict history): missing or unknown keys, bad signatures, expired timestamps, unknown routes. Only
 * refusals are charged, so an authenticated integrator sharing the address (every local client of the
 * appliance is 127.0.0.1) is never slowed by an outsider's noise. Monotonic time: a wall-clock step
 * neither refills nor drains a bucket. The table of addresses is bounded; past it the oldest bucket goes.
 */
export interface AddressLimiterOptions {
  perMinute: number;
  /** Addresses tracked at once (an IPv6 sprayer cannot grow the table past it). */
  maxAddresses?: number;
  /** Monotonic milliseconds (performance.now by default). */
  now?: () => number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export type AddressVerdict = { ok: true } | { ok: false; retryAfterSeconds: number };

export class AddressLimiter {
  readonly perMinute: number;
  private readonly maxAddresses: number;
  private readonly now: () => number;
  private readonly buckets = new Map<string, Bucket>();

  constructor(options: AddressLimiterOptions) {
    this.perMinute = options.perMinute;
    this.maxAddresses = options.maxAddresses ?? 10_000;
    this.now = options.now ?? (() => performance.now());
  }

  /** Charges one refusal to `address`; refused once its minute's quota is spent. */
  take(address: string): AddressVerdict {
    const bucket = this.refill(address);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true };
    }
    const perMs = this.perMinute / 60_000;
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000)) };
  }

  /** Whether `address` has a refusal left, without charging it (costly diagnostics ask first). */
  hasRoom(address: string): boolean {
    return this.refill(address).tokens >= 1;
  }

  private refill(address: string): Bucket {
    const t = this.now();
    let bucket = this.buckets.get(address);
    if (!bucket) {
      if (this.buckets.size >= this.maxAddresses) this.buckets.delete(this.buckets.keys().next().value as string);
      bucket = { tokens: this.perMinute, at: t };
      this.buckets.set(address, bucket);
      return bucket;
    }
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + Math.max(0, t - bucket.at) * (this.perMinute / 60_000));
    bucket.at = t;
    return bucket;
  }
}
