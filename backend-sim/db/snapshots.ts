import { createHash, randomUUID } from 'node:crypto';
import {
  chmodSync,
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import SQLite from 'better-sqlite3';
import * as tar from 'tar-stream';
import {
  MAX_SNAPSHOTS_PER_CLINIC,
  SNAPSHOT_FORMAT,
  SNAPSHOT_NAME_PATTERN,
  snapshotManifest,
  type BackendSnapshot,
  type SnapshotManifest,
} from '../../contracts/backend/snapshots.ts';
import { BackendError } from '../errors.ts';
import type { FileStore } from '../storage.ts';
import type { TenantDatabase } from './database.ts';
import { migrations } from './migrations/index.ts';
import { copyTenantDatabase, migrationNames, restoreFromCopy, type RestoreOutcome } from './pristine.ts';
import { withoutTriggers } from './derived.ts';

export { SNAPSHOT_NAME_PATTERN };

/**
 * Named snapshots of a clinic (issue 30 § 2; layout in docs/decisions.md S1): the database copy at
 * `DATA_DIR/backend/snapshots/<slug>/<name>.db` (VACUUM INTO, rollback journal, 0600 in 0700 folders), its
 * manifest next to it (`<name>.json`), and copies of the clinic's stored objects in the same bucket under
 * `_snapshots/<slug>/<name>/<original key>` (an underscore cannot start a slug, so no clinic's prefix collides).
 */
export function snapshotsDir(dataDir: string, slug: string): string {
  return join(dataDir, 'backend', 'snapshots', slug);
}

export function snapshotFile(dataDir: string, slug: string, name: string): string {
  return join(snapshotsDir(dataDir, slug), `${name}.db`);
}

export function snapshotManifestFile(dataDir: string, slug: string, name: string): string {
  return join(snapshotsDir(dataDir, slug), `${name}.json`);
}

export function snapshotObjectPrefix(slug: string, name: string): string {
  return `_snapshots/${slug}/${name}/`;
}

/** A clinic's own stored objects (backend-sim/storage.ts): `<slug>/<area>/<uuid>.<ext>`; seed samples live elsewhere. */
export const clinicObjectPrefix = (slug: string): string => `${slug}/`;

/** The columns that hold an object key (a copy into another slug rewrites their `<slug>/` prefix). */
const OBJECT_KEY_COLUMNS: Array<[table: string, column: string]> = [
  ['exame_arquivos', 'object_key'],
  ['prontuario_anexos', 'object_key'],
  ['laudos', 'arquivo_key'],
  ['exames', 'arquivo_exame_key'],
  ['exames', 'arquivo_laudo_key'],
];

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

function writePrivate(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

export async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

async function sha256OfStream(stream: Readable): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    hash.update(chunk as Buffer);
  }
  return { sha256: hash.digest('hex'), size };
}

/** Rows in the ordinary tables of a database file (what a restore copies). */
function countRows(file: string): number {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    const tables = db
      .prepare(
        "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kysely_migration%'",
      )
      .pluck()
      .all() as string[];
    let rows = 0;
    for (const t of tables)
      rows += db
        .prepare(`SELECT COUNT(*) FROM ${quote(t)}`)
        .pluck()
        .get() as number;
    return rows;
  } finally {
    db.close();
  }
}

const snapshotNotFound = (name: string) =>
  new BackendError('RES_NOT_FOUND', `Snapshot "${name}" nao existe nesta clinica.`, { field: 'name' });

export function readManifest(dataDir: string, slug: string, name: string): SnapshotManifest {
  const file = snapshotManifestFile(dataDir, slug, name);
  if (!SNAPSHOT_NAME_PATTERN.test(name) || !existsSync(file) || !existsSync(snapshotFile(dataDir, slug, name)))
    throw snapshotNotFound(name);
  return snapshotManifest.parse(JSON.parse(readFileSync(file, 'utf8')));
}

export function summary(m: SnapshotManifest): BackendSnapshot {
  return {
    name: m.name,
    slug: m.slug,
    created_at: m.created_at,
    bytes: m.bytes,
    rows: m.rows,
    files: m.files.length,
    release: m.release,
  };
}

/** The clinic's snapshots, newest first. */
export function listSnapshots(dataDir: string, slug: string): SnapshotManifest[] {
  const dir = snapshotsDir(dataDir, slug);
  if (!existsSync(dir)) return [];
  const found: SnapshotManifest[] = [];
  for (const entry of readdirSync(dir)) {
    if (!entry.endsWith('.json')) continue;
    const name = entry.slice(0, -5);
    if (!SNAPSHOT_NAME_PATTERN.test(name)) continue;
    try {
      found.push(readManifest(dataDir, slug, name));
    } catch {
      // A manifest without its database (a save cut short) is not a snapshot.
    }
  }
  return found.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
}

export interface SnapshotContext {
  dataDir: string;
  slug: string;
  files: FileStore;
  release: string;
  now(): string;
}

/** Copies of the clinic's objects under the snapshot's prefix, each with its checksum (read back from the copy). */
async function copyObjectsInto(
  files: FileStore,
  keys: Array<{ key: string }>,
  prefix: string,
): Promise<SnapshotManifest['files']> {
  const entries: SnapshotManifest['files'] = [];
  for (const { key } of keys) {
    await files.copy(key, prefix + key);
    entries.push({ key, ...(await sha256OfStream(await files.stream(prefix + key))) });
  }
  return entries;
}

async function removePrefix(files: FileStore, prefix: string): Promise<number> {
  if (!files.configured) return 0;
  const keys = (await files.list(prefix)).map((o) => o.key);
  await files.remove(keys);
  return keys.length;
}

/**
 * Saves the clinic's state under `name`. `hold` runs its argument with the clinic's requests held off
 * (TenantGate.exclusive): only the database copy and the listing of the clinic's objects need it — objects are
 * never changed once written, and only a restore or reset (serialized with this) removes a clinic's objects.
 */
export async function saveSnapshot(
  tenant: TenantDatabase,
  ctx: SnapshotContext,
  name: string,
  options: { replace?: boolean; hold: <T>(work: () => Promise<T>) => Promise<T> },
): Promise<SnapshotManifest> {
  const { dataDir, slug, files } = ctx;
  const manifestFile = snapshotManifestFile(dataDir, slug, name);
  const exists = existsSync(manifestFile);
  if (exists && !options.replace)
    throw new BackendError(
      'CONFLICT',
      `Ja existe um snapshot "${name}" nesta clinica: escolha outro nome, apague-o ou peca para substitui-lo (replace).`,
      { field: 'name' },
    );
  if (!exists && listSnapshots(dataDir, slug).length >= MAX_SNAPSHOTS_PER_CLINIC)
    throw new BackendError(
      'BUSINESS_RULE',
      `Esta clinica ja tem ${MAX_SNAPSHOTS_PER_CLINIC} snapshots (o maximo): apague algum antes de salvar outro.`,
      { limit: MAX_SNAPSHOTS_PER_CLINIC },
    );
  ensurePrivateDir(snapshotsDir(dataDir, slug));
  const file = snapshotFile(dataDir, slug, name);
  const staged = `${file}.${randomUUID()}.saving`;
  try {
    const listed = await options.hold(async () => {
      await copyTenantDatabase(tenant, staged);
      return files.configured ? files.list(clinicObjectPrefix(slug)) : [];
    });
    const prefix = snapshotObjectPrefix(slug, name);
    if (exists) {
      rmSync(manifestFile, { force: true });
      await removePrefix(files, prefix);
    }
    const fileEntries = await copyObjectsInto(files, listed, prefix);
    renameSync(staged, file);
    const manifest: SnapshotManifest = {
      format: SNAPSHOT_FORMAT,
      name,
      slug,
      created_at: ctx.now(),
      release: ctx.release,
      bytes: statSync(file).size,
      sha256: await sha256OfFile(file),
      rows: countRows(file),
      files: fileEntries,
    };
    // Written last: a snapshot exists once its manifest does.
    writePrivate(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
    return manifest;
  } finally {
    rmSync(staged, { force: true });
  }
}

export interface SnapshotRestoreOutcome extends RestoreOutcome {
  filesRestored: number;
  filesRemoved: number;
  databaseMs: number;
}

/**
 * Puts the clinic back to the snapshot: its objects copied back to their keys first (the current rows do not
 * point at them, so nobody sees them early), then — with the clinic's requests held off — the database refilled
 * in place and the clinic's objects listed; the objects the restored state does not hold are removed after.
 */
export async function restoreSnapshot(
  tenant: TenantDatabase,
  ctx: Omit<SnapshotContext, 'release' | 'now'>,
  name: string,
  hold: <T>(work: () => Promise<T>) => Promise<T>,
): Promise<SnapshotRestoreOutcome> {
  const { dataDir, slug, files } = ctx;
  const manifest = readManifest(dataDir, slug, name);
  const prefix = snapshotObjectPrefix(slug, name);
  if (manifest.files.length && !files.configured)
    throw new BackendError('INVALID_STATE', 'O snapshot tem arquivos, mas o armazenamento nao esta configurado.');
  for (const f of manifest.files) await files.copy(prefix + f.key, f.key);
  const keep = new Set(manifest.files.map((f) => f.key));
  let databaseMs = 0;
  const { outcome, extra } = await hold(async () => {
    const started = performance.now();
    const outcome = await restoreFromCopy(tenant, snapshotFile(dataDir, slug, name), `snapshot ${slug}/${name}`);
    databaseMs = performance.now() - started;
    const extra = files.configured
      ? (await files.list(clinicObjectPrefix(slug))).map((o) => o.key).filter((k) => !keep.has(k))
      : [];
    return { outcome, extra };
  });
  await files.remove(extra);
  return { ...outcome, filesRestored: manifest.files.length, filesRemoved: extra.length, databaseMs };
}

export async function deleteSnapshot(ctx: Omit<SnapshotContext, 'release' | 'now'>, name: string): Promise<void> {
  readManifest(ctx.dataDir, ctx.slug, name);
  // The manifest first: a half-deleted snapshot is not listed.
  rmSync(snapshotManifestFile(ctx.dataDir, ctx.slug, name), { force: true });
  rmSync(snapshotFile(ctx.dataDir, ctx.slug, name), { force: true });
  await removePrefix(ctx.files, snapshotObjectPrefix(ctx.slug, name));
}

const ARCHIVE_MANIFEST = 'manifest.json';
const ARCHIVE_DATABASE = 'database.db';
const ARCHIVE_FILES = 'files/';
/** A manifest larger than this is not one of ours. */
const MANIFEST_MAX_BYTES = 16 * 1024 * 1024;

/**
 * The snapshot as one tar archive: `manifest.json` first (format, release, checksums of the database and of
 * every file), then `database.db`, then `files/<key>` for each stored object. The database checksum is taken
 * again here (a restore may have migrated the copy in place since it was saved).
 */
export async function exportSnapshot(
  ctx: Omit<SnapshotContext, 'release' | 'now'>,
  name: string,
): Promise<{ archive: Readable; manifest: SnapshotManifest }> {
  const { dataDir, slug, files } = ctx;
  const stored = readManifest(dataDir, slug, name);
  const file = snapshotFile(dataDir, slug, name);
  const manifest: SnapshotManifest = { ...stored, bytes: statSync(file).size, sha256: await sha256OfFile(file) };
  const pack = tar.pack();
  const prefix = snapshotObjectPrefix(slug, name);
  const entry = (header: Parameters<tar.Pack['entry']>[0], source: Readable | Buffer) =>
    new Promise<void>((resolve, reject) => {
      if (Buffer.isBuffer(source)) {
        pack.entry(header, source, (err) => (err ? reject(err) : resolve()));
        return;
      }
      const sink = pack.entry(header, (err) => (err ? reject(err) : resolve()));
      source.on('error', reject);
      source.pipe(sink as unknown as NodeJS.WritableStream);
    });
  (async () => {
    const mtime = new Date(manifest.created_at);
    await entry({ name: ARCHIVE_MANIFEST, mode: 0o600, mtime }, Buffer.from(JSON.stringify(manifest, null, 2)));
    await entry({ name: ARCHIVE_DATABASE, size: manifest.bytes, mode: 0o600, mtime }, createReadStream(file));
    for (const f of manifest.files)
      await entry(
        { name: ARCHIVE_FILES + f.key, size: f.size, mode: 0o600, mtime },
        await files.stream(prefix + f.key),
      );
    pack.finalize();
  })().catch((error: unknown) => pack.destroy(error instanceof Error ? error : new Error(String(error))));
  return { archive: pack as unknown as Readable, manifest };
}

const damaged = (reason: string, message: string, extra: Record<string, unknown> = {}) =>
  new BackendError('VAL_INVALID_PARAM', message, { field: 'archive', reason, ...extra });

/** An archive read and checked in a staging folder: nothing of the clinic changed yet. */
export interface StagedArchive {
  dir: string;
  manifest: SnapshotManifest;
  database: string;
  /** Staged file of each object key. */
  files: Map<string, string>;
}

/** Counts the bytes that stream through, refusing past `max`. */
function capped(max: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > max)
        return done(
          new BackendError('VAL_FILE_TOO_LARGE', `Arquivo de snapshot maior que o limite de ${max} bytes.`, {
            field: 'archive',
            limit_bytes: max,
          }),
        );
      done(null, chunk);
    },
  });
}

async function writeStaged(source: Readable, file: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  const out = createWriteStream(file, { mode: 0o600 });
  await pipeline(
    source,
    new Transform({
      transform(chunk: Buffer, _enc, done) {
        hash.update(chunk);
        size += chunk.length;
        done(null, chunk);
      },
    }),
    out,
  );
  return { sha256: hash.digest('hex'), size };
}

/**
 * Reads an archive into `stagingRoot/<random>/` and checks it whole before anyone uses it: `manifest.json`
 * first, a format this release reads, the database and every file present with the manifest's size and
 * SHA-256, nothing else, the database's migrations all known to this release. Any failure removes the
 * staging folder and answers 400 (413-like VAL_FILE_TOO_LARGE past `maxBytes`) with the reason.
 */
export async function stageArchive(body: Readable, stagingRoot: string, maxBytes: number): Promise<StagedArchive> {
  ensurePrivateDir(stagingRoot);
  const dir = join(stagingRoot, randomUUID());
  ensurePrivateDir(dir);
  try {
    const extract = tar.extract();
    const counted = capped(maxBytes);
    // The body is piped, not pipelined: on a refusal the rest of it is read and dropped, so the caller gets the
    // answer rather than a reset connection.
    body.pipe(counted);
    const feeding = pipeline(counted, extract as unknown as NodeJS.WritableStream);
    let manifest: SnapshotManifest | null = null;
    let database: { file: string; sha256: string; size: number } | null = null;
    const staged = new Map<string, { file: string; sha256: string; size: number }>();
    let index = 0;
    try {
      for await (const entry of extract) {
        const { name, type } = entry.header;
        if (manifest === null) {
          if (name !== ARCHIVE_MANIFEST || type !== 'file' || entry.header.size > MANIFEST_MAX_BYTES)
            throw damaged('not_a_snapshot', 'O arquivo nao e um snapshot: manifest.json nao vem primeiro.');
          const chunks: Buffer[] = [];
          for await (const c of entry) chunks.push(c as Buffer);
          manifest = parseManifest(Buffer.concat(chunks));
          continue;
        }
        if (type !== 'file') throw damaged('unexpected_entry', `Entrada inesperada no snapshot: ${name}.`);
        if (name === ARCHIVE_DATABASE && !database) {
          const file = join(dir, 'database.db');
          database = { file, ...(await writeStaged(entry as unknown as Readable, file)) };
        } else if (name.startsWith(ARCHIVE_FILES) && !staged.has(name.slice(ARCHIVE_FILES.length))) {
          const key = name.slice(ARCHIVE_FILES.length);
          if (!manifest.files.some((f) => f.key === key))
            throw damaged('unexpected_entry', `Arquivo fora do manifest no snapshot: ${key}.`);
          const file = join(dir, `file-${index++}`);
          staged.set(key, { file, ...(await writeStaged(entry as unknown as Readable, file)) });
        } else {
          throw damaged('unexpected_entry', `Entrada inesperada no snapshot: ${name}.`);
        }
      }
      await feeding;
    } catch (error) {
      // Whichever side failed first, the body's (too large) or the reader's (damaged), that is the answer.
      body.unpipe(counted);
      counted.destroy();
      const fed = await feeding.then(
        () => null,
        (e: unknown) => e,
      );
      // Past the size cap the rest is not read (it may never end): the connection closes instead.
      const tooLarge = fed instanceof BackendError && fed.code === 'VAL_FILE_TOO_LARGE';
      if (!tooLarge) await discard(body);
      throw classify(fed instanceof BackendError ? fed : error);
    }
    if (!manifest) throw damaged('not_a_snapshot', 'O arquivo esta vazio ou nao e um arquivo tar de snapshot.');
    if (!database) throw damaged('truncated', 'O snapshot esta incompleto: falta o banco (database.db).');
    if (database.size !== manifest.bytes || database.sha256 !== manifest.sha256)
      throw damaged('checksum', 'O banco do snapshot nao confere com o SHA-256 do manifest: arquivo danificado.', {
        entry: ARCHIVE_DATABASE,
      });
    const files = new Map<string, string>();
    for (const f of manifest.files) {
      const s = staged.get(f.key);
      if (!s) throw damaged('truncated', `O snapshot esta incompleto: falta o arquivo ${f.key}.`, { entry: f.key });
      if (s.size !== f.size || s.sha256 !== f.sha256)
        throw damaged('checksum', `O arquivo ${f.key} nao confere com o SHA-256 do manifest: arquivo danificado.`, {
          entry: f.key,
        });
      files.set(f.key, s.file);
    }
    checkDatabase(database.file);
    return { dir, manifest, database: database.file, files };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Reads what is left of a refused body (bounded by the caller's own limit), so the refusal can be answered. */
async function discard(body: Readable): Promise<void> {
  if (body.readableEnded || body.destroyed) return;
  await new Promise<void>((resolve) => {
    body
      .once('end', resolve)
      .once('error', () => resolve())
      .once('close', resolve);
    body.resume();
  });
}

function parseManifest(text: Buffer): SnapshotManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(text.toString('utf8'));
  } catch {
    throw damaged('bad_manifest', 'O manifest.json do snapshot nao e JSON valido.');
  }
  const format = (raw as { format?: unknown } | null)?.format;
  if (typeof format === 'number' && format > SNAPSHOT_FORMAT)
    throw damaged(
      'newer_format',
      `Snapshot no formato ${format}, mais novo que o que esta versao le (${SNAPSHOT_FORMAT}): importe-o numa versao mais nova do appliance.`,
      { format, supported_format: SNAPSHOT_FORMAT, release: (raw as { release?: unknown }).release ?? null },
    );
  const parsed = snapshotManifest.safeParse(raw);
  if (!parsed.success) throw damaged('bad_manifest', 'O manifest.json do snapshot nao tem o formato esperado.');
  if (new Set(parsed.data.files.map((f) => f.key)).size !== parsed.data.files.length)
    throw damaged('bad_manifest', 'O manifest.json do snapshot repete um arquivo.');
  return parsed.data;
}

/** tar-stream's and the stream's own failures, said as what they mean for the operator. */
function classify(error: unknown): unknown {
  if (error instanceof BackendError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (/unexpected end|premature|aborted|ECONNRESET/i.test(message))
    return damaged('truncated', 'O snapshot esta truncado (o arquivo termina antes do fim).');
  if (/invalid tar header|not a tar|header/i.test(message))
    return damaged('not_a_snapshot', 'O arquivo nao e um arquivo tar de snapshot.');
  return damaged('not_a_snapshot', `O arquivo nao pode ser lido como snapshot: ${message}`);
}

/** A SQLite database whose migrations this release all has (a newer release's copy could hold tables it lacks). */
function checkDatabase(file: string): void {
  let db: SQLite.Database;
  try {
    db = new SQLite(file, { fileMustExist: true });
  } catch {
    throw damaged('bad_database', 'O banco do snapshot nao e um banco SQLite.');
  }
  try {
    const ok = db.pragma('quick_check', { simple: true });
    if (ok !== 'ok') throw damaged('bad_database', 'O banco do snapshot esta corrompido.');
    const known = new Set(Object.keys(migrations));
    const unknown = migrationNames(db, 'main').filter((n) => !known.has(n));
    if (unknown.length)
      throw damaged(
        'newer_release',
        'O banco do snapshot vem de uma versao mais nova do appliance (migracoes que esta nao conhece).',
        { migrations: unknown.slice(0, 10) },
      );
  } catch (error) {
    if (error instanceof BackendError) throw error;
    throw damaged('bad_database', 'O banco do snapshot nao e um banco SQLite valido.');
  } finally {
    db.close();
  }
}

/** Rows of a copy from clinic `from` point at `<from>/…` objects; in clinic `to` they point at `<to>/…`. */
function rewriteObjectKeys(file: string, from: string, to: string): void {
  if (from === to) return;
  const db = new SQLite(file, { fileMustExist: true });
  try {
    const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
    const escaped = `${from.replace(/[\\%_]/g, (c) => `\\${c}`)}/%`;
    withoutTriggers(db, () =>
      db.transaction(() => {
        for (const [table, column] of OBJECT_KEY_COLUMNS) {
          if (!tables.has(table)) continue;
          db.prepare(
            `UPDATE ${quote(table)} SET ${quote(column)} = ? || substr(${quote(column)}, ?) WHERE ${quote(column)} LIKE ? ESCAPE '\\'`,
          ).run(`${to}/`, from.length + 2, escaped);
        }
      })(),
    );
  } finally {
    db.close();
  }
}

export const rewriteKey = (key: string, from: string, to: string): string =>
  from !== to && key.startsWith(`${from}/`) ? `${to}/${key.slice(from.length + 1)}` : key;

/**
 * A checked archive becomes the named snapshot `name` of clinic `slug` (the keys rewritten to it when it came
 * from another slug), replacing one of that name. The staging folder is consumed.
 */
export async function installStaged(
  staged: StagedArchive,
  ctx: SnapshotContext,
  name: string,
): Promise<SnapshotManifest> {
  const { dataDir, slug, files } = ctx;
  const from = staged.manifest.slug;
  try {
    if (staged.manifest.files.length && !files.configured)
      throw new BackendError('INVALID_STATE', 'O snapshot tem arquivos, mas o armazenamento nao esta configurado.');
    const manifestFile = snapshotManifestFile(dataDir, slug, name);
    if (!existsSync(manifestFile) && listSnapshots(dataDir, slug).length >= MAX_SNAPSHOTS_PER_CLINIC)
      throw new BackendError(
        'BUSINESS_RULE',
        `Esta clinica ja tem ${MAX_SNAPSHOTS_PER_CLINIC} snapshots (o maximo): apague algum antes de importar.`,
        { limit: MAX_SNAPSHOTS_PER_CLINIC },
      );
    rewriteObjectKeys(staged.database, from, slug);
    ensurePrivateDir(snapshotsDir(dataDir, slug));
    rmSync(manifestFile, { force: true });
    const prefix = snapshotObjectPrefix(slug, name);
    await removePrefix(files, prefix);
    const entries: SnapshotManifest['files'] = [];
    for (const f of staged.manifest.files) {
      const key = rewriteKey(f.key, from, slug);
      const source = staged.files.get(f.key) as string;
      await files.putFrom(prefix + key, createReadStream(source), f.size);
      entries.push({ ...f, key });
    }
    const file = snapshotFile(dataDir, slug, name);
    chmodSync(staged.database, 0o600);
    renameSync(staged.database, file);
    const manifest: SnapshotManifest = {
      ...staged.manifest,
      name,
      slug,
      bytes: statSync(file).size,
      sha256: await sha256OfFile(file),
      files: entries,
    };
    writePrivate(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
    return manifest;
  } finally {
    rmSync(staged.dir, { recursive: true, force: true });
  }
}
