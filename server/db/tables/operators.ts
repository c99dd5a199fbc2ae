import type { Generated, Selectable } from 'kysely';

export interface OperatorsTable {
  id: Generated<number>;
  username: string;
  /** scrypt: `scrypt$N$r$p$salt$hash` (base64 parts). */
  password_hash: string;
  created_at: string;
}

export type Operator = Selectable<OperatorsTable>;
