import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { processRunning, startLocalPostgres } from '../../appliance/postgres.ts';
import { runtimeInfoSchema } from '../../appliance/runtime-file.ts';
import { loopbackStackEnv } from '../helpers/child-stack.ts';
import { groupGone } from '../helpers/process-group.ts';
import { signedRequest } from '../helpers/signed-client.ts';

/**
 * Issue 29: the real `npm run cluster`, its whole process group signalled (`setsid npm run cluster &`, then
 * `kill -TERM -- -<pgid>`). The supervisor got the signal from the group and again from npm; it took the copy for
 * a second Ctrl-C and forced the exit, leaving the cluster's own PostgreSQL running. Now: one stop, exit 0, the
 * gateways drained (their journal written), PostgreSQL stopped, no process left.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-cluster-stop-'));
const cacheDir = mkdtempSync(path.join(tmpdir(), 'gw-cluster-stop-cache-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGKILL');
  // A failed stop leaves the cluster's PostgreSQL running (its own session): not after this file.
  const postmaster = Number(
    (() => {
      try {
        return readFileSync(path.join(dataDir, 'postgres', 'data', 'postmaster.pid'), 'utf8').split('\n')[0];
      } catch {
        return '';
      }
    })(),
  );
  if (postmaster > 0 && processRunning(postmaster)) process.kill(postmaster, 'SIGQUIT');
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(cacheDir, { recursive: true, force: true });
});

/** The request ids found in the journal, read from the cluster's PostgreSQL started again for the look. */
async function journaled(requestIds: string[]): Promise<string[]> {
  const postgres = await startLocalPostgres({ dataDir, port: 0 });
  const client = new pg.Client({ connectionString: postgres.url });
  try {
    await client.connect();
    const rows = await client.query('SELECT request_id FROM audit_log WHERE request_id = ANY($1)', [requestIds]);
    return rows.rows.map((r: { request_id: string }) => r.request_id);
  } finally {
    await client.end().catch(() => undefined);
    await postgres.stop();
  }
}

/** The real `npm run cluster` in a process group of its own, once it says it is up. */
async function runCluster(instances: number) {
  const child = spawn('npm', ['run', 'cluster', '--', '--instances', String(instances)], {
    cwd: ROOT,
    env: { ...loopbackStackEnv(dataDir), START_CACHE_DIR: cacheDir, POSTGRES_PORT: '0', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 200_000;
  while (!out.includes('Ctrl-C stops everything') && Date.now() < deadline && child.exitCode === null)
    await new Promise((r) => setTimeout(r, 100));
  expect(out).toContain(`a cluster of ${instances} gateway(s) is up`);
  const runtime = runtimeInfoSchema.parse(JSON.parse(readFileSync(path.join(dataDir, 'runtime.json'), 'utf8')));
  const postmaster = Number(
    readFileSync(path.join(dataDir, 'postgres', 'data', 'postmaster.pid'), 'utf8').split('\n')[0],
  );
  return { child, pgid: child.pid!, output: () => out, exited, runtime, postmaster };
}

for (const [round, signal] of [
  [1, 'SIGTERM'],
  [2, 'SIGINT'],
] as const) {
  it(`stop ${round}: ${signal} to the group of npm run cluster stops it once, exit 0, journal written, PostgreSQL and every process gone`, async () => {
    const { pgid, output, exited, runtime, postmaster } = await runCluster(2);
    const demo = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')).keys.demo;
    const creds = { apiKey: demo.api_key, apiSecret: demo.api_secret };
    const acknowledged: string[] = [];
    for (const gateway of runtime.gateways!) {
      for (let i = 0; i < 2; i++) {
        const created = await signedRequest(gateway.url, creds, {
          method: 'POST',
          path: '/v1/pacientes',
          body: { nome: `Paciente Cluster ${randomUUID().slice(0, 8)}`, data_nascimento: '1990-01-02', sexo: 'MAS' },
          idempotencyKey: randomUUID(),
        });
        expect(created.status, created.text).toBe(201);
        acknowledged.push(created.headers['x-request-id']);
      }
    }

    process.kill(-pgid, signal);
    const code = await exited;
    expect(output()).not.toContain('Forced exit.');
    expect(output().match(new RegExp(`${signal}: stopping`, 'g'))).toHaveLength(1);
    expect(output()).toMatch(/stopped in \d+ ms: 2 gateway\(s\), PostgreSQL stopped/);
    expect(code, output()).toBe(0);
    expect(await groupGone(pgid)).toEqual([]);
    for (const gateway of runtime.gateways!) expect(processRunning(gateway.pid), `gateway ${gateway.pid}`).toBe(false);
    expect(processRunning(postmaster), 'PostgreSQL').toBe(false);
    expect(new Set(await journaled(acknowledged))).toEqual(new Set(acknowledged));
  }, 300_000);
}

it("a second Ctrl-C (past the copy's window) forces the exit, and the cluster's own PostgreSQL does not outlive it", async () => {
  const { child, pgid, output, exited, runtime, postmaster } = await runCluster(1);

  // A call held in backend-sim keeps the first stop draining, so the second Ctrl-C finds it still running.
  const token = readFileSync(path.join(dataDir, 'backend.token'), 'utf8').trim();
  const fault = await fetch(`${runtime.backend.url}/admin/faults`, {
    method: 'POST',
    headers: { 'x-internal-token': token, 'content-type': 'application/json' },
    body: JSON.stringify({ route: 'GET /tenants/demo/pacientes*', latency_ms: 20_000 }),
  });
  expect(fault.status).toBe(201);
  const demo = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')).keys.demo;
  const held = signedRequest(
    runtime.gateways![0]!.url,
    { apiKey: demo.api_key, apiSecret: demo.api_secret },
    { path: '/v1/pacientes?limit=1' },
  ).catch(() => null);
  await new Promise((r) => setTimeout(r, 500));

  process.kill(-pgid, 'SIGINT');
  await new Promise((r) => setTimeout(r, 1_500));
  expect(child.exitCode, output()).toBeNull();
  // A person's further Ctrl-C. Under npm one repeat may be taken for npm's late copy of the first
  // (appliance/stop-signals.ts), so up to three presses, 1.5 s apart, while the stop still runs.
  for (let press = 0; press < 3 && child.exitCode === null && !output().includes('Forced exit.'); press++) {
    process.kill(-pgid, 'SIGINT');
    await new Promise((r) => setTimeout(r, 1_500));
  }
  const code = await exited;
  expect(output()).toContain('Forced exit.');
  expect(code).toBe(1);
  const gone = Date.now() + 15_000;
  while (processRunning(postmaster) && Date.now() < gone) await new Promise((r) => setTimeout(r, 100));
  expect(processRunning(postmaster), 'PostgreSQL').toBe(false);
  await held;
}, 300_000);
