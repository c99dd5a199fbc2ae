import { chmodSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { BackendError } from '../errors.ts';
import { openTenantDatabase, type TenantDatabase } from './database.ts';
import { rebuildSearchIndexes, withoutTriggers } from './derived.ts';

/**
 * A tenant's first-start state: a copy of its database taken right after its first start (the seed and
 * registration of the default tenants; the creation of any other), restored in place by a reset.
 */
export function pristineDir(dataDir: string): string {
  return join(dataDir, 'backend', 'pristine');
}

export function pristineFile(dataDir: string, slug: string): string {
  return join(pristineDir(dataDir), `${slug}.db`);
}

/**
 * Runs `work` holding the tenant's one connection (Kysely's mutex): after the request that holds it
 * (an idempotent write keeps it until its answer) and before the next one. `work` is synchronous, so
 * nothing else runs on the connection meanwhile, not even the raw reads of the idempotency hooks.
 */
export async function withConnection<T>(tenant: TenantDatabase, work: () => T): Promise<T> {
  return tenant.db.connection().execute(async () => work());
}

export interface Snapshot {
  file: string;
  bytes: number;
}

/** Copies the tenant database as it is now (VACUUM INTO, between requests) to its pristine file. */
export async function takePristineSnapshot(tenant: TenantDatabase, dataDir: string, slug: string): Promise<Snapshot> {
  const dir = pristineDir(dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const file = pristineFile(dataDir, slug);
  await copyTenantDatabase(tenant, file);
  return { file, bytes: statSync(file).size };
}

/**
 * An online, consistent copy of the tenant database at `file` (VACUUM INTO on its one connection, between
 * requests), owner-only, replacing `file` only once complete.
 */
export async function copyTenantDatabase(tenant: TenantDatabase, file: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  rmSync(tmp, { force: true });
  await withConnection(tenant, () => tenant.sqlite.prepare('VACUUM INTO ?').run(tmp));
  // Rollback journal: the copy is only ever read (ATTACH), so it never grows -wal/-shm files.
  const copy = new SQLite(tmp);
  try {
    copy.pragma('journal_mode = DELETE');
  } finally {
    copy.close();
  }
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

export interface RestoreOutcome {
  tables: number;
  rows: number;
  /** Markers of gateway writes the tenant held before the reset (all dropped). */
  idempotencyMarkersRemoved: number;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

export function migrationNames(sqlite: SQLite.Database, schema: string): string[] {
  const exists = sqlite
    .prepare(`SELECT 1 FROM ${schema}.sqlite_master WHERE type = 'table' AND name = 'kysely_migration'`)
    .get();
  return exists
    ? (sqlite.prepare(`SELECT name FROM ${schema}.kysely_migration ORDER BY name`).pluck().all() as string[])
    : [];
}

/**
 * Puts the pristine copy's rows back into the open tenant database, in one transaction on its own
 * connection: every table emptied and refilled (same ids, same rows), the idempotency markers
 * included (the copy holds none). In place rather than swapping files: the connection, its prepared
 * statements and any request waiting for it stay valid, and a request never sees a half-reset tenant.
 */
export async function restorePristine(tenant: TenantDatabase, dataDir: string, slug: string): Promise<RestoreOutcome> {
  const file = pristineFile(dataDir, slug);
  if (!existsSync(file)) {
    throw new BackendError(
      'INVALID_STATE',
      'Esta clinica nao tem copia do estado inicial (banco criado antes desta versao ou fora do backend); nao ha para onde voltar.',
      { field: 'slug' },
    );
  }
  return restoreFromCopy(tenant, file, `pristine copy of ${slug}`);
}

/**
 * Puts the rows of any copy of a tenant database (its pristine file, a named snapshot) back into the open
 * tenant database, in place, as a reset does. A copy taken before a migration this release has is migrated
 * first (in place: the state is the copy, migrated).
 */
export async function restoreFromCopy(tenant: TenantDatabase, file: string, what: string): Promise<RestoreOutcome> {
  for (let attempt = 0; ; attempt++) {
    const outcome = await withConnection(tenant, () => restoreOnConnection(tenant.sqlite, file));
    if (outcome !== 'copy-behind') return outcome;
    if (attempt > 0) throw new Error(`${what} could not be migrated`);
    // A migration shipped after the copy was taken: the state is the copy, migrated.
    const copy = await openTenantDatabase(file, { create: false });
    await copy.close();
    const raw = new SQLite(file);
    try {
      raw.pragma('journal_mode = DELETE');
    } finally {
      raw.close();
    }
  }
}

function restoreOnConnection(sqlite: SQLite.Database, file: string): RestoreOutcome | 'copy-behind' {
  sqlite.prepare('ATTACH DATABASE ? AS pristine').run(file);
  // `pristine` is the attached copy's schema name, whichever copy it is.
  try {
    const have = new Set(migrationNames(sqlite, 'pristine'));
    if (migrationNames(sqlite, 'main').some((name) => !have.has(name))) return 'copy-behind';
    // Ordinary tables only: a full-text index (virtual table and its shadow tables) is rebuilt, not copied.
    const tables = sqlite
      .prepare(
        "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kysely_migration%' ORDER BY name",
      )
      .pluck()
      .all() as string[];
    const inPristine = new Set(
      sqlite
        .prepare("SELECT name FROM pragma_table_list WHERE schema = 'pristine' AND type = 'table'")
        .pluck()
        .all() as string[],
    );
    const idempotencyMarkersRemoved = tables.includes('idempotency_markers')
      ? (sqlite.prepare('SELECT COUNT(*) FROM main.idempotency_markers').pluck().get() as number)
      : 0;
    let rows = 0;
    const copyTables = () => {
      for (const table of tables) {
        sqlite.prepare(`DELETE FROM main.${quote(table)}`).run();
        if (!inPristine.has(table)) continue;
        const columns = (sqlite.prepare(`PRAGMA main.table_info(${quote(table)})`).all() as Array<{ name: string }>)
          .map((c) => quote(c.name))
          .join(', ');
        rows += sqlite
          .prepare(`INSERT INTO main.${quote(table)} (${columns}) SELECT ${columns} FROM pristine.${quote(table)}`)
          .run().changes;
      }
      // Idempotency markers never survive a reset, whatever the copy holds.
      if (tables.includes('idempotency_markers')) sqlite.prepare('DELETE FROM main.idempotency_markers').run();
      // AUTOINCREMENT counters (none today) go back too, so new rows get the ids they got after the first start.
      if (sqlite.prepare("SELECT 1 FROM main.sqlite_master WHERE name = 'sqlite_sequence'").get()) {
        sqlite.prepare('DELETE FROM main.sqlite_sequence').run();
        if (inPristine.has('sqlite_sequence'))
          sqlite.prepare('INSERT INTO main.sqlite_sequence SELECT * FROM pristine.sqlite_sequence').run();
      }
    };
    // Every table is refilled whole, so foreign keys hold at the end; checking them row by row only costs.
    sqlite.pragma('foreign_keys = OFF');
    try {
      // Without triggers: the derived tables (counts) come back with the copy's rows, consistent with its
      // other rows, and the search index is rebuilt once from the restored patients, not row by row.
      sqlite.transaction(() =>
        withoutTriggers(sqlite, () => {
          copyTables();
          rebuildSearchIndexes(sqlite);
        }),
      )();
    } finally {
      sqlite.pragma('foreign_keys = ON');
    }
    return { tables: tables.length, rows, idempotencyMarkersRemoved };
  } finally {
    sqlite.exec('DETACH DATABASE pristine');
  }
}
