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
  created_at: string;
  last_used_at: string | null;
  /** Set once revoked; a revoked token is refused at once. */
  revoked_at: string | null;
}

export type OperatorToken = Selectable<OperatorTokensTable>;
