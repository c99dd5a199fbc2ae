import { randomBytes } from 'node:crypto';
import type { GatewayDb } from '../db/database.ts';
import { nowIso } from '../db/database.ts';
import type { ApiKeyRow } from '../db/tables/api-keys.ts';
import { isScope, type Scope } from '../../contracts/scopes.ts';
import type { SecretBox } from './secret-box.ts';
import * as repo from './keys.repository.ts';
import { findTenantBySlug } from '../tenants/tenants.repository.ts';
import { ServiceError } from '../service-error.ts';
import { KEY_EXPIRY_MAX_DAYS } from '../../contracts/admin/keys.ts';

export const API_KEY_PREFIX = 'ce_live_';
export const API_KEY_PATTERN = /^[a-z]{2}_live_[0-9a-f]{32}$/;

export interface IssuedCredentials {
  chave_id: number;
  api_key: string;
  /** Shown once, at creation or rotation; never stored in clear. */
  api_secret: string;
}

export interface KeySummary {
  id: number;
  tenant_id: number;
  api_key_masked: string;
  label: string;
  escopos: Scope[];
  medico_id: number;
  status: string;
  format: string;
  created_at: string;
  rotated_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  /** ISO 8601 UTC (appliance clock) from which the key is refused as expired; null: never. */
  expires_at: string | null;
  /** Past `expires_at` by the appliance clock now. */
  expired: boolean;
}

/** The keys list's filters (console, CLI, console and automation API: the same names). */
export interface KeyListFilter {
  /** Label, key prefix, `#id` or doctor: ids of doctors whose name matches are passed in `medicoIds`. */
  q?: string;
  medicoIds?: number[];
  scope?: Scope;
  status?: repo.KeyFilter['status'];
  /** Active keys expiring within this many days. */
  expiring?: number;
  limit?: number;
  offset?: number;
}

/** An expiry as asked for: a date-time, a number of days from now, or null (never). */
export interface ExpiryInput {
  expiresAt?: string | null;
  expiresInDays?: number;
}

const DAY_MS = 86_400_000;

/**
 * The stored expiry for `input` against appliance time `now`: undefined when nothing was asked, null for never,
 * else the ISO 8601 UTC instant (always `toISOString()`, so that stored times compare as text). In the future,
 * at most KEY_EXPIRY_MAX_DAYS ahead; `field` names what is at fault.
 */
export function resolveExpiry(input: ExpiryInput, now: number): string | null | undefined {
  const { expiresAt, expiresInDays } = input;
  if (expiresAt != null && expiresInDays !== undefined)
    throw new KeyServiceError('invalid_input', 'give an expiry date or a number of days, not both', 'expires_in_days');
  if (expiresInDays !== undefined) {
    if (!Number.isInteger(expiresInDays) || expiresInDays < 1 || expiresInDays > KEY_EXPIRY_MAX_DAYS)
      throw new KeyServiceError(
        'invalid_input',
        `expires in days must be a whole number from 1 to ${KEY_EXPIRY_MAX_DAYS}`,
        'expires_in_days',
      );
    return new Date(now + expiresInDays * DAY_MS).toISOString();
  }
  if (expiresAt === undefined) return undefined;
  if (expiresAt === null) return null;
  const at = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(expiresAt)
    ? Date.parse(expiresAt)
    : Number.NaN;
  if (Number.isNaN(at))
    throw new KeyServiceError(
      'invalid_input',
      `expiry "${expiresAt}" is not an ISO 8601 date-time with a zone (e.g. 2027-01-31T18:00:00Z)`,
      'expires_at',
    );
  if (at <= now)
    throw new KeyServiceError(
      'invalid_input',
      `expiry ${new Date(at).toISOString()} is not in the future (appliance time ${new Date(now).toISOString()})`,
      'expires_at',
    );
  if (at > now + KEY_EXPIRY_MAX_DAYS * DAY_MS)
    throw new KeyServiceError(
      'invalid_input',
      `expiry ${new Date(at).toISOString()} is more than ${KEY_EXPIRY_MAX_DAYS} days (5 years) ahead`,
      'expires_at',
    );
  return new Date(at).toISOString();
}

/** Whether a key row is past its expiry at appliance time `now` (epoch ms). */
export function isExpired(row: Pick<ApiKeyRow, 'expires_at'>, now: number): boolean {
  return row.expires_at !== null && Date.parse(row.expires_at) <= now;
}

/** A refusal of the key service (its code: server/service-error.ts). */
export class KeyServiceError extends ServiceError {}

/** A key as authentication needs it: row, tenant, decrypted secret and parsed scopes. */
export type ResolvedKey = repo.KeyWithTenant & { secret: string | null; scopes: Scope[] };

/** `ce_live_1234…cdef`: enough to recognise a key, not enough to use it. */
export function maskApiKey(apiKey: string): string {
  return `${apiKey.slice(0, 12)}…${apiKey.slice(-4)}`;
}

export function parseScopes(json: string): Scope[] {
  return (JSON.parse(json) as string[]).filter(isScope);
}

export function summarize(row: ApiKeyRow, now: number = Date.now()): KeySummary {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    api_key_masked: maskApiKey(row.api_key),
    label: row.label,
    escopos: parseScopes(row.scopes),
    medico_id: row.medico_id,
    status: row.status,
    format: row.format,
    created_at: row.created_at,
    rotated_at: row.rotated_at,
    revoked_at: row.revoked_at,
    last_used_at: row.last_used_at,
    expires_at: row.expires_at,
    expired: isExpired(row, now),
  };
}

const newSecret = (): string => randomBytes(32).toString('hex');
const associatedData = (keyId: number, version: number): string => `api_key:${keyId}:v${version}`;

/**
 * Where authentication finds a key by its public identifier: gateway.db (server/keys/key-sources.ts
 * SqliteKeySource, synchronous) or the cluster's PostgreSQL (PostgresKeySource, a query on a cache miss).
 */
export interface KeySource {
  /** Called before every cache read; a source that notices outside changes synchronously empties the cache here. */
  beforeRead(): void;
  /** The key row with its tenant's columns (t_*), or undefined. */
  find(apiKey: string): repo.KeyTenantRow | undefined | Promise<repo.KeyTenantRow | undefined>;
  /** Whether a found key may be kept in the cache (false while the source cannot hear of changes). */
  cacheable(): boolean;
  /** Unknown identifiers are remembered where a lookup is a round trip and creations are heard of (PostgreSQL). */
  readonly remembersUnknown: boolean;
}

/** What a key source tells the cache: one key changed (by its identifier), or any may have. */
export interface KeyCacheControl {
  invalidate(apiKey?: string): void;
}

export class KeysService implements KeyCacheControl {
  /** Decrypted secrets by key id and secret version: a rotation changes the version, so no stale hit. */
  private readonly secretCache = new Map<string, string>();

  /**
   * Resolved keys by api_key. Emptied by every change made through this service and by the source when
   * another writer changed a key (SQLite: the CLI's commit, seen in `PRAGMA data_version`; PostgreSQL: a
   * NOTIFY from any instance, the CLI or plain SQL), so a rotation or revocation takes effect on the next
   * request (within the notification's delay on another instance).
   */
  private readonly resolvedCache = new Map<string, ResolvedKey>();
  /**
   * Identifiers a lookup did not find, for sources where a lookup costs a round trip (PostgreSQL): an
   * unknown-key flood then costs one query per identifier, not per request. Bounded; a key created
   * anywhere is removed from it by its notification.
   */
  private readonly unknownCache = new Set<string>();
  /** Bumped by every invalidation: a lookup that started before one does not fill the cache with what it read. */
  private generation = 0;
  private readonly source: KeySource;
  /** Appliance time (epoch ms): expiries are set and judged by it. Real time until setClock. */
  private now: () => number = Date.now;

  constructor(
    private readonly db: GatewayDb,
    private readonly box: SecretBox,
    source: KeySource | ((cache: KeyCacheControl) => KeySource),
  ) {
    this.source = typeof source === 'function' ? source(this) : source;
  }

  /** The appliance clock every expiry is judged by (buildApp and the CLI hand theirs over). */
  setClock(now: () => number): void {
    this.now = now;
  }

  /** Forgets one resolved key (by its identifier), or every one: called after any change to keys or tenants. */
  invalidate(apiKey?: string): void {
    this.generation += 1;
    if (apiKey === undefined) {
      this.resolvedCache.clear();
      this.unknownCache.clear();
      return;
    }
    this.resolvedCache.delete(apiKey);
    this.unknownCache.delete(apiKey);
  }

  async create(
    input: {
      tenantSlug: string;
      scopes: Scope[];
      medicoId?: number;
      label?: string;
    } & ExpiryInput,
  ): Promise<IssuedCredentials> {
    const tenant = await findTenantBySlug(this.db, input.tenantSlug);
    if (!tenant) throw new KeyServiceError('tenant_not_found', `tenant "${input.tenantSlug}" does not exist`);
    validateScopes(input.scopes);
    const expiresAt = resolveExpiry(input, this.now()) ?? null;
    const medicoId = input.medicoId ?? 0;
    if (!Number.isInteger(medicoId) || medicoId < 0)
      throw new KeyServiceError('invalid_input', 'medico id must be a non-negative integer');
    const apiKey = API_KEY_PREFIX + randomBytes(16).toString('hex');
    const secret = newSecret();
    return this.db
      .transaction()
      .execute(async (trx) => {
        const id = await repo.insertKey(trx, {
          tenant_id: tenant.id,
          api_key: apiKey,
          label: input.label ?? '',
          scopes: JSON.stringify(input.scopes),
          medico_id: medicoId,
          format: 'v1',
          created_at: nowIso(),
          expires_at: expiresAt,
        });
        await repo.updateKey(trx, id, { secret_sealed: this.box.seal(secret, associatedData(id, 1)) });
        return { chave_id: id, api_key: apiKey, api_secret: secret };
      })
      .finally(() => this.invalidate());
  }

  /** A key carried over from the legacy system: known identifier, no compatible stored secret. */
  async importLegacy(input: { tenantSlug: string; apiKey: string; scopes: Scope[] }): Promise<number> {
    const tenant = await findTenantBySlug(this.db, input.tenantSlug);
    if (!tenant) throw new KeyServiceError('tenant_not_found', `tenant "${input.tenantSlug}" does not exist`);
    if (!API_KEY_PATTERN.test(input.apiKey))
      throw new KeyServiceError('invalid_input', 'legacy key must still match the key format');
    validateScopes(input.scopes);
    this.invalidate();
    return repo.insertKey(this.db, {
      tenant_id: tenant.id,
      api_key: input.apiKey,
      label: 'legacy import',
      scopes: JSON.stringify(input.scopes),
      medico_id: 0,
      format: 'legacy',
      created_at: nowIso(),
    });
  }

  async rotate(id: number): Promise<IssuedCredentials> {
    const row = await this.requireKey(id);
    if (row.status === 'revoked')
      throw new KeyServiceError('key_revoked', `key ${id} is revoked; issue a new key instead`);
    const secret = newSecret();
    const version = row.secret_version + 1;
    // expires_at is left as it is: a rotation changes the secret, not how long the key lives.
    await repo.updateKey(this.db, id, {
      secret_sealed: this.box.seal(secret, associatedData(id, version)),
      secret_version: version,
      format: 'v1',
      rotated_at: nowIso(),
    });
    this.invalidate();
    return { chave_id: id, api_key: row.api_key, api_secret: secret };
  }

  async revoke(id: number): Promise<KeySummary> {
    const row = await this.requireKey(id);
    if (row.status !== 'revoked') await repo.updateKey(this.db, id, { status: 'revoked', revoked_at: nowIso() });
    this.invalidate();
    return this.get(id);
  }

  async update(
    id: number,
    input: { scopes?: Scope[]; medicoId?: number; label?: string } & ExpiryInput,
  ): Promise<KeySummary> {
    const row = await this.requireKey(id);
    if (row.status === 'revoked') throw new KeyServiceError('key_revoked', `key ${id} is revoked`);
    if (input.scopes) validateScopes(input.scopes);
    if (input.medicoId !== undefined && (!Number.isInteger(input.medicoId) || input.medicoId < 0)) {
      throw new KeyServiceError('invalid_input', 'medico id must be a non-negative integer');
    }
    const expiresAt = resolveExpiry(input, this.now());
    await repo.updateKey(this.db, id, {
      ...(expiresAt !== undefined ? { expires_at: expiresAt } : {}),
      ...(input.scopes ? { scopes: JSON.stringify(input.scopes) } : {}),
      ...(input.medicoId !== undefined ? { medico_id: input.medicoId } : {}),
      ...(input.label !== undefined ? { label: input.label } : {}),
    });
    this.invalidate();
    return this.get(id);
  }

  async list(tenantSlug?: string): Promise<KeySummary[]> {
    let tenantId: number | undefined;
    if (tenantSlug !== undefined) {
      const tenant = await findTenantBySlug(this.db, tenantSlug);
      if (!tenant) throw new KeyServiceError('tenant_not_found', `tenant "${tenantSlug}" does not exist`);
      tenantId = tenant.id;
    }
    const now = this.now();
    return (await repo.listKeys(this.db, tenantId)).map((row) => summarize(row, now));
  }

  /**
   * One clinic's keys matching `filter` (issue 31 § 3: search, scope, status, expiring, paging), by id, and how many
   * match in all. Without `limit`, every matching key.
   */
  async search(tenantSlug: string, filter: KeyListFilter = {}): Promise<{ keys: KeySummary[]; total: number }> {
    const tenant = await findTenantBySlug(this.db, tenantSlug);
    if (!tenant) throw new KeyServiceError('tenant_not_found', `tenant "${tenantSlug}" does not exist`);
    const now = this.now();
    const text = filter.q?.trim().toLowerCase();
    const idMatch = text ? /^#?(\d{1,9})$/.exec(text) : null;
    const { rows, total } = await repo.searchKeys(this.db, tenant.id, {
      now: new Date(now).toISOString(),
      text: text
        ? {
            like: text,
            medicoIds: [...(filter.medicoIds ?? []), ...(idMatch ? [Number(idMatch[1])] : [])],
            keyIds: idMatch ? [Number(idMatch[1])] : [],
          }
        : undefined,
      scope: filter.scope,
      status: filter.status,
      expiringBefore:
        filter.expiring !== undefined ? new Date(now + filter.expiring * DAY_MS).toISOString() : undefined,
      limit: filter.limit,
      offset: filter.offset,
    });
    return { keys: rows.map((row) => summarize(row, now)), total };
  }

  async get(id: number): Promise<KeySummary> {
    return summarize(await this.requireKey(id), this.now());
  }

  /** Appliance time now (epoch ms), as the keys' expiries are judged. */
  clockNow(): number {
    return this.now();
  }

  /**
   * The key row with its tenant, and the decrypted secret when it has one: at once from the cache or
   * gateway.db, or as a promise when the source answers asynchronously (PostgreSQL, on a cache miss).
   */
  resolve(apiKey: string): ResolvedKey | undefined | Promise<ResolvedKey | undefined> {
    this.source.beforeRead();
    const hit = this.resolvedCache.get(apiKey);
    if (hit) return hit;
    if (this.unknownCache.has(apiKey)) return undefined;
    const generation = this.generation;
    const found = this.source.find(apiKey);
    if (found instanceof Promise) return found.then((row) => this.resolvedFrom(apiKey, row, generation));
    return this.resolvedFrom(apiKey, found, generation);
  }

  /** Only what the cache holds (the journal's attribution of a request that never reached authentication). */
  resolveCached(apiKey: string): ResolvedKey | undefined {
    return this.resolvedCache.get(apiKey);
  }

  private resolvedFrom(
    apiKey: string,
    row: repo.KeyTenantRow | undefined,
    generation: number,
  ): ResolvedKey | undefined {
    const found = repo.splitKeyRow(row);
    const cacheable = generation === this.generation && this.source.cacheable();
    if (!found) {
      if (cacheable && this.source.remembersUnknown) {
        if (this.unknownCache.size >= 10_000) this.unknownCache.clear();
        this.unknownCache.add(apiKey);
      }
      return undefined;
    }
    const { key } = found;
    let resolved: ResolvedKey;
    if (!key.secret_sealed) {
      resolved = { ...found, secret: null, scopes: parseScopes(found.key.scopes) };
    } else {
      const cacheKey = `${key.id}:${key.secret_version}`;
      let secret = this.secretCache.get(cacheKey);
      if (secret === undefined) {
        secret = this.box.open(key.secret_sealed, associatedData(key.id, key.secret_version));
        if (this.secretCache.size > 10_000) this.secretCache.clear();
        this.secretCache.set(cacheKey, secret);
      }
      resolved = { ...found, secret, scopes: parseScopes(key.scopes) };
    }
    // Only known keys are kept, so unknown-key floods cannot grow this cache.
    if (cacheable) {
      if (this.resolvedCache.size > 10_000) this.resolvedCache.clear();
      this.resolvedCache.set(apiKey, resolved);
    }
    return resolved;
  }

  async touchLastUsed(ids: Iterable<number>, at: string): Promise<void> {
    const list = [...ids];
    if (list.length === 0) return;
    await this.db.updateTable('api_keys').set({ last_used_at: at }).where('id', 'in', list).execute();
  }

  private async requireKey(id: number): Promise<ApiKeyRow> {
    const row = await repo.findKeyById(this.db, id);
    if (!row) throw new KeyServiceError('key_not_found', `key ${id} does not exist`);
    return row;
  }
}

function validateScopes(scopes: string[]): void {
  if (scopes.length === 0) throw new KeyServiceError('invalid_input', 'a key needs at least one scope');
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length) throw new KeyServiceError('invalid_input', `unknown scope(s): ${unknown.join(', ')}`);
}
