import { createHash, randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { GatewayDb } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import type { OperatorTokenView } from './reset-schemas.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Automation route: authenticated by an operator API token (`Authorization: Bearer`), never by a session. */
    operatorToken?: boolean;
  }
}

export const OPERATOR_TOKEN_PREFIX = 'ce_op_';
const TOKEN_PATTERN = /^ce_op_[A-Za-z0-9_-]{43}$/;

const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');


export type { OperatorTokenView };

export interface ActiveOperatorToken {
  id: number;
  label: string;
  operatorId: number;
}

/**
 * Operator API tokens: `ce_op_` + 32 random bytes (base64url). Shown once at creation; the table keeps
 * its SHA-256 (a high-entropy token needs no slow hash) and a short prefix to recognise it by.
 */
export class OperatorTokenStore {
  constructor(
    private readonly db: GatewayDb,
    private readonly now: () => number = Date.now,
  ) {}

  async create(operatorId: number, label: string): Promise<{ token: string; view: OperatorTokenView }> {
    const token = OPERATOR_TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const row = await this.db
      .insertInto('operator_tokens')
      .values({
        label,
        token_hash: sha256(token),
        token_prefix: token.slice(0, OPERATOR_TOKEN_PREFIX.length + 4),
        operator_id: operatorId,
        created_at: new Date(this.now()).toISOString(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { token, view: await this.get(row.id) };
  }

  async list(): Promise<OperatorTokenView[]> {
    const rows = await this.query().orderBy('operator_tokens.id', 'desc').execute();
    return rows.map(toView);
  }

  async get(id: number): Promise<OperatorTokenView> {
    const row = await this.query().where('operator_tokens.id', '=', id).executeTakeFirst();
    if (!row) throw new ApiError('RES_NOT_FOUND', 'Token de operador inexistente.');
    return toView(row);
  }

  /** Revoked at once and for good; revoking twice is a no-op that answers the same view. */
  async revoke(id: number): Promise<OperatorTokenView> {
    await this.get(id);
    await this.db
      .updateTable('operator_tokens')
      .set({ revoked_at: new Date(this.now()).toISOString() })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .execute();
    return this.get(id);
  }

  /** The token of an `Authorization: Bearer` header; 401 ADMIN_UNAUTHENTICATED when absent, unknown or revoked. */
  async authenticate(header: string | undefined): Promise<ActiveOperatorToken> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
    if (!match) {
      throw new ApiError('ADMIN_UNAUTHENTICATED', 'Envie um token de operador em Authorization: Bearer <token> (emitido no console).');
    }
    const token = match[1];
    const row = TOKEN_PATTERN.test(token)
      ? await this.db.selectFrom('operator_tokens').select(['id', 'label', 'operator_id', 'revoked_at']).where('token_hash', '=', sha256(token)).executeTakeFirst()
      : undefined;
    if (!row) throw new ApiError('ADMIN_UNAUTHENTICATED', 'Token de operador invalido.');
    if (row.revoked_at) throw new ApiError('ADMIN_UNAUTHENTICATED', 'Token de operador revogado.');
    await this.db.updateTable('operator_tokens').set({ last_used_at: new Date(this.now()).toISOString() }).where('id', '=', row.id).execute();
    return { id: row.id, label: row.label, operatorId: row.operator_id };
  }

  private query() {
    return this.db
      .selectFrom('operator_tokens')
      .leftJoin('operators', 'operators.id', 'operator_tokens.operator_id')
      .select([
        'operator_tokens.id',
        'operator_tokens.label',
        'operator_tokens.token_prefix',
        'operator_tokens.created_at',
        'operator_tokens.last_used_at',
        'operator_tokens.revoked_at',
        'operators.username',
      ]);
  }
}

function toView(row: {
  id: number;
  label: string;
  token_prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  username: string | null;
}): OperatorTokenView {
  return {
    id: row.id,
    label: row.label,
    prefix: `${row.token_prefix}…`,
    operator: row.username,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    revoked_at: row.revoked_at,
    status: row.revoked_at ? 'revoked' : 'active',
  };
}

const authenticated = new WeakMap<FastifyRequest, ActiveOperatorToken>();

/** onRequest step of an automation route: the token becomes the request's principal (audited as its operator). */
export async function authenticateOperatorToken(request: FastifyRequest, store: OperatorTokenStore): Promise<void> {
  const token = await store.authenticate(request.headers.authorization);
  authenticated.set(request, token);
  request.adminAuditOperatorId = token.operatorId;
}

/** The operator token an automation request was authenticated with. */
export function operatorTokenOf(request: FastifyRequest): ActiveOperatorToken {
  const token = authenticated.get(request);
  if (!token) throw new ApiError('ADMIN_UNAUTHENTICATED', 'Token de operador ausente.');
  return token;
}
