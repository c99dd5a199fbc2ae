import type { DbOrTrx } from '../db/database.ts';
import type { Tenant } from '../db/tables/tenants.ts';

export async function findTenantBySlug(db: DbOrTrx, slug: string): Promise<Tenant | undefined> {
  return db.selectFrom('tenants').selectAll().where('slug', '=', slug).executeTakeFirst();
}

export async function findTenantById(db: DbOrTrx, id: number): Promise<Tenant | undefined> {
  return db.selectFrom('tenants').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listTenants(db: DbOrTrx): Promise<Tenant[]> {
  return db.selectFrom('tenants').selectAll().orderBy('id').execute();
}

export async function insertTenant(
  db: DbOrTrx,
  values: Pick<Tenant, 'slug' | 'nome' | 'is_sandbox' | 'created_at'>,
): Promise<Tenant> {
  return db
    .insertInto('tenants')
    .values({ ...values, status: 'active' })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The clinic's display name, kept in step with backend-sim's settings. */
export async function renameTenant(db: DbOrTrx, id: number, nome: string): Promise<void> {
  await db.updateTable('tenants').set({ nome }).where('id', '=', id).execute();
}
