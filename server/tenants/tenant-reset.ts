import { z } from 'zod';
import type { Backend } from '../backend/client.ts';
import { tenantPath } from '../../contracts/backend/tenants.ts';
import { backendTenantReset } from '../../contracts/backend/admin.ts';
import type { GatewayDb } from '../db/database.ts';
import { TenantServiceError } from './tenants.service.ts';
import type { TenantResetResult } from '../../contracts/admin/tenants.ts';

export interface TenantResetOptions {
  /** Also delete the objects uploaded for the tenant in storage. */
  files?: boolean;
}

/** The environment variable that allows a reset with APP_ENV=production. */
export const TENANT_RESET_OPT_IN = 'ALLOW_TENANT_RESET';

/**
 * A reset is a development/test feature (issue 19): in production it is refused unless the operator
 * opted in with ALLOW_TENANT_RESET=true. Null when allowed; otherwise why not, naming the opt-in.
 * The console API answers the refusal 403 OPERATION_NOT_ALLOWED, as it does the clock control.
 */
export function tenantResetRefusal(policy: { development: boolean; optIn: boolean }): string | null {
  if (policy.development || policy.optIn) return null;
  return `tenant reset is disabled with APP_ENV=production: set ${TENANT_RESET_OPT_IN}=true to allow it`;
}

/**
 * Puts a tenant back to its first-start state (issue 13): backend-sim restores the clinic database from
 * the copy taken at the tenant's first start (and drops its idempotency markers and, if asked, its
 * uploads); then the gateway forgets the idempotency keys of the tenant's API keys and takes the
 * clinic's first-start name back. Keys, scopes, bindings and secrets stay: a reset is about data, not
 * credentials. The journal stays too (issue 19): a reset never deletes an audit entry, and its caller
 * writes one saying what it reset. Used by the CLI, the console and the automation route; each checks
 * tenantResetRefusal first.
 */
export type { TenantResetResult };

export async function resetTenant(
  deps: { db: GatewayDb; backend: Backend },
  slug: string,
  options: TenantResetOptions = {},
): Promise<TenantResetResult> {
  const started = performance.now();
  const tenant = await deps.db.selectFrom('tenants').select(['id', 'slug']).where('slug', '=', slug).executeTakeFirst();
  if (!tenant) throw new TenantServiceError('tenant_not_found', `tenant "${slug}" does not exist`);
  const { data } = await deps.backend.call(
    { method: 'POST', path: `/admin${tenantPath(slug, '/reset')}`, body: { files: Boolean(options.files) } },
    backendTenantReset,
  );
  // After the backend: a write that raced the reset and recorded its key is forgotten with the others.
  const keysRemoved = await forgetClinicState(deps.db, tenant.id, data.nome);
  return {
    slug,
    nome: data.nome,
    rows_restored: data.rows,
    idempotency_keys_removed: keysRemoved,
    idempotency_markers_removed: data.idempotency_markers_removed,
    files_removed: data.files_removed,
    database_ms: data.database_ms,
    duration_ms: Math.round((performance.now() - started) * 10) / 10,
  };
}

/**
 * What the gateway does once backend-sim put a clinic's state back (a reset, a snapshot restore or import):
 * forgets the idempotency keys of the clinic's API keys, so no replay answers a body from the other state,
 * and takes the restored state's clinic name (it lives in both places). Returns the keys removed.
 */
export async function forgetClinicState(db: GatewayDb, tenantId: number, nome: string): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const keys = await trx
      .deleteFrom('idempotency_keys')
      .where('chave_id', 'in', trx.selectFrom('api_keys').select('id').where('tenant_id', '=', tenantId))
      .executeTakeFirst();
    await trx.updateTable('tenants').set({ nome }).where('id', '=', tenantId).execute();
    return Number(keys.numDeletedRows);
  });
}

/** Records the tenant's current state as its first-start state (first start, after seeding and registering). */
export async function takeFirstStartSnapshot(backend: Backend, slug: string): Promise<void> {
  await backend.call(
    { method: 'POST', path: `/admin${tenantPath(slug, '/pristine')}`, body: { replace: true } },
    z.unknown(),
  );
}
