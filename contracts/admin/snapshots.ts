import { z } from 'zod';
import {
  SNAPSHOT_IMPORT_MAX_BYTES,
  backendSnapshot,
  backendSnapshotDeleted,
  backendSnapshotImported,
  backendSnapshotRestored,
  backendSnapshotSaved,
  backendSnapshotSave,
  snapshotName,
} from '../backend/snapshots.ts';

/**
 * Console API (and automation twins under `/automation/…`): a clinic's named snapshots (issue 30 § 2).
 * `POST /tenants/:slug/snapshots` saves, `GET` lists, `…/:name/restore` restores, `DELETE …/:name` deletes,
 * `GET …/:name/export` downloads the archive, `POST /tenants/:slug/snapshots/import?name=` takes one.
 */
export { SNAPSHOT_IMPORT_MAX_BYTES, snapshotName };

export const snapshotSaveSchema = backendSnapshotSave;
export type SnapshotSaveInput = z.input<typeof snapshotSaveSchema>;

/** A snapshot as listed (newest first). */
export const snapshotView = backendSnapshot;
export type SnapshotView = z.infer<typeof snapshotView>;
export const snapshotSaved = backendSnapshotSaved;
export type SnapshotSaved = z.infer<typeof snapshotSaved>;

/** `/tenants/:slug/snapshots/:name…`. */
export const snapshotParams = z.object({ slug: z.string().min(1).max(63), name: snapshotName });

/** A restore takes no options: an empty body (or `{}`). */
export const snapshotRestoreSchema = z.strictObject({});

/** backend-sim's restore answer, plus the gateway's idempotency entries of the clinic's keys it forgot (no replay from another state). */
export const snapshotRestoreResult = backendSnapshotRestored.extend({ idempotency_keys_removed: z.number().int() });
export type SnapshotRestoreResult = z.infer<typeof snapshotRestoreResult>;

export const snapshotDeleted = backendSnapshotDeleted;
export type SnapshotDeleted = z.infer<typeof snapshotDeleted>;

/** `?name=`: the snapshot's name in this clinic (default: the archive's). */
export const snapshotImportQuery = z.object({ name: snapshotName.optional() });

/** backend-sim's import answer (`created`: the import made the clinic), plus the gateway's forgotten idempotency entries. */
export const snapshotImportResult = backendSnapshotImported.extend({ idempotency_keys_removed: z.number().int() });
export type SnapshotImportResult = z.infer<typeof snapshotImportResult>;
