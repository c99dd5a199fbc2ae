import { sql } from 'kysely';
import { isPostgres } from '../db/dialect.ts';
import type { DbOrTrx } from '../db/database.ts';
import type { Operator } from '../db/tables/operators.ts';
import type { OperatorRole } from '../../contracts/admin/operators.ts';

/** The operator accounts' SQL (gateway.db or PostgreSQL, through Kysely); the rules are in operators.service.ts. */

export type OperatorWhich = { id: number } | { username: string };

export async function findOperatorRow(db: DbOrTrx, which: OperatorWhich): Promise<Operator | undefined> {
  let query = db.selectFrom('operators').selectAll();
  query = 'id' in which ? query.where('id', '=', which.id) : query.where('username', '=', which.username);
  return query.executeTakeFirst();
}

export async function findOperatorId(db: DbOrTrx, username: string): Promise<number | undefined> {
  const row = await db.selectFrom('operators').select('id').where('username', '=', username).executeTakeFirst();
  return row?.id;
}

/** The role and state of an operator, as they are now. */
export async function findRoleAndState(
  db: DbOrTrx,
  id: number,
): Promise<{ role: OperatorRole; disabled_at: string | null } | undefined> {
  return db.selectFrom('operators').select(['role', 'disabled_at']).where('id', '=', id).executeTakeFirst();
}

export async function insertOperator(
  db: DbOrTrx,
  values: { username: string; password_hash: string; created_at: string; role: OperatorRole },
): Promise<number> {
  const row = await db.insertInto('operators').values(values).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export type OperatorRowWithCounts = Pick<
  Operator,
  'id' | 'username' | 'role' | 'created_at' | 'disabled_at' | 'password_changed_at'
> & { sessions: number | null; tokens: number | null };

/** Every operator, oldest first, with its sessions live at `at.now` and its tokens active at `at.applianceNow`. */
export async function listOperatorRows(
  db: DbOrTrx,
  at: { now: string; applianceNow: string },
): Promise<OperatorRowWithCounts[]> {
  return db
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
}

/** Returns how many rows changed (0: no such username). */
export async function updatePasswordHash(
  db: DbOrTrx,
  username: string,
  passwordHash: string,
  changedAt: string,
): Promise<number> {
  const result = await db
    .updateTable('operators')
    .set({ password_hash: passwordHash, password_changed_at: changedAt })
    .where('username', '=', username)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Sets an operator's role and state. When `leavesAdmins` (the change takes an active admin away), the row
 * is only written while another active admin exists, checked in the UPDATE itself: two admins demoting each
 * other at once cannot both succeed. Returns whether the row was written.
 */
export async function updateRoleAndState(
  db: DbOrTrx,
  id: number,
  change: { role: OperatorRole; disabledAt: string | null; leavesAdmins: boolean },
): Promise<boolean> {
  const { rows } = await sql<{ id: number }>`
      UPDATE operators SET role = ${change.role}, disabled_at = ${change.disabledAt}
      WHERE id = ${id} AND (${change.leavesAdmins ? 1 : 0} = 0 OR EXISTS (
        SELECT 1 FROM operators AS other WHERE other.id != ${id} AND other.role = 'admin' AND other.disabled_at IS NULL))
      RETURNING id`.execute(db);
  return rows.length > 0;
}

/** Ends every console session of an operator (but `keepTokenHash`'s); returns how many. */
export async function deleteSessionsOf(db: DbOrTrx, operatorId: number, keepTokenHash?: string): Promise<number> {
  let query = db.deleteFrom('operator_sessions').where('operator_id', '=', operatorId);
  if (keepTokenHash) query = query.where('token_hash', '!=', keepTokenHash);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Revokes the operator's tokens not yet revoked; returns how many. */
export async function revokeTokensOf(db: DbOrTrx, operatorId: number, revokedAt: string): Promise<number> {
  const revoked = await db
    .updateTable('operator_tokens')
    .set({ revoked_at: revokedAt })
    .where('operator_id', '=', operatorId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(revoked.numUpdatedRows);
}

export async function inTransaction<T>(db: DbOrTrx, work: (trx: DbOrTrx) => Promise<T>): Promise<T> {
  if ('transaction' in db && typeof db.transaction === 'function' && !db.isTransaction)
    return db.transaction().execute(work);
  return work(db);
}

/**
 * gateway.db runs one write transaction at a time; PostgreSQL under READ COMMITTED would let two admins
 * disabling each other both see the other still active (write skew) and leave none. There, changes to roles
 * and states wait for each other on a transaction-scoped advisory lock.
 */
export async function serializeAccountChanges(trx: DbOrTrx): Promise<void> {
  if (isPostgres(trx)) await sql`SELECT pg_advisory_xact_lock(1734440038)`.execute(trx);
}
