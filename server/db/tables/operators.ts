import type { Generated, Selectable } from 'kysely';

export interface OperatorsTable {
  id: Generated<number>;
  username: string;
  /** scrypt: `scrypt$N$r$p$salt$hash` (base64 parts). */
  password_hash: string;
  failed_logins: number;
  locked_until: string | null;
  created_at: string;
}

export type Operator = Selectable<OperatorsTable>;
