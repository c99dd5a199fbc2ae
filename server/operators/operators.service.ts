import type { DbOrTrx } from '../db/database.ts';
import { nowIso } from '../db/database.ts';
import type { Operator } from '../db/tables/operators.ts';
import { ApiError } from '../errors.ts';
import type { OperatorRefusal, OperatorRole, OperatorView } from '../../contracts/admin/operators.ts';
import { clearUsername } from './login-failures.repository.ts';
import { attemptLogin, DEFAULT_LOCKOUT, type LockoutPolicy, usernameHash } from './lockout.ts';
import {
  deleteSessionsOf,
  findOperatorId,
  findOperatorRow,
  findRoleAndState,
  inTransaction,
  insertOperator,
  listOperatorRows,
  type OperatorWhich,
  revokeTokensOf,
  serializeAccountChanges,
  updatePasswordHash,
  updateRoleAndState,
} from './operators.repository.ts';
import { generatePassword, hashPassword } from './password.ts';

/*
 * Operator accounts (issue 22 § 6): the console's Operators screen and the CLI's `operators` commands
 * share these. Messages are the console API's (Portuguese); `details.motivo` names the refusal for
 * callers that speak another language (the CLI).
 */

/** What a refusal is about (contracts/admin/operators.ts): the CLI and the console word each in English. */
export type { OperatorRefusal };

/** The clocks an account change is judged by: real time (sessions) and the appliance's (operator tokens). */
export type AccountClocks = { now: string; applianceNow: string };

const refusal = (
  code: 'RES_NOT_FOUND' | 'CONFLICT' | 'INVALID_STATE',
  motivo: OperatorRefusal,
  message: string,
  extra: Record<string, unknown> = {},
) => new ApiError(code, message, { motivo, ...extra });

/**
 * The issuing operator of an operator token, as it is now: a token acts as that operator, so it follows
 * the operator's role, and a disabled operator's tokens are refused (disabling also revokes them).
 */
export async function tokenOperatorRole(db: DbOrTrx, operatorId: number | null): Promise<OperatorRole> {
  const row = operatorId === null ? undefined : await findRoleAndState(db, operatorId);
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
  const existing = await findOperatorId(db, username);
  if (existing !== undefined) return { created: false, operatorId: existing };
  const plain = password ?? generatePassword();
  const operatorId = await insertOperator(db, {
    username,
    password_hash: await hashPassword(plain),
    created_at: nowIso(),
    role,
  });
  return { created: true, operatorId, ...(password === undefined ? { generatedPassword: plain } : {}) };
}

/** Sets the password and lifts every lock on the username (the way back for an operator locked out). */
export async function setOperatorPassword(db: DbOrTrx, username: string, password: string): Promise<boolean> {
  const updated = await updatePasswordHash(db, username, await hashPassword(password), nowIso());
  await clearUsername(db, usernameHash(username));
  return updated > 0;
}

/** Every operator, oldest first, with its live sessions and active tokens counted; `at` judges expiries. */
export async function listOperators(db: DbOrTrx, at: AccountClocks): Promise<OperatorView[]> {
  const rows = await listOperatorRows(db, at);
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
export async function findOperator(db: DbOrTrx, which: OperatorWhich): Promise<Operator> {
  const row = await findOperatorRow(db, which);
  if (!row) throw refusal('RES_NOT_FOUND', 'unknown_operator', 'Operador inexistente.');
  return row;
}

async function viewOf(db: DbOrTrx, id: number, at: AccountClocks): Promise<OperatorView> {
  const view = (await listOperators(db, at)).find((o) => o.id === id);
  if (!view) throw refusal('RES_NOT_FOUND', 'unknown_operator', 'Operador inexistente.');
  return view;
}

/** A new account with a generated password, returned once (it is stored only as its scrypt hash). */
export async function createOperator(
  db: DbOrTrx,
  input: { username: string; role: OperatorRole },
  at: AccountClocks,
): Promise<{ operator: OperatorView; password: string }> {
  if ((await findOperatorId(db, input.username)) !== undefined)
    throw refusal('CONFLICT', 'username_taken', `Ja existe um operador "${input.username}".`, { field: 'username' });
  const password = generatePassword();
  const id = await insertOperator(db, {
    username: input.username,
    role: input.role,
    password_hash: await hashPassword(password),
    created_at: at.now,
  });
  return { operator: await viewOf(db, id, at), password };
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
  at: AccountClocks,
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
    if (!(await updateRoleAndState(trx, id, { role, disabledAt, leavesAdmins }))) {
      throw refusal(
        'INVALID_STATE',
        'last_admin',
        `"${current.username}" e o ultimo admin ativo: promova outro operador a admin antes de ${disabled ? 'desativa-lo' : 'rebaixa-lo'}.`,
      );
    }
    const disabling = disabled && !before.disabled;
    return {
      before,
      sessionsEnded: disabling ? await deleteSessionsOf(trx, id) : 0,
      tokensRevoked: disabling ? await revokeTokensOf(trx, id, at.applianceNow) : 0,
    };
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
  at: AccountClocks,
): Promise<{ operator: OperatorView; password: string; sessionsEnded: number }> {
  const target = await findOperator(db, { id });
  const password = generatePassword();
  await setOperatorPassword(db, target.username, password);
  const sessionsEnded = await deleteSessionsOf(db, id);
  return { operator: await viewOf(db, id, at), password, sessionsEnded };
}

/**
 * An operator changes their own password: the current one is checked under the same lockout as a login
 * (a stolen session cannot guess it faster than the sign-in form could), then every other session of
 * the operator ends; the one making the change stays signed in.
 */
export async function changeOwnPassword(
  db: DbOrTrx,
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
  return { sessionsEnded: await deleteSessionsOf(db, operator.id, input.keepTokenHash) };
}
