import { sql, type ExpressionBuilder } from 'kysely';
import type { Database } from '../db/database.ts';
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

/** The keys list's filters (issue 31 § 3): every one optional, combined with AND. */
export interface KeyFilter {
  /** Lower-cased text matched against the label and the api_key (its prefix), or these doctors / key ids. */
  text?: { like: string; medicoIds: number[]; keyIds: number[] };
  /** One scope the key must hold. */
  scope?: string;
  status?: 'active' | 'expired' | 'inactive' | 'revoked' | 'current';
  /** Active keys whose expiry lies in (now, this ISO time]. */
  expiringBefore?: string;
  /** Appliance time (ISO 8601 UTC), against which `expired` is judged. */
  now: string;
  limit?: number;
  offset?: number;
}

const likePattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function filtered(db: DbOrTrx, tenantId: number, f: KeyFilter) {
  let query = db.selectFrom('api_keys').where('tenant_id', '=', tenantId);
  if (f.text) {
    const { like, medicoIds, keyIds } = f.text;
    const pattern = likePattern(like);
    query = query.where((eb) =>
      eb.or([
        eb(eb.fn('lower', ['label']), 'like', sql<string>`${pattern} escape '\\'`),
        eb('api_key', 'like', sql<string>`${pattern} escape '\\'`),
        ...(medicoIds.length ? [eb('medico_id', 'in', medicoIds)] : []),
        ...(keyIds.length ? [eb('id', 'in', keyIds)] : []),
      ]),
    );
  }
  // Scopes are a JSON array of strings: a scope is held when its quoted name is in it.
  if (f.scope) query = query.where('scopes', 'like', `%"${f.scope}"%`);
  const notExpired = (eb: ExpressionBuilder<Database, 'api_keys'>) =>
    eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', f.now)]);
  if (f.status === 'active') query = query.where('status', '=', 'active').where(notExpired);
  else if (f.status === 'expired')
    query = query.where('status', '=', 'active').where('expires_at', 'is not', null).where('expires_at', '<=', f.now);
  else if (f.status === 'current') query = query.where('status', '!=', 'revoked');
  else if (f.status) query = query.where('status', '=', f.status);
  if (f.expiringBefore)
    query = query
      .where('status', '=', 'active')
      .where('expires_at', '>', f.now)
      .where('expires_at', '<=', f.expiringBefore);
  return query;
}

/** One page of a clinic's keys matching `f` (by id), and how many match in all. */
export async function searchKeys(
  db: DbOrTrx,
  tenantId: number,
  f: KeyFilter,
): Promise<{ rows: ApiKeyRow[]; total: number }> {
  let page = filtered(db, tenantId, f).selectAll().orderBy('id');
  if (f.limit !== undefined) page = page.limit(f.limit).offset(f.offset ?? 0);
  else if (f.offset) page = page.limit(1_000_000).offset(f.offset);
  const [rows, count] = await Promise.all([
    page.execute(),
    filtered(db, tenantId, f)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export async function insertKey(
  db: DbOrTrx,
  values: Pick<ApiKeyRow, 'tenant_id' | 'api_key' | 'label' | 'scopes' | 'medico_id' | 'format' | 'created_at'> &
    Partial<Pick<ApiKeyRow, 'expires_at'>>,
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
