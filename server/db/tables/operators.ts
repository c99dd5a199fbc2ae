import type { Generated, Selectable } from 'kysely';

import type { OperatorRole } from '../../../contracts/admin/operators.ts';

export interface OperatorsTable {
  id: Generated<number>;
  username: string;
  /** scrypt: `scrypt$N$r$p$salt$hash` (base64 parts). */
  password_hash: string;
  created_at: string;
  /** Migration 020; operators that existed before it are admins. */
  role: Generated<OperatorRole>;
  /** Set while the account is disabled: no sign-in, its sessions and tokens refused. */
  disabled_at: string | null;
  /** Last change (by the operator) or reset (by an admin or the CLI). */
  password_changed_at: string | null;
}

export type Operator = Selectable<OperatorsTable>;
