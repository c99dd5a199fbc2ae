import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import type { DbOrTrx } from '../db/database.ts';
import type { Operator } from '../db/tables/operators.ts';
import { clearPair, countAttempt, lockPair, type Pair } from './login-failures.repository.ts';
import { findOperatorRow } from './operators.repository.ts';
import { burnPasswordCheck, verifyPassword } from './password.ts';

export interface LockoutPolicy {
  /** Failed logins in a row, for one username from one client address, that lock that pair. */
  maxAttempts: number;
  lockMs: number;
}

export const DEFAULT_LOCKOUT: LockoutPolicy = { maxAttempts: 5, lockMs: 15 * 60_000 };

export type LoginOutcome =
  | { ok: true; operator: Operator }
  | { ok: false; reason: 'invalid'; operatorId: number | null }
  | { ok: false; reason: 'locked'; operatorId: number | null; retryAfterSeconds: number };

export const usernameHash = (username: string): string => createHash('sha256').update(username, 'utf8').digest('hex');

/**
 * The address a lock applies to: an IPv4 address as is, an IPv6 address by its /64 prefix (one
 * subscriber usually holds a whole /64, so per-address counting would give it 2^64 tries).
 */
export function lockoutAddress(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1];
  if (!isIPv6(ip)) return ip;
  const [head, tail = ''] = ip.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => (Number.parseInt(g, 16) || 0).toString(16))
    .join(':')}::/64`;
}

/** Locks the pair (unless a lock is set already) and answers the refusal with the seconds left on the lock. */
async function locked(
  db: DbOrTrx,
  pair: Pair,
  operatorId: number | null,
  at: number,
  policy: LockoutPolicy,
): Promise<LoginOutcome> {
  const until = await lockPair(db, pair, at + policy.lockMs);
  return { ok: false, reason: 'locked', operatorId, retryAfterSeconds: Math.ceil((until - at) / 1000) };
}

/**
 * Checks credentials under the lockout (docs/decisions.md § Console login and audit storage):
 *  - failures are counted per (username as typed, client address): a stranger elsewhere cannot lock the
 *    operator out, and an unknown username locks exactly like a real one, so the lock tells nothing;
 *  - the attempt is counted before the password is checked, so parallel guesses cannot overrun the limit;
 *  - a locked pair is refused without checking the password; every other attempt, known user or not,
 *    costs one scrypt verification (same timing class);
 *  - a success clears its pair; a count with no failure for `lockMs` starts over;
 *  - a disabled operator never succeeds, and is told nothing more than a wrong password would be.
 */
export async function attemptLogin(
  db: DbOrTrx,
  credentials: { username: string; password: string; clientIp: string },
  policy: LockoutPolicy = DEFAULT_LOCKOUT,
  now: () => number = Date.now,
): Promise<LoginOutcome> {
  const at = now();
  const pair = { hash: usernameHash(credentials.username), address: lockoutAddress(credentials.clientIp) };
  const operator = await findOperatorRow(db, { username: credentials.username });
  const operatorId = operator?.id ?? null;

  const counted = await countAttempt(db, pair, at, policy.lockMs);
  if (counted.locked_until !== null && counted.locked_until > at) {
    return {
      ok: false,
      reason: 'locked',
      operatorId,
      retryAfterSeconds: Math.ceil((counted.locked_until - at) / 1000),
    };
  }
  // Parallel attempts beyond the limit: refused like a lock, which the failing ones are about to set.
  if (counted.failures > policy.maxAttempts) return locked(db, pair, operatorId, at, policy);

  const valid = operator
    ? await verifyPassword(credentials.password, operator.password_hash)
    : await burnPasswordCheck(credentials.password);
  // A disabled account answers like a wrong password: the same 401, and the attempt stays counted.
  if (operator && valid && operator.disabled_at === null) {
    await clearPair(db, pair);
    return { ok: true, operator };
  }
  if (counted.failures >= policy.maxAttempts) return locked(db, pair, operatorId, at, policy);
  return { ok: false, reason: 'invalid', operatorId };
}
