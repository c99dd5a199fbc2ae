import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import { sql } from 'kysely';
import type { DbOrTrx, GatewayDb } from '../db/database.ts';
import { nowIso } from '../db/database.ts';
import type { Operator } from '../db/tables/operators.ts';
import { burnPasswordCheck, generatePassword, hashPassword, verifyPassword } from './password.ts';

export interface LockoutPolicy {
  /** Failed logins in a row, for one username from one client address, that lock that pair. */
  maxAttempts: number;
  lockMs: number;
}

export const DEFAULT_LOCKOUT: LockoutPolicy = { maxAttempts: 5, lockMs: 15 * 60_000 };

/**
 * Creates the operator when missing. Returns the password only when it generated one
 * (main.ts writes it to the 0600 credentials file); `undefined` when the operator already existed
 * or the caller chose the password.
 */
export async function ensureOperator(
  db: DbOrTrx,
  username: string,
  password?: string,
): Promise<{ created: boolean; operatorId: number; generatedPassword?: string }> {
  const existing = await db.selectFrom('operators').select('id').where('username', '=', username).executeTakeFirst();
  if (existing) return { created: false, operatorId: existing.id };
  const plain = password ?? generatePassword();
  const row = await db
    .insertInto('operators')
    .values({ username, password_hash: await hashPassword(plain), created_at: nowIso() })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { created: true, operatorId: row.id, ...(password === undefined ? { generatedPassword: plain } : {}) };
}

/** Sets the password and lifts every lock on the username (the way back for an operator locked out). */
export async function setOperatorPassword(db: DbOrTrx, username: string, password: string): Promise<boolean> {
  const result = await db
    .updateTable('operators')
    .set({ password_hash: await hashPassword(password) })
    .where('username', '=', username)
    .executeTakeFirst();
  await db.deleteFrom('console_login_failures').where('username_hash', '=', usernameHash(username)).execute();
  return Number(result.numUpdatedRows) > 0;
}

export type LoginOutcome =
  | { ok: true; operator: Operator }
  | { ok: false; reason: 'invalid'; operatorId: number | null }
  | { ok: false; reason: 'locked'; operatorId: number | null; retryAfterSeconds: number };

const usernameHash = (username: string): string => createHash('sha256').update(username, 'utf8').digest('hex');

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
  return `${groups.slice(0, 4).map((g) => (Number.parseInt(g, 16) || 0).toString(16)).join(':')}::/64`;
}

/**
 * Checks credentials under the lockout (docs/decisions.md § Console login and audit storage):
 *  - failures are counted per (username as typed, client address): a stranger elsewhere cannot lock the
 *    operator out, and an unknown username locks exactly like a real one, so the lock tells nothing;
 *  - the attempt is counted before the password is checked, so parallel guesses cannot overrun the limit;
 *  - a locked pair is refused without checking the password; every other attempt, known user or not,
 *    costs one scrypt verification (same timing class);
 *  - a success clears its pair; a count with no failure for `lockMs` starts over.
 */
export async function attemptLogin(
  db: GatewayDb,
  credentials: { username: string; password: string; clientIp: string },
  policy: LockoutPolicy = DEFAULT_LOCKOUT,
  now: () => number = Date.now,
): Promise<LoginOutcome> {
  const at = now();
  const pair = { hash: usernameHash(credentials.username), address: lockoutAddress(credentials.clientIp) };
  const operator = await db.selectFrom('operators').selectAll().where('username', '=', credentials.username).executeTakeFirst();
  const operatorId = operator?.id ?? null;

  const counted = await countAttempt(db, pair, at, policy.lockMs);
  if (counted.locked_until !== null && counted.locked_until > at) {
    return { ok: false, reason: 'locked', operatorId, retryAfterSeconds: Math.ceil((counted.locked_until - at) / 1000) };
  }
  if (counted.failures > policy.maxAttempts) {
    // Parallel attempts beyond the limit: refused like a lock, which the failing ones are about to set.
    return { ok: false, reason: 'locked', operatorId, retryAfterSeconds: await lockPair(db, pair, at + policy.lockMs, at) };
  }

  const valid = operator ? await verifyPassword(credentials.password, operator.password_hash) : await burnPasswordCheck(credentials.password);
  if (operator && valid) {
    await db.deleteFrom('console_login_failures').where('username_hash', '=', pair.hash).where('address', '=', pair.address).execute();
    return { ok: true, operator };
  }
  if (counted.failures >= policy.maxAttempts) {
    return { ok: false, reason: 'locked', operatorId, retryAfterSeconds: await lockPair(db, pair, at + policy.lockMs, at) };
  }
  return { ok: false, reason: 'invalid', operatorId };
}

type Pair = { hash: string; address: string };

/** One atomic statement: counts this attempt (a fresh count after a lock or a quiet `windowMs`), or leaves a live lock as is. */
async function countAttempt(db: GatewayDb, pair: Pair, at: number, windowMs: number): Promise<{ failures: number; locked_until: number | null }> {
  // Expired pairs are swept here: the table holds at most the last window's attempts.
  await db
    .deleteFrom('console_login_failures')
    .where('last_failure_at', '<', at - windowMs)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', at)]))
    .execute();
  const { rows } = await sql<{ failures: number; locked_until: number | null }>`
    INSERT INTO console_login_failures (username_hash, address, failures, locked_until, last_failure_at)
    VALUES (${pair.hash}, ${pair.address}, 1, NULL, ${at})
    ON CONFLICT (username_hash, address) DO UPDATE SET
      failures = CASE
        WHEN locked_until > ${at} THEN failures
        WHEN locked_until IS NOT NULL OR last_failure_at < ${at - windowMs} THEN 1
        ELSE failures + 1 END,
      locked_until = CASE WHEN locked_until > ${at} THEN locked_until ELSE NULL END,
      last_failure_at = CASE WHEN locked_until > ${at} THEN last_failure_at ELSE ${at} END
    RETURNING failures, locked_until`.execute(db);
  return rows[0];
}

/** Locks the pair until `until` unless a lock is already set; returns the seconds left on the lock. */
async function lockPair(db: GatewayDb, pair: Pair, until: number, at: number): Promise<number> {
  const { rows } = await sql<{ locked_until: number }>`
    UPDATE console_login_failures SET locked_until = COALESCE(locked_until, ${until})
    WHERE username_hash = ${pair.hash} AND address = ${pair.address}
    RETURNING locked_until`.execute(db);
  return Math.ceil(((rows[0]?.locked_until ?? until) - at) / 1000);
}
