import { chmodSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { openTenantDatabase, type TenantDatabase } from './db/database.ts';
import { BackendError } from './errors.ts';
import { TENANT_SLUG_PATTERN as SLUG_PATTERN } from '../contracts/backend/tenants.ts';

/** The gateway's slug rule (contracts/backend/tenants.ts): it names the database files. */
export { SLUG_PATTERN };

export function tenantDir(dataDir: string): string {
  return join(dataDir, 'backend');
}

export function tenantFile(dataDir: string, slug: string): string {
  return join(tenantDir(dataDir), `${slug}.db`);
}

/** Creates (if absent) and migrates a tenant database; used by the admin API and the seed. */
export async function createTenantDatabase(dataDir: string, slug: string): Promise<TenantDatabase> {
  if (!SLUG_PATTERN.test(slug)) throw new Error(`invalid tenant slug: ${slug}`);
  // Owner-only (chmod too: mkdir's mode is filtered by the umask, and the directory may predate this).
  mkdirSync(tenantDir(dataDir), { recursive: true, mode: 0o700 });
  chmodSync(tenantDir(dataDir), 0o700);
  return openTenantDatabase(tenantFile(dataDir, slug), { create: true });
}

/** Keeps one open connection per tenant for the life of the service. */
export class TenantRegistry {
  private readonly open = new Map<string, Promise<TenantDatabase>>();
  /** The databases whose opening has finished, for the request path to take without awaiting. */
  private readonly ready = new Map<string, TenantDatabase>();

  /** Clinics being dropped: `get` answers TENANT_NOT_FOUND for them while their files go. */
  private readonly dropping = new Set<string>();

  constructor(private readonly dataDir: string) {}

  slugs(): string[] {
    const dir = tenantDir(this.dataDir);
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .filter((f) => f.endsWith('.db'))
      .map((f) => f.slice(0, -3))
      .filter((s) => SLUG_PATTERN.test(s))
      .sort();
  }

  exists(slug: string): boolean {
    return SLUG_PATTERN.test(slug) && !this.dropping.has(slug) && existsSync(tenantFile(this.dataDir, slug));
  }

  /** The tenant's database if it is open already (else `get` opens it). */
  opened(slug: string): TenantDatabase | undefined {
    return this.ready.get(slug);
  }

  /** Opens an existing tenant; 404 TENANT_NOT_FOUND / 500 TENANT_OPEN_FAILED. */
  async get(slug: string): Promise<TenantDatabase> {
    const cached = this.open.get(slug);
    if (cached) return cached;
    if (!this.exists(slug)) throw new BackendError('TENANT_NOT_FOUND', 'Clinica nao encontrada.');
    return this.remember(slug, openTenantDatabase(tenantFile(this.dataDir, slug), { create: false }));
  }

  /** Idempotent create: returns the open database and whether it already existed. */
  async create(slug: string): Promise<{ tenant: TenantDatabase; created: boolean }> {
    const existed = this.exists(slug);
    const cached = this.open.get(slug);
    if (cached) return { tenant: await cached, created: false };
    const tenant = await this.remember(slug, createTenantDatabase(this.dataDir, slug));
    return { tenant, created: !existed };
  }

  private async remember(slug: string, opening: Promise<TenantDatabase>): Promise<TenantDatabase> {
    const guarded = opening.then(
      (tenant) => {
        // Still the one remembered (closeAll may have cleared it meanwhile).
        if (this.open.get(slug) === guarded) this.ready.set(slug, tenant);
        return tenant;
      },
      (err: unknown) => {
        this.open.delete(slug);
        throw new BackendError('TENANT_OPEN_FAILED', 'Falha ao abrir o banco da clinica.', {
          causa: err instanceof Error ? err.message : String(err),
        });
      },
    );
    this.open.set(slug, guarded);
    return guarded;
  }

  /**
   * Drops a clinic (issue 30): no new request opens it; the request holding its connection finishes; the
   * connection closes; then `remove` deletes its files. Nothing is left open on a deleted file.
   */
  async drop<T>(slug: string, remove: () => T | Promise<T>): Promise<T> {
    this.dropping.add(slug);
    try {
      const opening = this.open.get(slug);
      this.open.delete(slug);
      this.ready.delete(slug);
      const tenant = opening ? await opening.catch(() => null) : null;
      if (tenant) {
        // Kysely's mutex: queued after whatever request holds the connection now.
        await tenant.db.connection().execute(async () => undefined);
        await tenant.close();
      }
      return await remove();
    } finally {
      this.dropping.delete(slug);
    }
  }

  async closeAll(): Promise<void> {
    const all = [...this.open.values()];
    this.open.clear();
    this.ready.clear();
    await Promise.all(all.map(async (p) => (await p.catch(() => null))?.close()));
  }
}
