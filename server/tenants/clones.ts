import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Backend } from '../backend/client.ts';
import type { GatewayDb } from '../db/database.ts';
import { isPostgres } from '../db/dialect.ts';
import type { KeysService } from '../keys/keys.service.ts';
import { ApiError } from '../errors.ts';
import { TenantServiceError } from './tenants.service.ts';
import { ALL_SCOPES } from '../../contracts/scopes.ts';
import { tenantPath, TENANT_SLUG_MAX_LENGTH } from '../../contracts/backend/tenants.ts';
import { backendClone, backendTenantDrop } from '../../contracts/backend/clones.ts';
import { parseTtl, type TenantCloned, type TenantDropped } from '../../contracts/admin/clones.ts';
import { z } from 'zod';

/** The environment variable that allows clones and drops with APP_ENV=production. */
export const EPHEMERAL_CLINICS_OPT_IN = 'ALLOW_EPHEMERAL_CLINICS';
export const EPHEMERAL_CLINICS_MAX_VARIABLE = 'EPHEMERAL_CLINICS_MAX';

/** A drop claimed longer ago than this by a gateway that did not finish is taken over (it died meanwhile). */
export const DROP_CLAIM_MS = 60_000;

/** Like the reset (tenant-reset.ts): null when allowed; otherwise why not, naming the opt-in. */
export function ephemeralClinicsRefusal(policy: { development: boolean; optIn: boolean }): string | null {
  if (policy.development || policy.optIn) return null;
  return `ephemeral clinics are disabled with APP_ENV=production: set ${EPHEMERAL_CLINICS_OPT_IN}=true to allow them`;
}

export interface CloneDeps {
  db: GatewayDb;
  backend: Backend;
  keys: KeysService;
  /** The appliance clock: expiries follow it, so moving it in development mode expires clones. */
  now: () => number;
  /** Told after a change authentication reads (a clinic's status, its keys). */
  onChange: () => void;
}

export interface CloneRequest {
  template: string;
  snapshot?: string;
  slug?: string;
  ttl: string;
  medicoId: number;
  /** The operator token that asks, if one does: it may act on the clone afterwards. */
  tokenId?: number;
  max: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** `<template>-<6 hex>`, the template cut so the slug stays within 40 characters and ends in a letter or digit. */
export function defaultCloneSlug(template: string): string {
  const head = template.slice(0, TENANT_SLUG_MAX_LENGTH - 7).replace(/-+$/, '');
  return `${head}-${randomBytes(3).toString('hex')}`;
}

/**
 * Issue 30 § Ephemeral clinics: registers the clone (status `cloning`, counted against the cap in the same
 * transaction; on PostgreSQL under an advisory lock, so two gateways never both take the last place), asks
 * backend-sim for the file copy, then issues the clone's all-scopes key and opens it (`active`). Anything that
 * fails after the registration drops what was made.
 */
export async function cloneTenant(deps: CloneDeps, request: CloneRequest): Promise<TenantCloned> {
  const started = performance.now();
  const template = await deps.db
    .selectFrom('tenants')
    .select(['id', 'slug', 'nome', 'status'])
    .where('slug', '=', request.template)
    .executeTakeFirst();
  if (!template || template.status === 'dropping' || template.status === 'cloning')
    throw new TenantServiceError('tenant_not_found', `tenant "${request.template}" does not exist`);
  const ttlMs = parseTtl(request.ttl);
  if (ttlMs === null) throw new TenantServiceError('invalid_input', `invalid time to live: ${request.ttl}`);
  const slug = request.slug ?? defaultCloneSlug(request.template);
  const now = deps.now();
  const expiresAt = iso(now + ttlMs);
  const templateName = request.snapshot ? `${request.template}@${request.snapshot}` : request.template;

  const registered = await deps.db.transaction().execute(async (trx) => {
    if (isPostgres(trx)) await sql`SELECT pg_advisory_xact_lock(1734440039)`.execute(trx);
    const count = await trx
      .selectFrom('tenants')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('expires_at', 'is not', null)
      .executeTakeFirstOrThrow();
    if (Number(count.n) >= request.max) {
      throw new ApiError(
        'BUSINESS_RULE',
        `Limite de clinicas efemeras atingido (${request.max}; ${EPHEMERAL_CLINICS_MAX_VARIABLE}): remova uma (DELETE /tenants/:slug) ou espere a validade de uma terminar.`,
        { field: 'slug', limite: request.max, existentes: Number(count.n), variavel: EPHEMERAL_CLINICS_MAX_VARIABLE },
      );
    }
    if (await trx.selectFrom('tenants').select('id').where('slug', '=', slug).executeTakeFirst())
      throw new TenantServiceError('tenant_exists', `tenant "${slug}" already exists`);
    return trx
      .insertInto('tenants')
      .values({
        slug,
        nome: slug,
        is_sandbox: 0,
        status: 'cloning',
        created_at: iso(now),
        template: templateName,
        expires_at: expiresAt,
        created_by_token_id: request.tokenId ?? null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
  });

  try {
    const { data } = await deps.backend.call(
      {
        method: 'POST',
        path: `/admin${tenantPath(request.template, '/clone')}`,
        body: { slug, ...(request.snapshot ? { snapshot: request.snapshot } : {}) },
      },
      backendClone,
    );
    if (request.medicoId > 0) await requireDoctor(deps.backend, slug, request.medicoId);
    const issued = await deps.keys.create({
      tenantSlug: slug,
      scopes: [...ALL_SCOPES],
      medicoId: request.medicoId,
      label: cloneKeyLabel(template.nome, request.snapshot),
    });
    await deps.db
      .updateTable('tenants')
      .set({ status: 'active', nome: data.nome })
      .where('id', '=', registered.id)
      .execute();
    deps.onChange();
    return {
      slug,
      nome: data.nome,
      template: request.template,
      snapshot: request.snapshot ?? null,
      api_key: issued.api_key,
      api_secret: issued.api_secret,
      chave_id: issued.chave_id,
      expires_at: expiresAt,
      medico_id: request.medicoId,
      files_copied: data.files_copied,
      duration_ms: Math.round((performance.now() - started) * 10) / 10,
    };
  } catch (error) {
    await dropTenant(deps, slug, { force: true }).catch(() => undefined);
    throw error;
  }
}

/**
 * The clone's key label: its template by name (a slug shown without its clinic's name reads as a code), and the
 * snapshot it started from; within a key label's 100 characters (contracts/admin/keys.ts).
 */
export function cloneKeyLabel(templateName: string, snapshot?: string): string {
  const from = snapshot ? ` (snapshot ${snapshot})` : '';
  const room = 100 - 'clone of '.length - from.length;
  const name = templateName.length > room ? `${templateName.slice(0, room - 1).trimEnd()}…` : templateName;
  return `clone of ${name}${from}`;
}

async function requireDoctor(backend: Backend, slug: string, medicoId: number): Promise<void> {
  try {
    await backend.call({ method: 'GET', path: tenantPath(slug, `/medicos/${medicoId}`) }, z.unknown());
  } catch (error) {
    if (error instanceof ApiError && error.status === 404)
      throw new ApiError('INVALID_REFERENCE', 'Medico inexistente no modelo.', { field: 'medico_id' });
    throw error;
  }
}

/**
 * Removes a clinic (issue 30): claims it (status `dropping`: its keys are refused from now on; a claim is one
 * UPDATE, so of several gateways sweeping the same clinic one drops it), has backend-sim close and delete its
 * database, first-start copy, snapshots and stored files, then deletes its keys, their idempotency entries and
 * its registration. The journal keeps its entries (tenant_slug) for the retention window. A drop that dies
 * half-way leaves the claim, which the sweeper takes over after DROP_CLAIM_MS.
 */
export async function dropTenant(
  deps: CloneDeps,
  slug: string,
  options: { force?: boolean } = {},
): Promise<TenantDropped & { template: string | null }> {
  const tenant = await deps.db
    .selectFrom('tenants')
    .select(['id', 'slug', 'template', 'expires_at'])
    .where('slug', '=', slug)
    .executeTakeFirst();
  if (!tenant) throw new TenantServiceError('tenant_not_found', `tenant "${slug}" does not exist`);
  const now = deps.now();
  const claim = await deps.db
    .updateTable('tenants')
    .set({ status: 'dropping', dropping_at: iso(now) })
    .where('id', '=', tenant.id)
    .where((eb) =>
      options.force
        ? eb.lit(true)
        : eb.or([eb('dropping_at', 'is', null), eb('dropping_at', '<', iso(now - DROP_CLAIM_MS))]),
    )
    .executeTakeFirst();
  if (Number(claim.numUpdatedRows) === 0)
    throw new ApiError('CONCURRENT_REQUEST', 'Esta clinica ja esta sendo removida.', { field: 'slug' });
  deps.onChange();
  const { data } = await deps.backend.call({ method: 'DELETE', path: `/admin${tenantPath(slug)}` }, backendTenantDrop);
  const removed = await deps.db.transaction().execute(async (trx) => {
    const keyIds = trx.selectFrom('api_keys').select('id').where('tenant_id', '=', tenant.id);
    const idempotency = await trx.deleteFrom('idempotency_keys').where('chave_id', 'in', keyIds).executeTakeFirst();
    if (isPostgres(trx))
      await sql`DELETE FROM rate_limit_buckets WHERE chave_id IN (SELECT id FROM api_keys WHERE tenant_id = ${tenant.id})`.execute(
        trx,
      );
    const keys = await trx.deleteFrom('api_keys').where('tenant_id', '=', tenant.id).executeTakeFirst();
    await trx.deleteFrom('tenants').where('id', '=', tenant.id).execute();
    return { keys: Number(keys.numDeletedRows), idempotency: Number(idempotency.numDeletedRows) };
  });
  deps.onChange();
  return {
    slug,
    dropped: true,
    keys_removed: removed.keys,
    idempotency_keys_removed: removed.idempotency,
    files_removed: data.files_removed,
    ephemeral: tenant.expires_at !== null,
    journal_kept: true,
    template: tenant.template,
  };
}

/** The clinics the sweeper drops: expired, a drop claimed and abandoned, a clone that never finished. */
export async function clinicsToSweep(db: GatewayDb, now: number, limit = 50): Promise<string[]> {
  const stale = iso(now - DROP_CLAIM_MS);
  const rows = await db
    .selectFrom('tenants')
    .select('slug')
    .where((eb) =>
      eb.or([
        eb.and([eb('expires_at', 'is not', null), eb('expires_at', '<=', iso(now))]),
        eb.and([eb('dropping_at', 'is not', null), eb('dropping_at', '<', stale)]),
        eb.and([eb('status', '=', 'cloning'), eb('created_at', '<', stale)]),
      ]),
    )
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.slug);
}
