import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import { isPostgres } from '../db/dialect.ts';
import { sql } from 'kysely';
import type { FastifyRequest } from 'fastify';
import type { DbOrTrx, GatewayDb } from '../db/database.ts';
import { nowIso } from '../db/database.ts';
import type { Operator } from '../db/tables/operators.ts';
import { ApiError } from '../errors.ts';
import { burnPasswordCheck, generatePassword, hashPassword, verifyPassword } from './password.ts';
import type { OperatorRefusal, OperatorRole, OperatorView } from '../../contracts/admin/operators.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The least role a console route needs (issue 22). Unset: reads (GET, HEAD) are open to every operator,
     * anything else needs `admin` — a new write route is admin-only unless it says otherwise.
     */
    role?: OperatorRole;
  }
}

export interface LockoutPolicy {
  /** Failed logins in a row, for one username from one client address, that lock that pair. */
  maxAttempts: number;
  lockMs: number;
}

export const DEFAULT_LOCKOUT: LockoutPolicy = { maxAttempts: 5, lockMs: 15 * 60_000 };

const READ_METHODS = new Set(['GET', 'HEAD']);

/** The role a console API request needs: the route's `role`, else `viewer` for reads and `admin` for writes. */
export function requiredRole(method: string, routeRole: OperatorRole | undefined): OperatorRole {
  return routeRole ?? (READ_METHODS.has(method) ? 'viewer' : 'admin');
}

/** 403 ADMIN_FORBIDDEN unless `role` may call a route needing `required` (an admin may call anything). */
export function requireRole(role: OperatorRole, required: OperatorRole): void {
  if (required === 'viewer' || role === 'admin') return;
  throw new ApiError('ADMIN_FORBIDDEN', 'Operador viewer: acesso somente leitura. Esta acao exige um operador admin.', {
    role,
    papel_exigido: required,
  });
}

/**
 * The role check of the console API's onRequest hook (admin-plugin.ts): the route's required role against
 * the caller's. A refusal is journaled like any console action, under the operator, with both roles.
 */
export function enforceRole(request: FastifyRequest, role: OperatorRole): void {
  const required = requiredRole(request.method, request.routeOptions.config?.role);
  if (required === 'viewer' || role === 'admin') return;
  request.adminAudit = { detail: { role, papel_exigido: required } };
  requireRole(role, required);
}

/**
 * The issuing operator of an operator token, as it is now: a token acts as that operator, so it follows
 * the operator's role, and a disabled operator's tokens are refused (disabling also revokes them).
 */
export async function tokenOperatorRole(db: DbOrTrx, operatorId: number | null): Promise<OperatorRole> {
  const row =
    operatorId === null
      ? undefined
      : await db
          .selectFrom('operators')
          .select(['role', 'disabled_at'])
          .where('id', '=', operatorId)
          .executeTakeFirst();
  if (!row || row.disabled_at !== null)
    throw new ApiError('ADMIN_UNAUTHENTICATED', 'Token de operador de uma conta desativada.');
  return row.role;
}

/**
 * Creates the operator when missing. Returns the password only when it generated one
 * (main.ts writes it to the 0600 credentials file); `undefined` when the operator already existed
 * or the caller chose the password. The first start's operator is an admin; an existing account is
 * left as it is (role included).
 */
export async function ensureOperator(
  db: DbOrTrx,
  username: string,
  password?: string,
  role: OperatorRole = 'admin',
): Promise<{ created: boolean; operatorId: number; generatedPassword?: string }> {
  const existing = await db.selectFrom('operators').select('id').where('username', '=', username).executeTakeFirst();
  if (existing) return { created: false, operatorId: existing.id };
  const plain = password ?? generatePassword();
  const row = await db
    .insertInto('operators')
    .values({ username, password_hash: await hashPassword(plain), created_at: nowIso(), role })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { created: true, operatorId: row.id, ...(password === undefined ? { generatedPassword: plain } : {}) };
}

/** Sets the password and lifts every lock on the username (the way back for an operator locked out). */
export async function setOperatorPassword(db: DbOrTrx, username: string, password: string): Promise<boolean> {
  const result = await db
    .updateTable('operators')
    .set({ password_hash: await hashPassword(password), password_changed_at: nowIso() })
    .where('username', '=', username)
    .executeTakeFirst();
  await db.deleteFrom('console_login_failures').where('username_hash', '=', usernameHash(username)).execute();
  return Number(result.numUpdatedRows) > 0;
}

/* ---------------------------------------------------------------------------------------------------
 * Operator accounts (issue 22 § 6): the console's Operators screen and the CLI's `operators` commands
 * share these. Messages are the console API's (Portuguese); `details.motivo` names the refusal for
 * callers that speak another language (the CLI).
 * ------------------------------------------------------------------------------------------------- */

/** What a refusal is about (contracts/admin/operators.ts): the CLI and the console word each in English. */
export type { OperatorRefusal };

const refusal = (
  code: 'RES_NOT_FOUND' | 'CONFLICT' | 'INVALID_STATE',
  motivo: OperatorRefusal,
  message: string,
  extra: Record<string, unknown> = {},
) => new ApiError(code, message, { motivo, ...extra });

/** Every operator, oldest first, with its live sessions and active tokens counted; `at` judges expiries. */
export async function listOperators(db: DbOrTrx, at: { now: string; applianceNow: string }): Promise<OperatorView[]> {
  const rows = await db
    .selectFrom('operators')
    .select((eb) => [
      'operators.id',
      'operators.username',
      'operators.role',
      'operators.created_at',
      'operators.disabled_at',
      'operators.password_changed_at',
      eb
        .selectFrom('operator_sessions')
        .select((s) => s.fn.countAll<number>().as('n'))
        .whereRef('operator_sessions.operator_id', '=', 'operators.id')
        .where('operator_sessions.expires_at', '>', at.now)
        .as('sessions'),
      eb
        .selectFrom('operator_tokens')
        .select((s) => s.fn.countAll<number>().as('n'))
        .whereRef('operator_tokens.operator_id', '=', 'operators.id')
        .where('operator_tokens.revoked_at', 'is', null)
        .where('operator_tokens.expires_at', '>', at.applianceNow)
        .as('tokens'),
    ])
    .orderBy('operators.id')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    username: row.username,
    role: row.role,
    status: row.disabled_at ? 'disabled' : 'active',
    created_at: row.created_at,
    disabled_at: row.disabled_at,
    password_changed_at: row.password_changed_at,
    sessions: Number(row.sessions ?? 0),
    tokens: Number(row.tokens ?? 0),
  }));
}

/** One operator by id or username; 404 RES_NOT_FOUND (motivo `unknown_operator`) when there is none. */
export async function findOperator(db: DbOrTrx, which: { id: number } | { username: string }): Promise<Operator> {
  let query = db.selectFrom('operators').selectAll();
  query = 'id' in which ? query.where('id', '=', which.id) : query.where('username', '=', which.username);
  const row = await query.executeTakeFirst();
  if (!row) throw refusal('RES_NOT_FOUND', 'unknown_operator', 'Operador inexistente.');
  return row;
}

async function viewOf(db: DbOrTrx, id: number, at: { now: string; applianceNow: string }): Promise<OperatorView> {
  const view = (await listOperators(db, at)).find((o) => o.id === id);
  if (!view) throw refusal('RES_NOT_FOUND', 'unknown_operator', 'Operador inexistente.');
  return view;
}

/** A new account with a generated password, returned once (it is stored only as its scrypt hash). */
export async function createOperator(
  db: DbOrTrx,
  input: { username: string; role: OperatorRole },
  at: { now: string; applianceNow: string },
): Promise<{ operator: OperatorView; password: string }> {
  const taken = await db.selectFrom('operators').select('id').where('username', '=', input.username).executeTakeFirst();
  if (taken)
    throw refusal('CONFLICT', 'username_taken', `Ja existe um operador "${input.username}".`, { field: 'username' });
  const password = generatePassword();
  const row = await db
    .insertInto('operators')
    .values({
      username: input.username,
      role: input.role,
      password_hash: await hashPassword(password),
      created_at: at.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { operator: await viewOf(db, row.id, at), password };
}

async function inTransaction<T>(db: DbOrTrx, work: (trx: DbOrTrx) => Promise<T>): Promise<T> {
  if ('transaction' in db && typeof db.transaction === 'function' && !db.isTransaction)
    return db.transaction().execute(work);
  return work(db);
}

/**
 * gateway.db runs one write transaction at a time; PostgreSQL under READ COMMITTED would let two admins
 * disabling each other both see the other still active (write skew) and leave none. There, changes to roles
 * and states wait for each other on a transaction-scoped advisory lock.
 */
async function serializeAccountChanges(trx: DbOrTrx): Promise<void> {
  if (isPostgres(trx)) await sql`SELECT pg_advisory_xact_lock(1734440038)`.execute(trx);
}

/** Ends every console session of an operator (but `keepTokenHash`'s); returns how many. */
export async function endSessionsOf(db: DbOrTrx, operatorId: number, keepTokenHash?: string): Promise<number> {
  let query = db.deleteFrom('operator_sessions').where('operator_id', '=', operatorId);
  if (keepTokenHash) query = query.where('token_hash', '!=', keepTokenHash);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Changes an operator's role and/or disables or enables it. Refused (422 INVALID_STATE, motivo `last_admin`)
 * when it would leave no active admin: the check and the write are one statement, so two admins demoting
 * each other at once cannot both succeed. Disabling ends the operator's sessions and revokes its active
 * operator tokens in the same transaction (`revokedAt`: the tokens' clock, the appliance's).
 */
export async function updateOperator(
  db: DbOrTrx,
  id: number,
  change: { role?: OperatorRole; disabled?: boolean },
  at: { now: string; applianceNow: string },
): Promise<{
  operator: OperatorView;
  before: { role: OperatorRole; disabled: boolean };
  sessionsEnded: number;
  tokensRevoked: number;
}> {
  const result = await inTransaction(db, async (trx) => {
    await serializeAccountChanges(trx);
    const current = await findOperator(trx, { id });
    const before = { role: current.role, disabled: current.disabled_at !== null };
    const role = change.role ?? current.role;
    const disabled = change.disabled ?? before.disabled;
    const disabledAt = disabled ? (current.disabled_at ?? at.now) : null;
    // Leaving the active admins needs another active admin, checked in the UPDATE itself.
    const leavesAdmins = before.role === 'admin' && !before.disabled && (role !== 'admin' || disabled);
    const { rows } = await sql<{ id: number }>`
      UPDATE operators SET role = ${role}, disabled_at = ${disabledAt}
      WHERE id = ${id} AND (${leavesAdmins ? 1 : 0} = 0 OR EXISTS (
        SELECT 1 FROM operators AS other WHERE other.id != ${id} AND other.role = 'admin' AND other.disabled_at IS NULL))
      RETURNING id`.execute(trx);
    if (rows.length === 0) {
      throw refusal(
        'INVALID_STATE',
        'last_admin',
        `"${current.username}" e o ultimo admin ativo: promova outro operador a admin antes de ${disabled ? 'desativa-lo' : 'rebaixa-lo'}.`,
      );
    }
    let sessionsEnded = 0;
    let tokensRevoked = 0;
    if (disabled && !before.disabled) {
      sessionsEnded = await endSessionsOf(trx, id);
      const revoked = await trx
        .updateTable('operator_tokens')
        .set({ revoked_at: at.applianceNow })
        .where('operator_id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      tokensRevoked = Number(revoked.numUpdatedRows);
    }
    return { before, sessionsEnded, tokensRevoked };
  });
  return { ...result, operator: await viewOf(db, id, at) };
}

/**
 * A new generated password for an operator (an admin's reset, or the CLI's): returned once, every lock
 * on the username lifted, and every session of the operator ended (whoever held one must sign in with
 * the new password). Its operator tokens are not touched: revoke them on the Operator tokens page.
 */
export async function resetOperatorPassword(
  db: DbOrTrx,
  id: number,
  at: { now: string; applianceNow: string },
): Promise<{ operator: OperatorView; password: string; sessionsEnded: number }> {
  const target = await findOperator(db, { id });
  const password = generatePassword();
  await setOperatorPassword(db, target.username, password);
  const sessionsEnded = await endSessionsOf(db, id);
  return { operator: await viewOf(db, id, at), password, sessionsEnded };
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
  return `${groups
    .slice(0, 4)
    .map((g) => (Number.parseInt(g, 16) || 0).toString(16))
    .join(':')}::/64`;
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
  db: GatewayDb,
  credentials: { username: string; password: string; clientIp: string },
  policy: LockoutPolicy = DEFAULT_LOCKOUT,
  now: () => number = Date.now,
): Promise<LoginOutcome> {
  const at = now();
  const pair = { hash: usernameHash(credentials.username), address: lockoutAddress(credentials.clientIp) };
  const operator = await db
    .selectFrom('operators')
    .selectAll()
    .where('username', '=', credentials.username)
    .executeTakeFirst();
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
  if (counted.failures > policy.maxAttempts) {
    // Parallel attempts beyond the limit: refused like a lock, which the failing ones are about to set.
    return {
      ok: false,
      reason: 'locked',
      operatorId,
      retryAfterSeconds: await lockPair(db, pair, at + policy.lockMs, at),
    };
  }

  const valid = operator
    ? await verifyPassword(credentials.password, operator.password_hash)
    : await burnPasswordCheck(credentials.password);
  // A disabled account answers like a wrong password: the same 401, and the attempt stays counted.
  if (operator && valid && operator.disabled_at === null) {
    await db
      .deleteFrom('console_login_failures')
      .where('username_hash', '=', pair.hash)
      .where('address', '=', pair.address)
      .execute();
    return { ok: true, operator };
  }
  if (counted.failures >= policy.maxAttempts) {
    return {
      ok: false,
      reason: 'locked',
      operatorId,
      retryAfterSeconds: await lockPair(db, pair, at + policy.lockMs, at),
    };
  }
  return { ok: false, reason: 'invalid', operatorId };
}

type Pair = { hash: string; address: string };

/** One atomic statement: counts this attempt (a fresh count after a lock or a quiet `windowMs`), or leaves a live lock as is. */
async function countAttempt(
  db: GatewayDb,
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

/** Locks the pair until `until` unless a lock is already set; returns the seconds left on the lock. */
async function lockPair(db: GatewayDb, pair: Pair, until: number, at: number): Promise<number> {
  const { rows } = await sql<{ locked_until: number }>`
    UPDATE console_login_failures SET locked_until = COALESCE(locked_until, ${until})
    WHERE username_hash = ${pair.hash} AND address = ${pair.address}
    RETURNING locked_until`.execute(db);
  return Math.ceil(((rows[0]?.locked_until ?? until) - at) / 1000);
}

/**
 * An operator changes their own password: the current one is checked under the same lockout as a login
 * (a stolen session cannot guess it faster than the sign-in form could), then every other session of
 * the operator ends; the one making the change stays signed in.
 */
export async function changeOwnPassword(
  db: GatewayDb,
  input: { operatorId: number; currentPassword: string; newPassword: string; clientIp: string; keepTokenHash: string },
  policy: LockoutPolicy = DEFAULT_LOCKOUT,
  now: () => number = Date.now,
): Promise<{ sessionsEnded: number }> {
  const operator = await findOperator(db, { id: input.operatorId });
  const outcome = await attemptLogin(
    db,
    { username: operator.username, password: input.currentPassword, clientIp: input.clientIp },
    policy,
    now,
  );
  if (!outcome.ok && outcome.reason === 'locked') {
    throw new ApiError(
      'ADMIN_LOCKED',
      `Muitas tentativas invalidas deste endereco (${policy.maxAttempts}). Tente novamente mais tarde.`,
      { retry_after_segundos: outcome.retryAfterSeconds },
      { headers: { 'retry-after': String(outcome.retryAfterSeconds) } },
    );
  }
  if (!outcome.ok) throw new ApiError('VAL_INVALID_PARAM', 'Senha atual incorreta.', { field: 'current_password' });
  await setOperatorPassword(db, operator.username, input.newPassword);
  return { sessionsEnded: await endSessionsOf(db, operator.id, input.keepTokenHash) };
}
