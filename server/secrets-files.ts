import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Creates DATA_DIR (or any directory holding secrets or databases) readable only by its owner, and
 * tightens one that exists to 0700 (data dirs of earlier releases were 0755). chmod, not the umask:
 * the mode must not depend on how the process was started, and a library must not change the umask.
 * A directory the process does not own (a mounted volume) is left as it is.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if ((statSync(dir).mode & 0o777) === 0o700) return;
  try {
    chmodSync(dir, 0o700);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
  }
}

/** An SQLite database and its -wal/-shm (and rollback -journal) files, where present, to 0600. */
export function restrictDatabaseFiles(file: string): void {
  for (const name of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) {
    try {
      chmodSync(name, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

/** Reads DATA_DIR/<name>, or creates it once with a random value, readable only by its owner. */
export function readOrCreateSecretFile(dataDir: string, name: string, bytes = 24): string {
  ensurePrivateDir(dataDir);
  const file = path.join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const value = randomBytes(bytes).toString('hex');
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return value;
}

export function writePrivateFile(file: string, content: string): void {
  ensurePrivateDir(path.dirname(file));
  writeFileSync(file, content, { mode: 0o600 });
  chmodSync(file, 0o600);
}

export const backendTokenFor = (dataDir: string, fromEnv?: string): string =>
  fromEnv ?? readOrCreateSecretFile(dataDir, 'backend.token');

/** DATA_DIR/storage.credentials: the embedded S3's key pair, generated on first start. */
export const STORAGE_CREDENTIALS_FILE = 'storage.credentials';

export interface StorageCredentials {
  accessKey: string;
  secretKey: string;
}

/**
 * The embedded S3's key pair from DATA_DIR/storage.credentials (`<access key>:<secret key>`, 0600),
 * created once with random values: s3rver's built-in `S3RVER`/`S3RVER` is published, so anyone on the
 * machine could use it. Written aside and hard-linked into place: two processes starting on a new
 * DATA_DIR at once end up with the same pair, and none reads a half-written file.
 */
export function storageCredentialsFor(dataDir: string): StorageCredentials {
  ensurePrivateDir(dataDir);
  const file = path.join(dataDir, STORAGE_CREDENTIALS_FILE);
  if (!existsSync(file)) {
    // The S3 convention: a 20-character upper-case access key id and a 40-character secret.
    const generated = `${randomBytes(10).toString('hex').toUpperCase()}:${randomBytes(20).toString('hex')}`;
    const aside = `${file}.${process.pid}.tmp`;
    writeFileSync(aside, `${generated}\n`, { mode: 0o600 });
    try {
      linkSync(aside, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      unlinkSync(aside);
    }
  }
  chmodSync(file, 0o600);
  const [accessKey, secretKey, ...rest] = readFileSync(file, 'utf8').trim().split(':');
  if (!accessKey || !secretKey || rest.length > 0) {
    throw new Error(`${file} must hold one line <access key>:<secret key> (delete it to generate a new pair)`);
  }
  return { accessKey, secretKey };
}
