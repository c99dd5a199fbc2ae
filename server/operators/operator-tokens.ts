import { createHash, randomBytes } from 'node:crypto';
import type { GatewayDb } from '../db/database.ts';
import type { OperatorToken } from '../db/tables/operator-tokens.ts';
import { ApiError, invalidParam } from '../errors.ts';
import { ALL_TENANTS, OPERATOR_TOKEN_MAX_DAYS, type OperatorTokenView } from '../../contracts/admin/operator-tokens.ts';

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

/** The clinics a token may act on: their slugs, or every clinic. */
export type TokenTenants = string[] | typeof ALL_TENANTS;

export interface ActiveOperatorToken {
  id: number;
  label: string;
  operatorId: number;
  tenants: TokenTenants;
  /** May create ephemeral clinics from its clinics (issue 30). */
  clone: boolean;
  /** The ephemeral clinics this token cloned (still there): it may act on them as on its own. */
  cloned: string[];
}

export interface IssueOperatorTokenRequest {
  operatorId: number;
  label: string;
  tenants: TokenTenants;
  expiresInDays: number;
  clone?: boolean;
}

const DAY_MS = 86_400_000;

/**
 * Operator API tokens: `ce_op_` + 32 random bytes (base64url). Shown once at creation; the table keeps
 * its SHA-256 (a high-entropy token needs no slow hash) and a short prefix to recognise it by. Each is
 * bound to named clinics (or, asked for explicitly, all of them) and expires (issue 19). `now` is the
 * appliance clock, so moving it in development mode expires tokens as time would.
 */
export class OperatorTokenStore {
  constructor(
    private readonly db: GatewayDb,
    private readonly now: () => number = Date.now,
  ) {}

  async create(input: IssueOperatorTokenRequest): Promise<{ token: string; view: OperatorTokenView }> {
    if (
      !Number.isInteger(input.expiresInDays) ||
      input.expiresInDays < 1 ||
      input.expiresInDays > OPERATOR_TOKEN_MAX_DAYS
    ) {
      throw invalidParam('expires_in_days', `Validade em dias: um inteiro de 1 a ${OPERATOR_TOKEN_MAX_DAYS}.`);
    }
    const all = input.tenants === ALL_TENANTS;
    const slugs = all ? [] : [...new Set(input.tenants as string[])];
    if (!all) await this.requireTenants(slugs);
    const token = OPERATOR_TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const now = this.now();
    const row = await this.db
      .insertInto('operator_tokens')
      .values({
        label: input.label,
        token_hash: sha256(token),
        token_prefix: token.slice(0, OPERATOR_TOKEN_PREFIX.length + 4),
        operator_id: input.operatorId,
        tenants: JSON.stringify(slugs),
        all_tenants: all ? 1 : 0,
        can_clone: input.clone ? 1 : 0,
        created_at: new Date(now).toISOString(),
        expires_at: new Date(now + input.expiresInDays * DAY_MS).toISOString(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { token, view: await this.get(row.id) };
  }

  async list(): Promise<OperatorTokenView[]> {
    const rows = await this.query().orderBy('operator_tokens.id', 'desc').execute();
    const now = this.now();
    return rows.map((row) => toView(row, now));
  }

  async get(id: number): Promise<OperatorTokenView> {
    const row = await this.query().where('operator_tokens.id', '=', id).executeTakeFirst();
    if (!row) throw new ApiError('RES_NOT_FOUND', 'Token de operador inexistente.');
    return toView(row, this.now());
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

  /**
   * Removes a token that can no longer be used (revoked or expired) from the list, for good (issue 22 § 7:
   * a suite's tokens do not pile up). An active token is refused (422 INVALID_STATE): revoke it first, so a
   * removal never ends a token anyone still relies on. The journal keeps its issue and revoke entries.
   */
  async remove(id: number): Promise<{ id: number; removido: true }> {
    const view = await this.get(id);
    if (view.status === 'active')
      throw new ApiError('INVALID_STATE', 'Token de operador ativo: revogue-o antes de remove-lo.');
    await this.db
      .deleteFrom('operator_tokens')
      .where('id', '=', id)
      .where((eb) =>
        eb.or([eb('revoked_at', 'is not', null), eb('expires_at', '<=', new Date(this.now()).toISOString())]),
      )
      .execute();
    return { id, removido: true };
  }

  /**
   * The token of an `Authorization: Bearer` header; 401 ADMIN_UNAUTHENTICATED when absent, unknown,
   * revoked or expired (each says which). `at`: the appliance time to judge the expiry by.
   */
  async authenticate(header: string | undefined, at: number = this.now()): Promise<ActiveOperatorToken> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
    if (!match) {
      throw new ApiError(
        'ADMIN_UNAUTHENTICATED',
        'Envie um token de operador em Authorization: Bearer <token> (emitido no console).',
      );
    }
    const token = match[1];
    const row = TOKEN_PATTERN.test(token)
      ? await this.db
          .selectFrom('operator_tokens')
          .select(['id', 'label', 'operator_id', 'revoked_at', 'expires_at', 'tenants', 'all_tenants', 'can_clone'])
          .where('token_hash', '=', sha256(token))
          .executeTakeFirst()
      : undefined;
    if (!row) throw new ApiError('ADMIN_UNAUTHENTICATED', 'Token de operador invalido.');
    if (row.revoked_at) throw new ApiError('ADMIN_UNAUTHENTICATED', 'Token de operador revogado.');
    if (isExpired(row.expires_at, at)) {
      throw new ApiError(
        'ADMIN_UNAUTHENTICATED',
        `Token de operador expirado em ${row.expires_at}. Emita outro no console.`,
      );
    }
    await this.db
      .updateTable('operator_tokens')
      .set({ last_used_at: new Date(at).toISOString() })
      .where('id', '=', row.id)
      .execute();
    // Bounded by the cap on ephemeral clinics (EPHEMERAL_CLINICS_MAX).
    const cloned = await this.db
      .selectFrom('tenants')
      .select('slug')
      .where('created_by_token_id', '=', row.id)
      .execute();
    return {
      id: row.id,
      label: row.label,
      operatorId: row.operator_id,
      tenants: tenantsOf(row),
      clone: row.can_clone === 1,
      cloned: cloned.map((t) => t.slug),
    };
  }

  /** Every slug names an existing clinic: 400 VAL_INVALID_PARAM on `tenants` listing those that do not. */
  private async requireTenants(slugs: string[]): Promise<void> {
    if (slugs.length === 0)
      throw invalidParam('tenants', 'Informe as clinicas do token (tenants: ["slug", ...]) ou "*" para todas.');
    const known = await this.db.selectFrom('tenants').select('slug').where('slug', 'in', slugs).execute();
    const found = new Set(known.map((t) => t.slug));
    const unknown = slugs.filter((slug) => !found.has(slug));
    if (unknown.length > 0) {
      throw invalidParam('tenants', `Clinica inexistente: ${unknown.join(', ')}.`, { desconhecidas: unknown });
    }
  }

  private query() {
    return this.db
      .selectFrom('operator_tokens')
      .leftJoin('operators', 'operators.id', 'operator_tokens.operator_id')
      .select([
        'operator_tokens.id',
        'operator_tokens.label',
        'operator_tokens.token_prefix',
        'operator_tokens.tenants',
        'operator_tokens.all_tenants',
        'operator_tokens.can_clone',
        'operator_tokens.created_at',
        'operator_tokens.expires_at',
        'operator_tokens.last_used_at',
        'operator_tokens.revoked_at',
        'operators.username',
      ]);
  }
}

/** An unreadable expiry counts as expired. */
const isExpired = (expiresAt: string, at: number): boolean => !(Date.parse(expiresAt) > at);

function tenantsOf(row: { tenants: string; all_tenants: number }): TokenTenants {
  if (row.all_tenants === 1) return ALL_TENANTS;
  try {
    const parsed: unknown = JSON.parse(row.tenants);
    return Array.isArray(parsed) ? parsed.filter((slug): slug is string => typeof slug === 'string') : [];
  } catch {
    return [];
  }
}

/** A token's row (its hash and issuer id left out) with the issuer's username. */
function toView(
  row: Omit<OperatorToken, 'token_hash' | 'operator_id'> & { username: string | null },
  now: number,
): OperatorTokenView {
  return {
    id: row.id,
    label: row.label,
    prefix: `${row.token_prefix}…`,
    operator: row.username,
    tenants: tenantsOf(row),
    created_at: row.created_at,
    expires_at: row.expires_at,
    last_used_at: row.last_used_at,
    revoked_at: row.revoked_at,
    clone: row.can_clone === 1,
    status: row.revoked_at ? 'revoked' : isExpired(row.expires_at, now) ? 'expired' : 'active',
  };
}

/** What the journal keeps of an issued token (never the token): the console's and the CLI's `operator_token.create`. */
export function issuedTokenDetail(view: OperatorTokenView): Record<string, unknown> {
  return {
    token_id: view.id,
    prefix: view.prefix,
    tenants: view.tenants,
    expires_at: view.expires_at,
    clone: view.clone,
  };
}

/** Whether the token may act on this clinic: one it is bound to, or an ephemeral clinic it cloned. */
export function tokenAllows(token: ActiveOperatorToken, slug: string): boolean {
  return token.tenants === ALL_TENANTS || token.tenants.includes(slug) || token.cloned.includes(slug);
}

/** 403 ADMIN_FORBIDDEN unless the token is bound to this clinic (or to all). */
export function requireTokenTenant(token: ActiveOperatorToken, slug: string): void {
  if (tokenAllows(token, slug)) return;
  const bound = token.tenants === ALL_TENANTS ? '*' : token.tenants.join(', ');
  throw new ApiError(
    'ADMIN_FORBIDDEN',
    `Este token de operador nao vale para a clinica "${slug}" (vale para: ${bound}).`,
    {
      field: 'slug',
      tenants: token.tenants,
    },
  );
}
