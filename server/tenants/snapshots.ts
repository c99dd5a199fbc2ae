import { Transform, type Readable } from 'node:stream';
import { z } from 'zod';
import type { Backend } from '../backend/client.ts';
import type { GatewayDb } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import { TENANT_SLUG_PATTERN } from '../../contracts/backend/tenants.ts';
import {
  backendSnapshot,
  backendSnapshotDeleted,
  backendSnapshotImported,
  backendSnapshotRestored,
  backendSnapshotSaved,
  snapshotArchiveName,
  snapshotsPath,
} from '../../contracts/backend/snapshots.ts';
import {
  SNAPSHOT_IMPORT_MAX_BYTES,
  type SnapshotDeleted,
  type SnapshotImportResult,
  type SnapshotRestoreResult,
  type SnapshotSaved,
  type SnapshotSaveInput,
  type SnapshotView,
} from '../../contracts/admin/snapshots.ts';
import { forgetClinicState } from './tenant-reset.ts';
import { TenantServiceError, type TenantsService } from './tenants.service.ts';

/**
 * A clinic's named snapshots (issue 30 § 2), for the console API, the automation API and the CLI alike:
 * backend-sim keeps the state (its database and files: backend-sim/db/snapshots.ts); the gateway checks the
 * clinic, forgets the clinic's idempotency keys after a restore or import (as a reset does: no replay from
 * another state) and registers a clinic an import creates. Keys and the journal are the gateway's and are
 * never in a snapshot. Restore and import follow the reset's production rule (tenantResetRefusal); the
 * callers check it.
 */
export interface SnapshotDeps {
  db: GatewayDb;
  backend: Backend;
  tenants: TenantsService;
}

/** An archive of a large clinic takes a while each way. */
export const SNAPSHOT_TRANSFER_TIMEOUT_MS = 10 * 60_000;

async function requireTenant(deps: SnapshotDeps, slug: string) {
  const tenant = await deps.tenants.get(slug);
  if (!tenant) throw new TenantServiceError('tenant_not_found', `tenant "${slug}" does not exist`);
  return tenant;
}

export async function saveSnapshot(deps: SnapshotDeps, slug: string, input: SnapshotSaveInput): Promise<SnapshotSaved> {
  await requireTenant(deps, slug);
  const { data } = await deps.backend.call(
    { method: 'POST', path: snapshotsPath(slug), body: input },
    backendSnapshotSaved,
  );
  return data;
}

export async function listSnapshots(deps: SnapshotDeps, slug: string): Promise<SnapshotView[]> {
  await requireTenant(deps, slug);
  const { data } = await deps.backend.call({ method: 'GET', path: snapshotsPath(slug) }, z.array(backendSnapshot));
  return data;
}

export async function restoreSnapshot(deps: SnapshotDeps, slug: string, name: string): Promise<SnapshotRestoreResult> {
  const started = performance.now();
  const tenant = await requireTenant(deps, slug);
  const { data } = await deps.backend.call(
    { method: 'POST', path: snapshotsPath(slug, name, '/restore'), body: {} },
    backendSnapshotRestored,
  );
  // After the backend: a write that raced the restore and recorded its key is forgotten with the others.
  const keys = await forgetClinicState(deps.db, tenant.id, data.nome);
  return {
    ...data,
    idempotency_keys_removed: keys,
    duration_ms: Math.round((performance.now() - started) * 10) / 10,
  };
}

export async function deleteSnapshot(deps: SnapshotDeps, slug: string, name: string): Promise<SnapshotDeleted> {
  await requireTenant(deps, slug);
  const { data } = await deps.backend.call(
    { method: 'DELETE', path: snapshotsPath(slug, name) },
    backendSnapshotDeleted,
  );
  return data;
}

/** The archive, streamed from backend-sim as it is written. */
export async function exportSnapshot(
  deps: SnapshotDeps,
  slug: string,
  name: string,
): Promise<{ filename: string; body: Readable }> {
  await requireTenant(deps, slug);
  const answer = await deps.backend.transfer({
    method: 'GET',
    path: snapshotsPath(slug, name, '/export'),
    timeoutMs: SNAPSHOT_TRANSFER_TIMEOUT_MS,
  });
  return { filename: snapshotArchiveName(slug, name), body: answer.body };
}

export const archiveTooLarge = () =>
  new ApiError('VAL_FILE_TOO_LARGE', `Arquivo de snapshot maior que o limite de ${SNAPSHOT_IMPORT_MAX_BYTES} bytes.`, {
    field: 'archive',
    limit_bytes: SNAPSHOT_IMPORT_MAX_BYTES,
  });

/** The body as it streams on, refused past the import cap. */
function cappedStream(body: Readable): Readable {
  let seen = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      done(seen > SNAPSHOT_IMPORT_MAX_BYTES ? archiveTooLarge() : null, chunk);
    },
  });
  body.on('error', (error) => counted.destroy(error));
  return body.pipe(counted);
}

/**
 * An archive into clinic `slug`: an existing clinic is restored from it (kept as its snapshot `name`); an
 * unknown slug becomes a new clinic — backend-sim creates its database from the archive (checked whole first,
 * so a damaged file creates nothing), then the gateway registers it under the archive's clinic name.
 */
export async function importSnapshot(
  deps: SnapshotDeps,
  input: { slug: string; name?: string; body: Readable },
): Promise<SnapshotImportResult> {
  const started = performance.now();
  const existing = await deps.tenants.get(input.slug);
  if (!existing && !TENANT_SLUG_PATTERN.test(input.slug))
    throw new TenantServiceError(
      'invalid_input',
      'slug must be 1-40 lowercase letters, digits or hyphens (no leading/trailing hyphen)',
    );
  const answer = await deps.backend.transfer({
    method: 'POST',
    path: snapshotsPath(input.slug, undefined, '/import'),
    query: { name: input.name, create: existing ? '0' : '1' },
    body: cappedStream(input.body),
    contentType: 'application/octet-stream',
    timeoutMs: SNAPSHOT_TRANSFER_TIMEOUT_MS,
  });
  const chunks: Buffer[] = [];
  for await (const chunk of answer.body) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const parsed = backendSnapshotImported.safeParse((JSON.parse(text) as { data?: unknown }).data);
  if (!parsed.success) throw new ApiError('SERVICE_UNAVAILABLE', 'Resposta inesperada do backend ao importar.');
  const data = parsed.data;
  const tenant = existing ?? (await deps.tenants.register({ slug: input.slug, nome: data.nome }));
  const keys = await forgetClinicState(deps.db, tenant.id, data.nome);
  return {
    ...data,
    created: !existing,
    idempotency_keys_removed: keys,
    duration_ms: Math.round((performance.now() - started) * 10) / 10,
  };
}
