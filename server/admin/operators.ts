import type { DbOrTrx, GatewayDb } from '../db/database.ts';
import { nowIso } from '../db/database.ts';
import type { Operator } from '../db/tables/operators.ts';
import { burnPasswordCheck, generatePassword, hashPassword, verifyPassword } from './password.ts';

export interface LockoutPolicy {
  /** Failed logins in a row that lock the account. */
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
    .values({ username, password_hash: await hashPassword(plain), failed_logins: 0, locked_until: null, created_at: nowIso() })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { created: true, operatorId: row.id, ...(password === undefined ? { generatedPassword: plain } : {}) };
}

export async function setOperatorPassword(db: DbOrTrx, username: string, password: string): Promise<boolean> {
  const result = await db
    .updateTable('operators')
    .set({ password_hash: await hashPassword(password), failed_logins: 0, locked_until: null })
    .where('username', '=', username)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export type LoginOutcome =
  | { ok: true; operator: Operator }
  | { ok: false; reason: 'invalid'; operatorId: number | null; remainingAttempts: number | null }
  | { ok: false; reason: 'locked'; operatorId: number; retryAfterSeconds: number };

/** Checks credentials and applies the lockout; a locked account is refused before its password is checked. */
export async function attemptLogin(
  db: GatewayDb,
  username: string,
  password: string,
  policy: LockoutPolicy = DEFAULT_LOCKOUT,
  now: () => number = Date.now,
): Promise<LoginOutcome> {
  const operator = await db.selectFrom('operators').selectAll().where('username', '=', username).executeTakeFirst();
  if (!operator) {
    await burnPasswordCheck(password);
    return { ok: false, reason: 'invalid', operatorId: null, remainingAttempts: null };
  }
  const lockedFor = operator.locked_until ? Date.parse(operator.locked_until) - now() : 0;
  if (lockedFor > 0) {
    return { ok: false, reason: 'locked', operatorId: operator.id, retryAfterSeconds: Math.ceil(lockedFor / 1000) };
  }
  if (await verifyPassword(password, operator.password_hash)) {
    if (operator.failed_logins !== 0 || operator.locked_until !== null) {
      await db.updateTable('operators').set({ failed_logins: 0, locked_until: null }).where('id', '=', operator.id).execute();
    }
    return { ok: true, operator: { ...operator, failed_logins: 0, locked_until: null } };
  }
  // An expired lock starts a fresh count; the increment is atomic so parallel guesses all count.
  const base = operator.locked_until ? 0 : null;
  const updated = await db
    .updateTable('operators')
    .set((eb) => ({
      failed_logins: base === 0 ? 1 : eb('failed_logins', '+', 1),
      locked_until: null,
    }))
    .where('id', '=', operator.id)
    .returning('failed_logins')
    .executeTakeFirstOrThrow();
  if (updated.failed_logins >= policy.maxAttempts) {
    const until = new Date(now() + policy.lockMs).toISOString();
    await db.updateTable('operators').set({ locked_until: until, failed_logins: 0 }).where('id', '=', operator.id).execute();
    return { ok: false, reason: 'locked', operatorId: operator.id, retryAfterSeconds: Math.ceil(policy.lockMs / 1000) };
  }
  return { ok: false, reason: 'invalid', operatorId: operator.id, remainingAttempts: policy.maxAttempts - updated.failed_logins };
}
