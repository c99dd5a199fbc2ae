import type { Generated, Selectable } from 'kysely';

export interface TenantsTable {
  id: Generated<number>;
  slug: string;
  nome: string;
  /** 1 for the public sandbox: lower rate limit, read-only keys. */
  is_sandbox: number;
  /** `active` or `disabled`; a disabled tenant fails with AUTH_TENANT_OPEN_FAILED. */
  status: string;
  created_at: string;
}

export type Tenant = Selectable<TenantsTable>;
