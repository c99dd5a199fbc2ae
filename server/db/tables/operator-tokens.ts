import type { Generated, Selectable } from 'kysely';

/** Operator API tokens for the console API's automation routes; the token itself is never stored. */
export interface OperatorTokensTable {
  id: Generated<number>;
  label: string;
  /** SHA-256 (hex) of the token. */
  token_hash: string;
  /** `ce_op_` + the token's first 4 random characters, shown in the list. */
  token_prefix: string;
  /** The operator who issued it; automation calls are audited under this operator. */
  operator_id: number;
  /** JSON array of the clinic slugs it may act on (slugs never change); `[]` when all_tenants. */
  tenants: string;
  /** 1: every clinic, present and future (issued with `"*"`, or issued before migration 017). */
  all_tenants: number;
  created_at: string;
  /** ISO 8601 UTC of the appliance clock; refused from then on (401 ADMIN_UNAUTHENTICATED). */
  expires_at: string;
  last_used_at: string | null;
  /** Set once revoked; a revoked token is refused at once. */
  revoked_at: string | null;
  /** 1: may create ephemeral clinics from the clinics it is bound to (migration 023); default 0. */
  can_clone: Generated<number>;
}

export type OperatorToken = Selectable<OperatorTokensTable>;
