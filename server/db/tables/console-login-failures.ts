import type { Selectable } from 'kysely';

/** Failed console logins per (username, client address): the lockout's state (server/operators/lockout.ts). */
export interface ConsoleLoginFailuresTable {
  /** SHA-256 (hex) of the username as typed, whether or not an operator has it. */
  username_hash: string;
  /** IPv4 address, or the /64 prefix of an IPv6 address (`2001:db8:1:2::/64`). */
  address: string;
  /** Consecutive failed attempts, counted before the password is checked. */
  failures: number;
  /** Epoch ms; set once `failures` reaches the policy's maximum. */
  locked_until: number | null;
  /** Epoch ms; a count older than the lock length starts over. */
  last_failure_at: number;
}

export type ConsoleLoginFailure = Selectable<ConsoleLoginFailuresTable>;
