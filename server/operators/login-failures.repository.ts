import { sql } from 'kysely';
import type { DbOrTrx } from '../db/database.ts';

/** The lockout's counters (console_login_failures), one row per (username hash, address); the rules are in lockout.ts. */

export type Pair = { hash: string; address: string };

/** One atomic statement: counts this attempt (a fresh count after a lock or a quiet `windowMs`), or leaves a live lock as is. */
export async function countAttempt(
  db: DbOrTrx,
  pair: Pair,
  at: number,
  windowMs: number,
): Promise<{ failures: number; locked_until: number | null }> {
  // Expired pairs are swept here: the table holds at most the last window's attempts.
  await db
    .deleteFrom('console_login_failures')
    .where('last_failure_at', '<', at - windowMs)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', at)]))
    .execute();
  const { rows } = await sql<{ failures: number; locked_until: number | null }>`
    INSERT INTO console_login_failures AS f (username_hash, address, failures, locked_until, last_failure_at)
    VALUES (${pair.hash}, ${pair.address}, 1, NULL, ${at})
    ON CONFLICT (username_hash, address) DO UPDATE SET
      failures = CASE
        WHEN f.locked_until > ${at} THEN f.failures
        WHEN f.locked_until IS NOT NULL OR f.last_failure_at < ${at - windowMs} THEN 1
        ELSE f.failures + 1 END,
      locked_until = CASE WHEN f.locked_until > ${at} THEN f.locked_until ELSE NULL END,
      last_failure_at = CASE WHEN f.locked_until > ${at} THEN f.last_failure_at ELSE ${at} END
    RETURNING failures, locked_until`.execute(db);
  return rows[0];
}

/** Locks the pair until `until` unless a lock is already set; returns the epoch ms the lock ends (`until` when the row is gone). */
export async function lockPair(db: DbOrTrx, pair: Pair, until: number): Promise<number> {
  const { rows } = await sql<{ locked_until: number }>`
    UPDATE console_login_failures SET locked_until = COALESCE(locked_until, ${until})
    WHERE username_hash = ${pair.hash} AND address = ${pair.address}
    RETURNING locked_until`.execute(db);
  return rows[0]?.locked_until ?? until;
}

export async function clearPair(db: DbOrTrx, pair: Pair): Promise<void> {
  await db
    .deleteFrom('console_login_failures')
    .where('username_hash', '=', pair.hash)
    .where('address', '=', pair.address)
    .execute();
}

/** Lifts every lock on a username, from every address. */
export async function clearUsername(db: DbOrTrx, usernameHash: string): Promise<void> {
  await db.deleteFrom('console_login_failures').where('username_hash', '=', usernameHash).execute();
}
