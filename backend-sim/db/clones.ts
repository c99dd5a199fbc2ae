import { chmodSync, copyFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { BackendError } from '../errors.ts';
import { tenantDir, tenantFile } from '../tenants.ts';
import { pristineDir, pristineFile } from './pristine.ts';

/**
 * Issue 30 § Ephemeral clinics: a clinic made as a FILE copy of a template (its first-start copy, or a named
 * snapshot of slice A's layout), never a re-seed. The copy's rows that name a stored object of the template
 * (`<template>/<area>/<uuid>.<ext>`, backend-sim/storage.ts) are rewritten to the clone's prefix; the objects
 * themselves are copied by the route. Seed samples (`seed-samples/…`) are shared and stay as they are.
 */

/** Snapshot layout of /work/plan-i30.md (slice A owns it: backend-sim/db/snapshots.ts once merged). */
export function cloneSourceSnapshotFile(dataDir: string, slug: string, name: string): string {
  return join(dataDir, 'backend', 'snapshots', slug, `${name}.db`);
}
export function cloneSourceSnapshotPrefix(slug: string, name: string): string {
  return `_snapshots/${slug}/${name}/`;
}

/** The columns that hold an object key. */
const OBJECT_KEY_COLUMNS = [
  { table: 'exames', column: 'arquivo_exame_key' },
  { table: 'exames', column: 'arquivo_laudo_key' },
  { table: 'exame_arquivos', column: 'object_key' },
  { table: 'laudos', column: 'arquivo_key' },
  { table: 'prontuario_anexos', column: 'object_key' },
] as const;

export interface ClonedDatabase {
  /** The objects to copy: where the template keeps each (source) and its key in the clone (target). */
  objects: Array<{ source: string; target: string }>;
  bytes: number;
}

/**
 * Copies `source` (a database only ever read: a first-start copy or a snapshot, both written by rename) to
 * the clone's database and its first-start copy, with the object keys rewritten. Refuses a slug that has a
 * database already. The clone's first-start copy is the template state, so a reset puts it back there.
 */
export function cloneDatabaseFile(
  dataDir: string,
  input: { template: string; slug: string; source: string; objectPrefix: string },
): ClonedDatabase {
  const target = tenantFile(dataDir, input.slug);
  if (existsSync(target))
    throw new BackendError('CONFLICT', `Ja existe uma clinica "${input.slug}".`, { field: 'slug' });
  if (!existsSync(input.source))
    throw new BackendError(
      'RES_NOT_FOUND',
      'Modelo inexistente: nem copia do estado inicial nem snapshot com esse nome.',
      {
        field: 'template',
      },
    );
  for (const dir of [tenantDir(dataDir), pristineDir(dataDir)]) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
  }
  const tmp = `${target}.${process.pid}.clone.tmp`;
  rmSync(tmp, { force: true });
  try {
    copyFileSync(input.source, tmp);
    chmodSync(tmp, 0o600);
    // One object may be named by several columns (a report's file: the report and its exam).
    const objects = new Map<string, string>();
    const copy = new SQLite(tmp);
    try {
      copy.pragma('journal_mode = DELETE');
      const from = `${input.template}/`;
      const to = `${input.slug}/`;
      copy.transaction(() => {
        for (const { table, column } of OBJECT_KEY_COLUMNS) {
          const exists = copy.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table);
          if (!exists) continue;
          const keys = copy
            .prepare(`SELECT DISTINCT ${column} FROM ${table} WHERE substr(${column}, 1, ?) = ?`)
            .pluck()
            .all(from.length, from) as string[];
          for (const key of keys) objects.set(input.objectPrefix + key, to + key.slice(from.length));
          copy
            .prepare(`UPDATE ${table} SET ${column} = ? || substr(${column}, ?) WHERE substr(${column}, 1, ?) = ?`)
            .run(to, from.length + 1, from.length, from);
        }
        // A template never lends its replay markers (the gateway's keys are the clone's own).
        if (copy.prepare("SELECT 1 FROM sqlite_master WHERE name = 'idempotency_markers'").get())
          copy.prepare('DELETE FROM idempotency_markers').run();
      })();
    } finally {
      copy.close();
    }
    const pristine = pristineFile(dataDir, input.slug);
    copyFileSync(tmp, `${pristine}.tmp`);
    chmodSync(`${pristine}.tmp`, 0o600);
    renameSync(`${pristine}.tmp`, pristine);
    const bytes = statSync(tmp).size;
    renameSync(tmp, target);
    return { objects: [...objects].map(([source, target]) => ({ source, target })), bytes };
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** Every file of a clinic's database: the database and its WAL companions, its first-start copy, its snapshots. */
export function removeTenantDatabaseFiles(dataDir: string, slug: string): boolean {
  const file = tenantFile(dataDir, slug);
  const existed = existsSync(file);
  for (const name of [file, `${file}-wal`, `${file}-shm`, pristineFile(dataDir, slug)]) rmSync(name, { force: true });
  rmSync(join(dataDir, 'backend', 'snapshots', slug), { recursive: true, force: true });
  return existed;
}
