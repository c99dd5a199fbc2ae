import { existsSync, statSync } from 'node:fs';
import type * as Minio from 'minio';
import { z } from 'zod';
import { createS3Client } from '../../shared-node/s3-client.ts';
import type { BackendDeps, BackendRoutes } from '../deps.ts';
import type { BackendS3Config } from '../config.ts';
import { pristineFile, restorePristine, takePristineSnapshot } from '../db/pristine.ts';
import { clinicaNome } from '../domain/clinica/clinica.service.ts';
import { parse } from '../lib/http.ts';
import { SLUG_PATTERN } from '../tenants.ts';
import {
  backendSnapshotInput as snapshotInput,
  backendTenantResetInput as resetInput,
} from '../../contracts/backend/admin.ts';

export const slugParams = z.object({ slug: z.string().regex(SLUG_PATTERN) });

/** The storage client of the admin routes, made on first use; null without storage configured. */
export function adminStorage(
  deps: Pick<BackendDeps, 'config'>,
): () => { client: Minio.Client; config: BackendS3Config } | null {
  let s3: { client: Minio.Client; config: BackendS3Config } | null = null;
  return () => {
    if (!deps.config.s3) return null;
    s3 ??= {
      client: createS3Client({ ...deps.config.s3, region: deps.config.s3.region ?? 'us-east-1' }),
      config: deps.config.s3,
    };
    return s3;
  };
}

/** Objects uploaded for one tenant: `<slug>/<area>/<uuid>.<ext>` (storage.ts); seed samples live elsewhere. */
export async function removeTenantFiles(client: Minio.Client, bucket: string, slug: string): Promise<number> {
  return removeObjectsUnder(client, bucket, `${slug}/`);
}

/** Every object whose key starts with `prefix`, in batches of 1000. */
export async function removeObjectsUnder(client: Minio.Client, bucket: string, prefix: string): Promise<number> {
  const keys: string[] = [];
  const stream = client.listObjectsV2(bucket, prefix, true);
  for await (const item of stream as AsyncIterable<{ name?: string }>) if (item.name) keys.push(item.name);
  for (let i = 0; i < keys.length; i += 1000) await client.removeObjects(bucket, keys.slice(i, i + 1000));
  return keys.length;
}

/**
 * First-start snapshots and resets (issue 13): `POST /admin/tenants/:slug/pristine` records the tenant's
 * state as its first-start state; `POST /admin/tenants/:slug/reset` puts it back (same ids, same rows),
 * drops the idempotency markers and, with `files`, the objects uploaded for the tenant.
 */
export const resetRoutes: BackendRoutes = (deps) => async (app) => {
  const storage = adminStorage(deps);

  // Without `replace`, an existing copy is kept (the first start happens once).
  app.post('/admin/tenants/:slug/pristine', async (req, reply) => {
    const { slug } = parse(slugParams, req.params);
    const input = parse(snapshotInput, req.body ?? {});
    const tenant = await deps.tenants.get(slug);
    const file = pristineFile(deps.config.dataDir, slug);
    if (existsSync(file) && !input.replace)
      return { data: { slug, created: false, bytes: statSync(file).size }, meta: {} };
    const snapshot = await takePristineSnapshot(tenant, deps.config.dataDir, slug);
    return reply.status(201).send({ data: { slug, created: true, bytes: snapshot.bytes }, meta: {} });
  });

  app.post('/admin/tenants/:slug/reset', async (req) => {
    const started = performance.now();
    const { slug } = parse(slugParams, req.params);
    const input = parse(resetInput, req.body ?? {});
    const tenant = await deps.tenants.get(slug);
    const restored = await restorePristine(tenant, deps.config.dataDir, slug);
    const databaseMs = performance.now() - started;
    let filesRemoved: number | null = null;
    if (input.files) {
      const s = storage();
      filesRemoved = s ? await removeTenantFiles(s.client, s.config.bucket, slug) : 0;
    }
    const nome = await clinicaNome(tenant.db);
    return {
      data: {
        slug,
        nome,
        tables: restored.tables,
        rows: restored.rows,
        idempotency_markers_removed: restored.idempotencyMarkersRemoved,
        files_removed: filesRemoved,
        database_ms: Math.round(databaseMs * 10) / 10,
        duration_ms: Math.round((performance.now() - started) * 10) / 10,
      },
      meta: {},
    };
  });
};
