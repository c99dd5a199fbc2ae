import type { Selectable } from 'kysely';

/** Console sessions; the cookie holds a random token, the table only its SHA-256. */
export interface OperatorSessionsTable {
  token_hash: string;
  operator_id: number;
  created_at: string;
  last_seen_at: string;
  /** ISO 8601 UTC; sliding: pushed forward on use. */
  expires_at: string;
  client_ip: string;
  user_agent: string;
}

export type OperatorSession = Selectable<OperatorSessionsTable>;
