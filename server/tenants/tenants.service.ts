import { z } from 'zod';
import type { GatewayDb } from '../db/database.ts';
import { nowIso } from '../db/database.ts';
import type { Tenant } from '../db/tables/tenants.ts';
import type { Backend } from '../backend/client.ts';
import * as repo from './tenants.repository.ts';
import { ServiceError } from '../service-error.ts';
import { TENANT_SLUG_PATTERN } from '../../contracts/backend/tenants.ts';

/** A refusal of the tenant service (its code: server/service-error.ts). */
export class TenantServiceError extends ServiceError {}

export class TenantsService {
  constructor(
    private readonly db: GatewayDb,
    private readonly backend: Backend,
    /** Told after a change that affects authentication (the key cache drops what it resolved). */
    private readonly onChange: () => void = () => undefined,
  ) {}

  /** `active`, or `disabled`: every key of a disabled clinic gets AUTH_TENANT_OPEN_FAILED. */
  async setStatus(slug: string, status: 'active' | 'disabled'): Promise<void> {
    const result = await this.db.updateTable('tenants').set({ status }).where('slug', '=', slug).executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0)
      throw new TenantServiceError('tenant_not_found', `tenant "${slug}" does not exist`);
    this.onChange();
  }

  /** Registers the clinic in the gateway and asks backend-sim to create its database. */
  async create(input: {
    slug: string;
    nome: string;
    sandbox?: boolean;
  }): Promise<{ tenant: Tenant; backendReady: boolean }> {
    if (!TENANT_SLUG_PATTERN.test(input.slug)) {
      throw new TenantServiceError(
        'invalid_input',
        'slug must be 1-40 lowercase letters, digits or hyphens (no leading/trailing hyphen)',
      );
    }
    if (!input.nome.trim()) throw new TenantServiceError('invalid_input', 'name must not be empty');
    if (await repo.findTenantBySlug(this.db, input.slug))
      throw new TenantServiceError('tenant_exists', `tenant "${input.slug}" already exists`);
    const tenant = await repo.insertTenant(this.db, {
      slug: input.slug,
      nome: input.nome.trim(),
      is_sandbox: input.sandbox ? 1 : 0,
      created_at: nowIso(),
    });
    return { tenant, backendReady: await this.ensureBackendTenant(tenant) };
  }

  /**
   * Registers in the gateway a clinic whose backend database exists already (a snapshot import made it from
   * an archive): no call to backend-sim, which would touch the imported state (its settings' timestamp).
   */
  async register(input: { slug: string; nome: string }): Promise<Tenant> {
    if (!TENANT_SLUG_PATTERN.test(input.slug))
      throw new TenantServiceError('invalid_input', 'slug must be 1-40 lowercase letters, digits or hyphens');
    if (await repo.findTenantBySlug(this.db, input.slug))
      throw new TenantServiceError('tenant_exists', `tenant "${input.slug}" already exists`);
    return repo.insertTenant(this.db, {
      slug: input.slug,
      nome: input.nome.trim() || input.slug,
      is_sandbox: 0,
      created_at: nowIso(),
    });
  }

  async list(): Promise<Tenant[]> {
    return repo.listTenants(this.db);
  }

  async get(slug: string): Promise<Tenant | undefined> {
    return repo.findTenantBySlug(this.db, slug);
  }

  /** Idempotent; run for every tenant at start so tenants created while the stack was down get their database. */
  async ensureBackendTenant(tenant: Pick<Tenant, 'slug' | 'nome'>): Promise<boolean> {
    try {
      await this.backend.call(
        { method: 'POST', path: '/admin/tenants', body: { slug: tenant.slug, nome: tenant.nome } },
        z.unknown(),
      );
      return true;
    } catch {
      return false;
    }
  }

  /** Returns the slugs backend-sim could not confirm (backend down or refusing): the gateway still starts. */
  async syncAllToBackend(): Promise<string[]> {
    const failed: string[] = [];
    for (const tenant of await this.list()) {
      if (!(await this.ensureBackendTenant(tenant))) failed.push(tenant.slug);
    }
    return failed;
  }
}
