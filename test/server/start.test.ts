import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedRequest } from '../helpers/signed-client.ts';
import { bannerUrl, loopbackStackEnv } from '../helpers/child-stack.ts';

/**
 * Issue 13 § Start: `npm start` runs server/start.mjs, which bundles server/main.ts once into a cache
 * and reuses the bundle until one of its inputs changes. Each run here has its own cache
 * (START_CACHE_DIR) and its own entry (START_ENTRY: a file beside it that imports server/main.ts
 * and one more source the test edits), so no real source is touched and no developer's cache used.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const LAUNCHER = path.join(ROOT, 'server', 'start.mjs');

let work = '';
let cacheDir = '';
let dataDir = '';
let entry = '';
const extra = () => path.join(work, 'extra.ts');
const running: ChildProcess[] = [];

function launcher(env: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, [LAUNCHER], {
    cwd: ROOT,
    env: { ...loopbackStackEnv(dataDir), START_CACHE_DIR: cacheDir, START_ENTRY: entry, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  return child;
}

/** Everything the process printed once it exits. */
function finished(child: ChildProcess): Promise<{ code: number | null; out: string }> {
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out })));
}

/** Starts the launcher, waits for the banner, makes a signed GET /v1/ping and stops it (SIGTERM). */
async function startPingStop(): Promise<{ out: string; ping: number; code: number | null }> {
  const child = launcher();
  const exited = finished(child);
  const baseUrl = await bannerUrl(child, 100_000);
  const demo = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')).keys.demo;
  const ping = await signedRequest(baseUrl, { apiKey: demo.api_key, apiSecret: demo.api_secret }, { path: '/v1/ping' });
  child.kill('SIGTERM');
  const { code, out: all } = await exited;
  return { out: all, ping: ping.status, code };
}

beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'gw-start-'));
  cacheDir = path.join(work, 'cache');
  dataDir = path.join(work, 'data');
  mkdirSync(dataDir);
  entry = path.join(work, 'entry.ts');
  writeFileSync(extra(), "console.log('extra source, first version');\n");
  writeFileSync(entry, `import './extra.ts';\nimport ${JSON.stringify(path.join(ROOT, 'server', 'main.ts'))};\n`);
});

afterAll(() => {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

describe('npm start through the bundling launcher (server/start.mjs)', () => {
  it('first run builds the bundle and answers a signed ping; SIGTERM stops it cleanly', async () => {
    const run = await startPingStop();
    expect(run.out).toMatch(/^server bundle built \(no cached bundle\): \d+ files in \d+ ms/m);
    expect(run.out).toContain('extra source, first version');
    expect(run.ping).toBe(200);
    expect(run.code).toBe(0);
    expect(existsSync(path.join(dataDir, 'runtime.json'))).toBe(false);
    expect(existsSync(path.join(cacheDir, 'main.mjs'))).toBe(true);
  }, 150_000);

  it('second run, nothing changed: the cached bundle is used as is', async () => {
    const run = await startPingStop();
    expect(run.out).toMatch(/^server bundle is up to date \(\d+ files checked in \d+ ms/m);
    expect(run.out).not.toMatch(/server bundle built/);
    expect(run.ping).toBe(200);
    expect(run.code).toBe(0);
  }, 150_000);

  it('exit codes are those of server/main.ts: 2 for a configuration error', async () => {
    const { code, out } = await finished(launcher({ PORT: 'not-a-port' }));
    expect(out).toMatch(/server bundle is up to date/);
    expect(out).toMatch(/Invalid configuration:[\s\S]*PORT/);
    expect(code).toBe(2);
  }, 60_000);

  it('a bundled source changed: it rebuilds and runs the new code', async () => {
    writeFileSync(extra(), "console.log('extra source, second version (edited)');\n");
    const run = await startPingStop();
    expect(run.out).toMatch(new RegExp(`^server bundle built \\(${path.relative(ROOT, extra()).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} changed\\)`, 'm'));
    expect(run.out).toContain('extra source, second version (edited)');
    expect(run.ping).toBe(200);
  }, 150_000);

  it('a source that does not build: a clear message naming the file, exit 1, nothing started', async () => {
    writeFileSync(extra(), 'export const = ;\n');
    const { code, out } = await finished(launcher());
    expect(out).toMatch(/^Startup failed: .*entry\.ts does not build \(1 error\):/m);
    expect(out).toMatch(/\[ERROR\] Expected identifier but found "="\s+\S*extra\.ts:1:13:/);
    expect(out).not.toMatch(/is up/);
    expect(code).toBe(1);
  }, 60_000);
});
