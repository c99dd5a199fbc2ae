import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPEAT_WINDOW_MS } from '../../appliance/stop-signals.ts';
import { bannerUrl, loopbackStackEnv } from '../helpers/child-stack.ts';
import { groupGone } from '../helpers/process-group.ts';
import { signedRequest } from '../helpers/signed-client.ts';

/**
 * Issue 29: `setsid npm start &` then `kill -TERM -- -<pgid>` (systemd, `docker stop`, `timeout`, CI runners): the
 * launcher got the signal twice, from the group and forwarded by npm a moment later, took the second for a
 * person's second Ctrl-C, printed `Forced exit.` and skipped flushing the journal; npm exited 1. A race, so the
 * real `npm start` is stopped that way several times here.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
let work = '';
const children: ChildProcess[] = [];
beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'gw-stop-'));
});
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

/** Output and exit of a process, as it comes. */
function watch(child: ChildProcess) {
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { output: () => out, exited };
}

/** A process that only stops on signals, run under npm's environment (npm_lifecycle_event) or not. */
async function signalled(underNpm: boolean) {
  const script = path.join(work, 'signals.ts');
  writeFileSync(
    script,
    `import { onStopSignals } from ${JSON.stringify(path.join(ROOT, 'appliance', 'stop-signals.ts'))};\n` +
      "onStopSignals((signal) => console.log('stopping on ' + signal));\nsetInterval(() => undefined, 1000);\nconsole.log('ready');\n",
  );
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'npm_lifecycle_event'));
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: ROOT,
    env: underNpm ? { ...env, npm_lifecycle_event: 'start' } : env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const watched = watch(child);
  while (!watched.output().includes('ready')) await new Promise((r) => setTimeout(r, 20));
  return { child, ...watched };
}

describe('onStopSignals in a process of its own', () => {
  it("a copy of the signal within the window is the same stop; a later one (a person's second Ctrl-C) forces the exit", async () => {
    const { child, output, exited } = await signalled(false);
    child.kill('SIGINT');
    const first = performance.now();
    await new Promise((r) => setTimeout(r, 30));
    child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 300));
    expect(child.exitCode).toBeNull();
    expect(output().match(/stopping on SIGINT/g)).toHaveLength(1);
    expect(output()).not.toContain('Forced exit.');
    await new Promise((r) => setTimeout(r, Math.max(0, REPEAT_WINDOW_MS - (performance.now() - first)) + 200));
    child.kill('SIGINT');
    expect(await exited).toBe(1);
    expect(output()).toContain('Forced exit.');
  }, 30_000);

  it("under npm, npm's copy is the same stop however late it comes (a loaded machine); the next one forces", async () => {
    const { child, output, exited } = await signalled(true);
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, REPEAT_WINDOW_MS + 300));
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    expect(child.exitCode).toBeNull();
    expect(output().match(/stopping on SIGTERM/g)).toHaveLength(1);
    expect(output()).not.toContain('Forced exit.');
    child.kill('SIGTERM');
    expect(await exited).toBe(1);
    expect(output()).toContain('Forced exit.');
  }, 30_000);
});

describe('the real npm start, its whole process group signalled', () => {
  const dataDir = () => path.join(work, 'data');
  const cacheDir = () => path.join(work, 'cache');

  /** `setsid npm start`: detached, npm leads a process group of its own, as under systemd or a CI runner. */
  async function startAndStop(signal: 'SIGTERM' | 'SIGINT') {
    const child = spawn('npm', ['start'], {
      cwd: ROOT,
      env: { ...loopbackStackEnv(dataDir()), START_CACHE_DIR: cacheDir() },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    children.push(child);
    const pgid = child.pid!;
    const { output, exited } = watch(child);
    const baseUrl = await bannerUrl(child, 240_000);
    const demo = JSON.parse(readFileSync(path.join(dataDir(), 'demo-credentials.json'), 'utf8')).keys.demo;
    const creds = { apiKey: demo.api_key, apiSecret: demo.api_secret };
    // Acknowledged calls just before the stop: their journal entries are still being written when it comes.
    const acknowledged: string[] = [];
    for (let i = 0; i < 4; i++) {
      const created = await signedRequest(baseUrl, creds, {
        method: 'POST',
        path: '/v1/pacientes',
        body: { nome: `Paciente Parada ${randomUUID().slice(0, 8)}`, data_nascimento: '1990-01-02', sexo: 'FEM' },
        idempotencyKey: randomUUID(),
      });
      expect(created.status, created.text).toBe(201);
      acknowledged.push(created.headers['x-request-id']);
    }
    process.kill(-pgid, signal);
    const code = await exited;
    return { code, out: output(), left: await groupGone(pgid), acknowledged };
  }

  beforeAll(() => mkdirSync(dataDir()));

  for (const [round, signal] of [
    [1, 'SIGTERM'],
    [2, 'SIGINT'],
    [3, 'SIGTERM'],
  ] as const) {
    it(`stop ${round} (${signal} to the group): once, cleanly, exit 0, the journal flushed, no process left`, async () => {
      const run = await startAndStop(signal);
      expect(run.out).not.toContain('Forced exit.');
      expect(run.out.match(new RegExp(`${signal}: stopping`, 'g'))).toHaveLength(1);
      expect(run.out).toMatch(/drained in \d+ ms/);
      expect(run.code, run.out).toBe(0);
      expect(run.left).toEqual([]);
      const db = new Database(path.join(dataDir(), 'gateway.db'), { readonly: true });
      try {
        const journaled = db
          .prepare(
            `SELECT request_id FROM audit_log WHERE request_id IN (${run.acknowledged.map(() => '?').join(',')})`,
          )
          .pluck()
          .all(...run.acknowledged);
        expect(new Set(journaled)).toEqual(new Set(run.acknowledged));
      } finally {
        db.close();
      }
    }, 300_000);
  }
});
