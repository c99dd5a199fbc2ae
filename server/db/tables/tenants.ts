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
}

export type Tenant = Selectable<TenantsTable>;
