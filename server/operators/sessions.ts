import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { GatewayDb } from '../db/database.ts';
import type { OperatorRole } from '../../contracts/admin/operators.ts';

export interface SessionPolicy {
  /** Sliding idle timeout. */
  idleMs: number;
  /** Hard cap from login, whatever the activity. */
  absoluteMs: number;
}

export const DEFAULT_SESSION_POLICY: SessionPolicy = { idleMs: 8 * 3600_000, absoluteMs: 24 * 3600_000 };

export interface ActiveSession {
  tokenHash: string;
  operatorId: number;
  username: string;
  /** Read from the operator's row on every request: a role change applies to live sessions at once. */
  role: OperatorRole;
  createdAt: string;
  expiresAt: string;
}

const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');

/** The CSRF token is derived from the session token: bound to it, nothing extra to store, dies with it. */
export function csrfTokenFor(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('console-csrf-v1').digest('base64url');
}

export function csrfMatches(sessionToken: string, sent: string | undefined): boolean {
  if (!sent) return false;
  const expected = Buffer.from(csrfTokenFor(sessionToken));
  const actual = Buffer.from(sent);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

export class SessionStore {
  constructor(
    private readonly db: GatewayDb,
    private readonly policy: SessionPolicy = DEFAULT_SESSION_POLICY,
    private readonly now: () => number = Date.now,
  ) {}

  async create(
    operatorId: number,
    meta: { clientIp: string; userAgent: string },
  ): Promise<{ token: string; expiresAt: string }> {
    const token = randomBytes(32).toString('base64url');
    const at = new Date(this.now()).toISOString();
    const expiresAt = new Date(this.now() + this.policy.idleMs).toISOString();
    await this.db
      .insertInto('operator_sessions')
      .values({
        token_hash: sha256(token),
        operator_id: operatorId,
        created_at: at,
        last_seen_at: at,
        expires_at: expiresAt,
        client_ip: meta.clientIp,
        user_agent: meta.userAgent.slice(0, 300),
      })
      .execute();
    // Expired sessions are swept on login rather than by a timer.
    await this.db.deleteFrom('operator_sessions').where('expires_at', '<', at).execute();
    return { token, expiresAt };
  }

  /** The live session for a cookie token, its expiry slid forward; undefined when unknown or expired. */
  async resolve(token: string | undefined): Promise<ActiveSession | undefined> {
    if (!token || token.length > 100) return undefined;
    const tokenHash = sha256(token);
    const row = await this.db
      .selectFrom('operator_sessions')
      .innerJoin('operators', 'operators.id', 'operator_sessions.operator_id')
      .select([
        'operator_sessions.token_hash',
        'operator_sessions.operator_id',
        'operator_sessions.created_at',
        'operator_sessions.last_seen_at',
        'operator_sessions.expires_at',
        'operators.username',
        'operators.role',
        'operators.disabled_at',
      ])
      .where('operator_sessions.token_hash', '=', tokenHash)
      .executeTakeFirst();
    if (!row) return undefined;
    const now = this.now();
    const hardEnd = Date.parse(row.created_at) + this.policy.absoluteMs;
    // Disabling an operator deletes its sessions; a row that survived (written meanwhile) ends here.
    if (Date.parse(row.expires_at) <= now || hardEnd <= now || row.disabled_at !== null) {
      await this.db.deleteFrom('operator_sessions').where('token_hash', '=', tokenHash).execute();
      return undefined;
    }
    let expiresAt = row.expires_at;
    // Slide at most once a minute: a busy console does not write on every request.
    if (now - Date.parse(row.last_seen_at) > 60_000) {
      expiresAt = new Date(Math.min(now + this.policy.idleMs, hardEnd)).toISOString();
      await this.db
        .updateTable('operator_sessions')
        .set({ last_seen_at: new Date(now).toISOString(), expires_at: expiresAt })
        .where('token_hash', '=', tokenHash)
        .execute();
    }
    return {
      tokenHash,
      operatorId: row.operator_id,
      username: row.username,
      role: row.role,
      createdAt: row.created_at,
      expiresAt,
    };
  }

  async destroy(token: string): Promise<void> {
    await this.db.deleteFrom('operator_sessions').where('token_hash', '=', sha256(token)).execute();
  }
}
