import type { DbOrTrx } from '../db/database.ts';
import type { ApiKeyRow } from '../db/tables/api-keys.ts';
import type { Tenant } from '../db/tables/tenants.ts';

export interface KeyWithTenant {
  key: ApiKeyRow;
  tenant: Pick<Tenant, 'id' | 'slug' | 'nome' | 'status' | 'is_sandbox'> | null;
}

export type KeyTenantRow = ApiKeyRow & {
  t_id: number | null;
  t_slug: string | null;
  t_nome: string | null;
  t_status: string | null;
  t_is_sandbox: number | null;
};

export function splitKeyRow(row: KeyTenantRow | undefined): KeyWithTenant | undefined {
  if (!row) return undefined;
  const { t_id, t_slug, t_nome, t_status, t_is_sandbox, ...key } = row;
  return {
    key,
    tenant:
      t_id === null ? null : { id: t_id, slug: t_slug!, nome: t_nome!, status: t_status!, is_sandbox: t_is_sandbox! },
  };
}

export async function findKeyById(db: DbOrTrx, id: number): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Active keys per tenant id (the console's clinic list). */
export async function countActiveKeysByTenant(db: DbOrTrx): Promise<Map<number, number>> {
  const counts = await db
    .selectFrom('api_keys')
    .select(['tenant_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('status', '=', 'active')
    .groupBy('tenant_id')
    .execute();
  return new Map(counts.map((c) => [c.tenant_id, Number(c.n)]));
}

export async function listKeys(db: DbOrTrx, tenantId?: number): Promise<ApiKeyRow[]> {
  let query = db.selectFrom('api_keys').selectAll().orderBy('id');
  if (tenantId !== undefined) query = query.where('tenant_id', '=', tenantId);
  return query.execute();
}

export async function insertKey(
  db: DbOrTrx,
  values: Pick<ApiKeyRow, 'tenant_id' | 'api_key' | 'label' | 'scopes' | 'medico_id' | 'format' | 'created_at'>,
): Promise<number> {
  const result = await db
    .insertInto('api_keys')
    .values({ ...values, status: 'active', secret_version: 1 })
    .returning('id')
    .executeTakeFirstOrThrow();
  return result.id;
}

export async function updateKey(
  db: DbOrTrx,
  id: number,
  values: Partial<Omit<ApiKeyRow, 'id' | 'api_key' | 'tenant_id'>>,
): Promise<void> {
  await db.updateTable('api_keys').set(values).where('id', '=', id).execute();
}
