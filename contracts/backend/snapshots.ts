import { z } from 'zod';
import { backendTenantReset } from './admin.ts';
import { tenantPath } from './tenants.ts';

/**
 * gateway → backend-sim: a clinic's named snapshots (issue 30 § 2). A snapshot is the clinic's state — its
 * database (an online `VACUUM INTO` copy) and its stored files — under a name; keys and the journal are the
 * gateway's and never in it. backend-sim keeps them (backend-sim/db/snapshots.ts) and builds or reads the
 * portable archive; the gateway fronts them (server/tenants/snapshots.ts).
 */

/** A snapshot's name: names files (`<name>.db`) and an object prefix, so no slash and no leading dot. */
export const SNAPSHOT_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;
export const snapshotName = z
  .string()
  .trim()
  .regex(SNAPSHOT_NAME_PATTERN, 'Use 1-64 letras minusculas, digitos, ".", "_" ou "-", comecando por letra ou digito.');

/** The archive format this release writes and the newest it reads. */
export const SNAPSHOT_FORMAT = 1;
/** Snapshots a clinic may hold at once (each is a full copy of its database and files). */
export const MAX_SNAPSHOTS_PER_CLINIC = 50;
/** The largest archive an import takes (bytes): 2 GiB, checked while it streams in, never buffered in memory. */
export const SNAPSHOT_IMPORT_MAX_BYTES = 2 * 1024 ** 3;

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);
const count = z.number().int().min(0);

export const snapshotFileEntry = z.object({
  /** The object key as the clinic's rows hold it (`<slug>/<area>/<uuid>.<ext>`). */
  key: z.string().min(1).max(1024),
  size: count,
  sha256: sha256Hex,
});

/** `DATA_DIR/backend/snapshots/<slug>/<name>.json`, and `manifest.json` of an archive. */
export const snapshotManifest = z.object({
  format: z.number().int().min(1),
  name: z.string().regex(SNAPSHOT_NAME_PATTERN),
  slug: z.string(),
  created_at: z.string(),
  /** The appliance release (package.json version) that wrote it. */
  release: z.string(),
  /** The database copy's size and SHA-256. */
  bytes: count,
  sha256: sha256Hex,
  /** Rows in the copy's tables. */
  rows: count,
  files: z.array(snapshotFileEntry),
});
export type SnapshotManifest = z.infer<typeof snapshotManifest>;

/** A snapshot as listed and as a save answers it (the manifest without the per-file list). */
export const backendSnapshot = snapshotManifest
  .pick({ name: true, slug: true, created_at: true, bytes: true, rows: true, release: true })
  .extend({ files: count });
export type BackendSnapshot = z.infer<typeof backendSnapshot>;

/** `POST /admin/tenants/{slug}/snapshots`: `replace` overwrites a snapshot of that name (else 422 CONFLICT). */
export const backendSnapshotSave = z.strictObject({ name: snapshotName, replace: z.boolean().optional() });
export const backendSnapshotSaved = backendSnapshot.extend({ duration_ms: z.number() });

/** `POST /admin/tenants/{slug}/snapshots/{name}/restore`. */
/** A reset to another copy: the reset's fields (`nome`: the clinic's name in the restored state), and the copy's. */
export const backendSnapshotRestored = backendTenantReset
  .pick({ slug: true, nome: true, idempotency_markers_removed: true, database_ms: true })
  .extend({
    name: z.string(),
    rows_restored: count,
    files_restored: count,
    files_removed: count,
    duration_ms: z.number(),
  });
export type BackendSnapshotRestored = z.infer<typeof backendSnapshotRestored>;

/** `POST /admin/tenants/{slug}/snapshots/import?name=&create=`: the archive stored as a snapshot, then restored. */
export const backendSnapshotImportQuery = z.object({
  name: snapshotName.optional(),
  /** `1`: create the clinic's database when it has none (an import into a new clinic). */
  create: z.enum(['0', '1']).default('0'),
});
export const backendSnapshotImported = backendSnapshotRestored.extend({
  created: z.boolean(),
  /** The clinic and release the archive came from. */
  source_slug: z.string(),
  source_release: z.string(),
});
export type BackendSnapshotImported = z.infer<typeof backendSnapshotImported>;

export const backendSnapshotDeleted = z.object({ slug: z.string(), name: z.string(), deleted: z.literal(true) });

/** backend-sim's paths: `/admin/tenants/{slug}/snapshots[/{name}[/restore|/export]]`. */
export const snapshotsPath = (slug: string, name?: string, below = ''): string =>
  `/admin${tenantPath(slug, `/snapshots${name === undefined ? '' : `/${encodeURIComponent(name)}`}${below}`)}`;

/** The archive's file name as an export offers it. */
export const snapshotArchiveName = (slug: string, name: string): string => `${slug}--${name}.snapshot.tar`;
