import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Reads DATA_DIR/<name>, or creates it once with a random value, readable only by its owner. */
export function readOrCreateSecretFile(dataDir: string, name: string, bytes = 24): string {
  const file = path.join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const value = randomBytes(bytes).toString('hex');
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return value;
}

export function writePrivateFile(file: string, content: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content, { mode: 0o600 });
  chmodSync(file, 0o600);
}

export const backendTokenFor = (dataDir: string, fromEnv?: string): string =>
  fromEnv ?? readOrCreateSecretFile(dataDir, 'backend.token');
