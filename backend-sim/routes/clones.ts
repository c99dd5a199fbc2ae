import type * as Minio from 'minio';
import type { BackendRoutes } from '../deps.ts';
import { parse } from '../lib/http.ts';
import { pristineFile } from '../db/pristine.ts';
import {
  cloneDatabaseFile,
  cloneSourceSnapshotFile,
  cloneSourceSnapshotPrefix,
  removeTenantDatabaseFiles,
} from '../db/clones.ts';
import { clinicaNome } from '../domain/clinica/clinica.service.ts';
import { adminStorage, removeObjectsUnder, removeTenantFiles, slugParams } from './reset.ts';
import { backendCloneInput } from '../../contracts/backend/clones.ts';

/** Copies objects a few at a time; an object the storage does not have is counted, not fatal. */
async function copyObjects(
  client: Minio.Client,
  bucket: string,
  objects: Array<{ source: string; target: string }>,
): Promise<{ copied: number; missing: number }> {
  let copied = 0;
  let missing = 0;
  for (let i = 0; i < objects.length; i += 8) {
    await Promise.all(
      objects.slice(i, i + 8).map(async ({ source, target }) => {
        try {
          await client.copyObject(bucket, target, `/${bucket}/${source}`);
          copied += 1;
        } catch (error) {
          if ((error as { code?: string }).code !== 'NoSuchKey') throw error;
          missing += 1;
        }
      }),
    );
  }
  return { copied, missing };
}

/**
 * Ephemeral clinics (issue 30): `POST /admin/tenants/:slug/clone` makes a new clinic as a file copy of the
 * template's first-start copy (or of its named snapshot) and its stored files; `DELETE /admin/tenants/:slug`
 * closes the clinic's connection and deletes its database, first-start copy, snapshots and stored files.
 */
export const cloneRoutes: BackendRoutes = (deps) => async (app) => {
  const storage = adminStorage(deps);

  app.post('/admin/tenants/:slug/clone', async (req, reply) => {
    const started = performance.now();
    const { slug: template } = parse(slugParams, req.params);
    const input = parse(backendCloneInput, req.body ?? {});
    const snapshot = input.snapshot ?? null;
    const { dataDir } = deps.config;
    const cloned = cloneDatabaseFile(dataDir, {
      template,
      slug: input.slug,
      source: snapshot ? cloneSourceSnapshotFile(dataDir, template, snapshot) : pristineFile(dataDir, template),
      // A first-start copy's rows name the template's own objects; a snapshot keeps copies under its prefix.
      objectPrefix: snapshot ? cloneSourceSnapshotPrefix(template, snapshot) : '',
    });
    let files = { copied: 0, missing: 0 };
    try {
      const s = storage();
      if (s && cloned.objects.length > 0) files = await copyObjects(s.client, s.config.bucket, cloned.objects);
      const databaseMs = performance.now() - started;
      const tenant = await deps.tenants.get(input.slug);
      return reply.status(201).send({
        data: {
          slug: input.slug,
          template,
          snapshot,
          nome: await clinicaNome(tenant.db),
          bytes: cloned.bytes,
          files_copied: files.copied,
          files_missing: files.missing,
          database_ms: Math.round(databaseMs * 10) / 10,
          duration_ms: Math.round((performance.now() - started) * 10) / 10,
        },
        meta: {},
      });
    } catch (error) {
      // Nothing half-made stays: the clone's files go with its database.
      await deps.tenants.drop(input.slug, () => removeTenantDatabaseFiles(dataDir, input.slug));
      const s = storage();
      if (s) await removeTenantFiles(s.client, s.config.bucket, input.slug).catch(() => 0);
      throw error;
    }
  });

  app.delete('/admin/tenants/:slug', async (req) => {
    const { slug } = parse(slugParams, req.params);
    const dropped = await deps.tenants.drop(slug, () => removeTenantDatabaseFiles(deps.config.dataDir, slug));
    const s = storage();
    const filesRemoved = s
      ? (await removeTenantFiles(s.client, s.config.bucket, slug)) +
        (await removeObjectsUnder(s.client, s.config.bucket, `_snapshots/${slug}/`))
      : 0;
    return { data: { slug, dropped, files_removed: filesRemoved }, meta: {} };
  });
};
