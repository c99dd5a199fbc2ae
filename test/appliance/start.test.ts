import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedRequest } from '../helpers/signed-client.ts';
import { bannerUrl, loopbackStackEnv } from '../helpers/child-stack.ts';
import { openGatewayDb } from '../../server/db/database.ts';
import { UNSUPPORTED_NODE_EXIT_CODE, unsupportedNodeReason } from '../../appliance/node-engine.mjs';

/**
 * Issue 13 § Start: `npm start` runs appliance/start.mjs, which bundles appliance/main.ts once into a cache
 * and reuses the bundle until one of its inputs changes. Each run here has its own cache
 * (START_CACHE_DIR) and its own entry (START_ENTRY: a file beside it that imports appliance/main.ts
 * and one more source the test edits), so no real source is touched and no developer's cache used.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const LAUNCHER = path.join(ROOT, 'appliance', 'start.mjs');

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

/** Everything the process printed once it exits: both streams in order (`out`), and each alone. */
function finished(child: ChildProcess): Promise<{ code: number | null; out: string; stdout: string; stderr: string }> {
  let out = '';
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => {
    out += d;
    stdout += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
    stderr += d;
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out, stdout, stderr })));
}

/** A command from the checkout, stopped after the test if it still runs; its exit code and output. */
function runToExit(command: string, argv: string[], env: NodeJS.ProcessEnv): ReturnType<typeof finished> {
  const child = spawn(command, argv, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  return finished(child);
}

/** The pids of a process's children running the given file. */
function childrenRunning(pid: number, file: string): number[] {
  const found: number[] = [];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(' ').filter(Boolean)) {
      const command = readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0');
      if (command.includes(file)) found.push(Number(child));
    }
  }
  return found;
}

/**
 * Starts the launcher, waits for the banner, makes a signed GET /v1/ping and stops it (SIGTERM). `backends`: the
 * launcher's children running backend-sim's bundle, and the one runtime.json names.
 */
async function startPingStop(): Promise<{
  out: string;
  ping: number;
  code: number | null;
  backends: number[];
  runtimeBackend: number | undefined;
}> {
  const child = launcher();
  const exited = finished(child);
  const baseUrl = await bannerUrl(child, 100_000);
  const demo = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')).keys.demo;
  const ping = await signedRequest(baseUrl, { apiKey: demo.api_key, apiSecret: demo.api_secret }, { path: '/v1/ping' });
  const backends = childrenRunning(child.pid!, path.join(cacheDir, 'backend-sim.mjs'));
  const runtimeBackend = JSON.parse(readFileSync(path.join(dataDir, 'runtime.json'), 'utf8')).backend.pid as
    | number
    | undefined;
  child.kill('SIGTERM');
  const { code, out: all } = await exited;
  return { out: all, ping: ping.status, code, backends, runtimeBackend };
}

beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'gw-start-'));
  cacheDir = path.join(work, 'cache');
  dataDir = path.join(work, 'data');
  mkdirSync(dataDir);
  entry = path.join(work, 'entry.ts');
  writeFileSync(extra(), "console.log('extra source, first version');\n");
  writeFileSync(entry, `import './extra.ts';\nimport ${JSON.stringify(path.join(ROOT, 'appliance', 'main.ts'))};\n`);
});

afterAll(() => {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

describe('npm start through the bundling launcher (appliance/start.mjs)', () => {
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
    // backend-sim's process, started by the launcher from its own bundle and taken by the stack: one, not two.
    expect(existsSync(path.join(cacheDir, 'backend-sim.mjs'))).toBe(true);
    expect(run.backends).toEqual([run.runtimeBackend]);
  }, 150_000);

  it('exit codes are those of appliance/main.ts: 2 for a configuration error', async () => {
    const { code, out } = await finished(launcher({ PORT: 'not-a-port' }));
    expect(out).toMatch(/server bundle is up to date/);
    expect(out).toMatch(/Invalid configuration:[\s\S]*PORT/);
    expect(code).toBe(2);
  }, 60_000);

  it('a bundled source changed: it rebuilds and runs the new code', async () => {
    writeFileSync(extra(), "console.log('extra source, second version (edited)');\n");
    const run = await startPingStop();
    expect(run.out).toMatch(
      new RegExp(
        `^server bundle built \\(${path.relative(ROOT, extra()).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} changed\\)`,
        'm',
      ),
    );
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

/**
 * Issue 21 § 5: `npm run cli` runs the operator CLI through the same launcher (`--entry=cli`): its own bundle
 * and manifest in the cache, built on the first command and reused after; its stdout holds only the command's
 * output (the launcher says nothing when the bundle is current, and writes a rebuild's line to stderr).
 * Its own cache and data dir; BACKEND_URL names a port nothing listens on, so no running stack is asked.
 */
describe('npm run cli through the bundling launcher (--entry=cli)', () => {
  let cliCache = '';
  let cliData = '';
  const cli = (args: string[], viaNpm = false): Promise<{ code: number | null; stdout: string; stderr: string }> => {
    const [command, argv] = viaNpm
      ? ['npm', ['run', '-s', 'cli', '--', ...args]]
      : [process.execPath, [LAUNCHER, '--entry=cli', ...args]];
    return runToExit(command, argv, {
      ...process.env,
      START_CACHE_DIR: cliCache,
      DATA_DIR: cliData,
      BACKEND_URL: 'http://127.0.0.1:9',
      START_ENTRY: '',
    });
  };

  beforeAll(async () => {
    cliCache = path.join(work, 'cli-cache');
    cliData = path.join(work, 'cli-data');
    // An appliance's database (the CLI refuses a DATA_DIR without one), without starting the appliance.
    await (await openGatewayDb(cliData)).close();
  });

  it('first command (through npm run cli) builds the CLI bundle, then runs it: --version prints the release alone on stdout', async () => {
    const run = await cli(['--version'], true);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version}\n`);
    expect(run.stderr).toMatch(/^cli bundle built \(no cached bundle\): \d+ files in \d+ ms/m);
    expect(existsSync(path.join(cliCache, 'cli.mjs'))).toBe(true);
    expect(existsSync(path.join(cliCache, 'cli.manifest.json'))).toBe(true);
    // The server's bundle is another entry: not built by the CLI.
    expect(existsSync(path.join(cliCache, 'main.mjs'))).toBe(false);
  }, 120_000);

  it('later commands reuse it, silently: tenants create, keys create, tenants list and keys list with their arguments', async () => {
    const created = await cli(['tenants', 'create', 'clinica-bundle', '--name', 'Clinica Bundle']);
    expect(created.code, created.stderr).toBe(0);
    const key = await cli(['keys', 'create', '--tenant', 'clinica-bundle', '--scopes', 'read-only', '--json']);
    expect(key.code, key.stderr).toBe(0);
    const issued = JSON.parse(key.stdout);
    const tenants = await cli(['tenants', 'list', '--json']);
    expect(tenants.code).toBe(0);
    expect(JSON.parse(tenants.stdout).map((t: { slug: string }) => t.slug)).toContain('clinica-bundle');
    const keys = await cli(['keys', 'list', '--tenant', 'clinica-bundle', '--json']);
    expect(keys.code).toBe(0);
    expect(JSON.parse(keys.stdout)).toEqual([
      expect.objectContaining({ id: issued.chave_id, tenant: 'clinica-bundle', status: 'active' }),
    ]);
    for (const run of [created, key, tenants, keys]) expect(run.stderr).not.toMatch(/cli bundle/);
  }, 120_000);

  it('the CLI exit codes come through: 1 for an unknown clinic (listing the clinics), 2 for an unknown command', async () => {
    const unknownClinic = await cli(['keys', 'list', '--tenant', 'nao-existe']);
    expect(unknownClinic.code).toBe(1);
    expect(unknownClinic.stderr).toMatch(/tenant "nao-existe" does not exist; clinics: clinica-bundle/);
    const unknownCommand = await cli(['chaves']);
    expect(unknownCommand.code).toBe(2);
    expect(unknownCommand.stderr).toMatch(/unknown command 'chaves'/);
  }, 60_000);

  it('an unknown entry is refused, naming the entries', async () => {
    const { code, out } = await runToExit(process.execPath, [LAUNCHER, '--entry=nope'], {
      ...process.env,
      START_CACHE_DIR: cliCache,
    });
    expect(code).toBe(2);
    expect(out).toMatch(/unknown --entry=nope; one of: server, cli/);
  }, 30_000);
});

/**
 * Issue 21 § 6: the launcher checks the Node.js version before anything loads (appliance/node-engine.mjs, whose
 * range is tested in node-engine.test.ts). A preload makes this Node report itself as 22.12.0, a version vite and
 * dependency-cruiser's watskeburt refuse.
 */
describe('an unsupported Node.js', () => {
  it('npm start and npm run cli refuse it with one line saying what to install, exit 2, nothing built', async () => {
    const asNode2212 = `data:text/javascript,${encodeURIComponent("Object.defineProperty(process.versions, 'node', { value: '22.12.0' });")}`;
    const cache = path.join(work, 'old-node-cache');
    for (const entry of [[], ['--entry=cli', '--version']]) {
      const { code, stdout, stderr } = await runToExit(process.execPath, ['--import', asNode2212, LAUNCHER, ...entry], {
        ...loopbackStackEnv(dataDir),
        START_CACHE_DIR: cache,
      });
      expect(code, entry.join(' ')).toBe(UNSUPPORTED_NODE_EXIT_CODE);
      expect(stderr).toBe(`${unsupportedNodeReason('22.12.0')}\n`);
      expect(stderr).toMatch(/^Node\.js 22\.12\.0 cannot run the appliance: .*22\.13 or a later 22\.x/);
      expect(stdout).toBe('');
      expect(existsSync(cache)).toBe(false);
    }
  }, 30_000);
});
