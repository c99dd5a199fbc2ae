import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  readRuntimeFile,
  removeRuntimeFile,
  runtimeFilePath,
  writeRuntimeFile,
  type RuntimeInfo,
} from '../../appliance/runtime-file.ts';

// DATA_DIR/runtime.json (issue 13): what the CLI trusts, and what it must ignore.
let dataDir: string;
let alive: ReturnType<typeof spawn>;
let deadPid: number;

const STARTED_AT = new Date().toISOString();
const info = (pid: number): RuntimeInfo => ({
  pid,
  started_at: STARTED_AT,
  release: '1.0.0',
  data_dir: dataDir,
  gateway: { url: 'http://127.0.0.1:18080', port: 18080, host: '127.0.0.1' },
  backend: { url: 'http://127.0.0.1:18081', port: 18081, external: false },
  storage: {
    internal_url: 'http://127.0.0.1:19000',
    public_url: 'http://127.0.0.1:19000',
    embedded: true,
    port: 19000,
  },
});

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'gw-runtime-'));
  alive = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  const dead = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  deadPid = dead.pid!;
  await new Promise((r) => dead.once('exit', r));
});
afterAll(() => {
  alive?.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

test('written 0600 through a temporary file; read back while its process lives', () => {
  writeRuntimeFile(dataDir, info(alive.pid!));
  expect(statSync(runtimeFilePath(dataDir)).mode & 0o777).toBe(0o600);
  expect(readdirSync(dataDir)).toEqual(['runtime.json']);
  expect(readRuntimeFile(dataDir)).toEqual(info(alive.pid!));
});

test('stale (its process is gone), this very process, unparsable or of another shape: ignored', () => {
  writeRuntimeFile(dataDir, info(deadPid));
  expect(readRuntimeFile(dataDir)).toBeNull();
  writeRuntimeFile(dataDir, info(process.pid));
  expect(readRuntimeFile(dataDir)).toBeNull();
  writeFileSync(runtimeFilePath(dataDir), '{"pid": 12');
  expect(readRuntimeFile(dataDir)).toBeNull();
  writeFileSync(runtimeFilePath(dataDir), JSON.stringify({ ...info(alive.pid!), backend: { url: 'not a url' } }));
  expect(readRuntimeFile(dataDir)).toBeNull();
  rmSync(runtimeFilePath(dataDir));
  expect(readRuntimeFile(dataDir)).toBeNull();
});

test("removed only by the process it names (a second stack started by mistake leaves the first one's file)", () => {
  writeRuntimeFile(dataDir, info(alive.pid!));
  removeRuntimeFile(dataDir);
  expect(existsSync(runtimeFilePath(dataDir))).toBe(true);
  removeRuntimeFile(dataDir, alive.pid!);
  expect(existsSync(runtimeFilePath(dataDir))).toBe(false);
  removeRuntimeFile(dataDir, alive.pid!); // absent: nothing to do
});
