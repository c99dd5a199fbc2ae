import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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
