import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import type { BackendRoutes } from '../deps.ts';
import { BackendError } from '../errors.ts';
import { parse } from '../lib/http.ts';
import { SLUG_PATTERN } from '../tenants.ts';
import { takePristineSnapshot } from '../db/pristine.ts';
import { clinicaNome } from '../domain/clinica/clinica.service.ts';
import {
  deleteSnapshot,
  exportSnapshot,
  installStaged,
  listSnapshots,
  restoreSnapshot,
  saveSnapshot,
  snapshotsDir,
  stageArchive,
  summary,
  type SnapshotContext,
} from '../db/snapshots.ts';
import {
  SNAPSHOT_IMPORT_MAX_BYTES,
  backendSnapshotImportQuery,
  backendSnapshotSave,
  snapshotName,
} from '../../contracts/backend/snapshots.ts';

/** The release that writes a snapshot's manifest: the appliance's package.json version. */
const RELEASE = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const slugParams = z.object({ slug: z.string().regex(SLUG_PATTERN) });
const snapshotParams = slugParams.extend({ name: snapshotName });
const ms = (since: number) => Math.round((performance.now() - since) * 10) / 10;

/**
 * Named snapshots (issue 30 § 2; backend-sim/db/snapshots.ts): save, list, restore, delete, export (a tar
 * archive) and import. Every operation on a clinic runs after the one before it (TenantGate.serial); a
 * restore holds the clinic's requests (TenantGate.exclusive) while its state is swapped.
 */
export const snapshotRoutes: BackendRoutes = (deps) => async (app) => {
  const ctx = (slug: string): SnapshotContext => ({
    dataDir: deps.config.dataDir,
    slug,
    files: deps.files,
    release: RELEASE,
    now: deps.now,
  });
  const hold =
    (slug: string) =>
    <T>(work: () => Promise<T>) =>
      deps.gate.exclusive(slug, work);

  // The archive streams in: no parser buffers it (the import counts and caps it itself).
  app.addContentTypeParser(['application/octet-stream', 'application/x-tar'], (_req, payload, done) =>
    done(null, payload),
  );

  app.get('/admin/tenants/:slug/snapshots', async (req) => {
    const { slug } = parse(slugParams, req.params);
    await deps.tenants.get(slug);
    const data = listSnapshots(deps.config.dataDir, slug).map(summary);
    return { data, meta: { total: data.length } };
  });

  app.post('/admin/tenants/:slug/snapshots', async (req, reply) => {
    const started = performance.now();
    const { slug } = parse(slugParams, req.params);
    const input = parse(backendSnapshotSave, req.body ?? {});
    const tenant = await deps.tenants.get(slug);
    const manifest = await deps.gate.serial(slug, () =>
      saveSnapshot(tenant, ctx(slug), input.name, { replace: input.replace, hold: hold(slug) }),
    );
    return reply.status(201).send({ data: { ...summary(manifest), duration_ms: ms(started) }, meta: {} });
  });

  const restore = async (slug: string, name: string, started: number) => {
    const tenant = await deps.tenants.get(slug);
    const restored = await restoreSnapshot(tenant, ctx(slug), name, hold(slug));
    return {
      slug,
      name,
      nome: await clinicaNome(tenant.db),
      rows_restored: restored.rows,
      idempotency_markers_removed: restored.idempotencyMarkersRemoved,
      files_restored: restored.filesRestored,
      files_removed: restored.filesRemoved,
      database_ms: Math.round(restored.databaseMs * 10) / 10,
      duration_ms: ms(started),
    };
  };

  app.post('/admin/tenants/:slug/snapshots/:name/restore', async (req) => {
    const started = performance.now();
    const { slug, name } = parse(snapshotParams, req.params);
    parse(z.strictObject({}), req.body ?? {});
    await deps.tenants.get(slug);
    return { data: await deps.gate.serial(slug, () => restore(slug, name, started)), meta: {} };
  });

  app.delete('/admin/tenants/:slug/snapshots/:name', async (req) => {
    const { slug, name } = parse(snapshotParams, req.params);
    await deps.tenants.get(slug);
    await deps.gate.serial(slug, () => deleteSnapshot(ctx(slug), name));
    return { data: { slug, name, deleted: true as const }, meta: {} };
  });

  app.get('/admin/tenants/:slug/snapshots/:name/export', async (req, reply) => {
    const { slug, name } = parse(snapshotParams, req.params);
    await deps.tenants.get(slug);
    const { archive, manifest } = await deps.gate.serial(slug, () => exportSnapshot(ctx(slug), name));
    return reply.header('content-type', 'application/x-tar').header('x-snapshot-sha256', manifest.sha256).send(archive);
  });

  app.post('/admin/tenants/:slug/snapshots/import', async (req, reply) => {
    const started = performance.now();
    const { slug } = parse(slugParams, req.params);
    const query = parse(backendSnapshotImportQuery, req.query);
    const body = req.body as Readable | undefined;
    if (!body || typeof (body as Readable).pipe !== 'function')
      throw new BackendError('VAL_INVALID_PARAM', 'Envie o arquivo do snapshot como application/octet-stream.', {
        field: 'archive',
      });
    if (query.create === '0') await deps.tenants.get(slug);
    // Read and checked whole before the clinic is touched (or created).
    const staged = await stageArchive(
      body,
      join(snapshotsDir(deps.config.dataDir, '.staging')),
      SNAPSHOT_IMPORT_MAX_BYTES,
    );
    const name = query.name ?? staged.manifest.name;
    const result = await deps.gate.serial(slug, async () => {
      const { tenant, created } = deps.tenants.exists(slug)
        ? { tenant: await deps.tenants.get(slug), created: false }
        : await deps.tenants.create(slug);
      await installStaged(staged, ctx(slug), name);
      const restored = await restore(slug, name, started);
      // A clinic the import created starts in the archive's state: a reset comes back to it.
      if (created) await takePristineSnapshot(tenant, deps.config.dataDir, slug);
      return { ...restored, created, source_slug: staged.manifest.slug, source_release: staged.manifest.release };
    });
    return reply.status(201).send({ data: { ...result, duration_ms: ms(started) }, meta: {} });
  });
};
