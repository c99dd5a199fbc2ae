import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { loopbackStackEnv } from '../helpers/child-stack.ts';
import { signedRequest } from '../helpers/signed-client.ts';
import { runtimeInfoSchema } from '../../appliance/runtime-file.ts';
import { processRunning } from '../../appliance/postgres.ts';

// Issue 24 "Done when": `npm run cluster -- --instances 3` starts, answers signed calls on every port, and stops
// cleanly; runtime.json lists the gateways and the database. Run as npm runs it: the launcher builds the cluster
// bundle (in a cache of this test's own) and the supervisor starts its own PostgreSQL under DATA_DIR.
const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-cluster-cmd-'));
const cacheDir = mkdtempSync(path.join(tmpdir(), 'gw-cluster-cache-'));
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(cacheDir, { recursive: true, force: true });
});

it('starts PostgreSQL, backend-sim, the storage and 3 gateways; every port answers a signed call; Ctrl-C stops everything', async () => {
  const child = spawn(process.execPath, ['appliance/start.mjs', '--entry=cluster', '--instances', '3'], {
    env: { ...loopbackStackEnv(dataDir), START_CACHE_DIR: cacheDir, POSTGRES_PORT: '0', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 100_000;
  while (!output.includes('Ctrl-C stops everything') && Date.now() < deadline && child.exitCode === null)
    await new Promise((r) => setTimeout(r, 100));
  expect(output).toContain('a cluster of 3 gateway(s) is up');

  const runtime = runtimeInfoSchema.parse(JSON.parse(readFileSync(path.join(dataDir, 'runtime.json'), 'utf8')));
  expect(runtime.pid).toBe(child.pid);
  expect(runtime.gateways).toHaveLength(3);
  expect(runtime.database).toMatchObject({ kind: 'postgres', managed: true });
  expect(runtime.database!.url).toMatch(/^postgres:\/\/gateway:\*\*\*@127\.0\.0\.1:\d+\/clinic_gateway$/);
  const secrets = JSON.parse(readFileSync(path.join(dataDir, 'postgres.credentials'), 'utf8')) as Record<
    string,
    string
  >;
  for (const secret of Object.values(secrets)) {
    expect(readFileSync(path.join(dataDir, 'runtime.json'), 'utf8')).not.toContain(secret);
    expect(output).not.toContain(secret);
  }

  const demo = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')).keys.demo as {
    api_key: string;
    api_secret: string;
  };
  const creds = { apiKey: demo.api_key, apiSecret: demo.api_secret };
  for (const gateway of runtime.gateways!) {
    const answer = await signedRequest(gateway.url, creds, { path: '/v1/ping' });
    expect(answer.status, gateway.url).toBe(200);
    expect(processRunning(gateway.pid)).toBe(true);
  }
  const postmaster = Number(
    readFileSync(path.join(dataDir, 'postgres', 'data', 'postmaster.pid'), 'utf8').split('\n')[0],
  );

  child.kill('SIGINT');
  expect(await exited).toBe(0);
  expect(output).toMatch(/stopped in \d+ ms: 3 gateway\(s\), PostgreSQL stopped/);
  for (const gateway of runtime.gateways!) expect(processRunning(gateway.pid)).toBe(false);
  // Not a zombie's pid either: processRunning reads the process state.
  expect(processRunning(postmaster)).toBe(false);
  expect(existsSync(path.join(dataDir, 'runtime.json'))).toBe(false);
}, 150_000);
