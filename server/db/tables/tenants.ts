import type { Generated, Selectable } from 'kysely';

export interface TenantsTable {
  id: Generated<number>;
  slug: string;
  nome: string;
  /** 1 for the public sandbox: a lower rate limit, and no writes but the agenda's (OPERATION_NOT_ALLOWED; auth-plugin.ts). */
  is_sandbox: number;
  /** `active` or `disabled`; a disabled tenant fails with AUTH_TENANT_OPEN_FAILED. */
  status: string;
  created_at: string;
  /** An ephemeral clinic's template (`slug`, or `slug@snapshot`); null for a permanent clinic (migration 023). */
  template: string | null;
  /** When the clone sweeper drops it (ISO 8601 UTC, appliance clock); null: never. */
  expires_at: string | null;
  /** The operator token that cloned it, if one did: that token may act on it. */
  created_by_token_id: number | null;
  /** Set by the gateway that claimed its drop; its keys are refused from then on. */
  dropping_at: string | null;
}

export type Tenant = Selectable<TenantsTable>;
