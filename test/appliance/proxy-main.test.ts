import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { bannerUrl, loopbackStackEnv, stopStack } from '../helpers/child-stack.ts';
import { runCli } from '../helpers/cli.ts';
import { signedRequest, type Credentials } from '../helpers/signed-client.ts';
import { startTestStack, type TestStack } from '../helpers/stack.ts';
import { proxyEnvironment } from '../../appliance/proxy-args.ts';
import { contractReport } from '../../contracts/admin/contract.ts';

/**
 * `npm run proxy` as an integrator runs it (issue 33): appliance/proxy-main.ts in its own process, logging at info,
 * in front of a second appliance. Its output and DATA_DIR are searched byte for byte for the upstream secret; `proxy
 * report` reads what it saw.
 */

let upstream: TestStack;
let upstreamCreds: Credentials;
let child: ChildProcess | null = null;
let dataDir: string;
let baseUrl: string;
let output = '';
let guardCreds: Credentials;
/** Every answer the guard gave in these tests, headers and body: searched for the secret at the end. */
const answers: string[] = [];

beforeAll(async () => {
  upstream = await startTestStack();
  upstreamCreds = upstream.creds;
  dataDir = mkdtempSync(path.join(tmpdir(), 'gw-proxy-main-'));
  child = spawn(
    process.execPath,
    ['--import', 'tsx', 'appliance/proxy-main.ts', '--upstream', upstream.gatewayUrl, '--strict'],
    {
      env: {
        ...loopbackStackEnv(dataDir),
        LOG_LEVEL: 'info',
        UPSTREAM_API_KEY: upstreamCreds.apiKey,
        UPSTREAM_API_SECRET: upstreamCreds.apiSecret,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  baseUrl = await bannerUrl(child, 50_000, (chunk) => {
    output += chunk;
  });
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const env = { DATA_DIR: dataDir };
  const tenant = await runCli(env, 'tenants', 'create', 'guarda');
  expect(tenant.code, tenant.stderr).toBe(0);
  const key = await runCli(env, 'keys', 'create', '--tenant', 'guarda', '--scopes', 'all', '--json');
  expect(key.code, key.stderr).toBe(0);
  const issued = JSON.parse(key.stdout);
  guardCreds = { apiKey: issued.api_key, apiSecret: issued.api_secret };
}, 120_000);

afterAll(async () => {
  await stopStack(child);
  await upstream?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test('the command line takes the upstream and the mode, never a credential', () => {
  expect(proxyEnvironment(['--upstream', 'https://gw.example', '--pass-through', '--strict'])).toEqual({
    env: { PROXY_MODE: 'pass-through', UPSTREAM_URL: 'https://gw.example', PROXY_STRICT: 'true' },
    rest: [],
  });
  expect(proxyEnvironment(['--upstream=https://gw.example'])).toMatchObject({ env: { PROXY_MODE: 'resign' } });
  for (const arg of ['--api-secret=x', '--upstream-api-key', '--secret'])
    expect(proxyEnvironment([arg])).toMatchObject({ error: expect.stringContaining('environment only') });
});

test('the banner names the upstream; calls are re-signed; --strict refuses a request outside the contract with its 400', async () => {
  expect(output).toContain(`upstream   ${upstream.gatewayUrl}/v1 (contract guard, resign, strict`);
  const ping = await signedRequest(baseUrl, guardCreds, { path: '/v1/ping' });
  expect(ping.status, ping.text).toBe(200);
  // The upstream saw its own key: its ping names its own clinic.
  expect(ping.body.data.auth.clinica).toBe(upstream.tenantSlug);
  const created = await signedRequest(baseUrl, guardCreds, {
    method: 'POST',
    path: '/v1/pacientes',
    body: { nome: 'Maria Guarda', data_nascimento: '1985-03-14', sexo: 'FEM', cpf: '52998224725' },
    idempotencyKey: 'guarda-1',
  });
  expect(created.status, created.text).toBe(201);
  const refused = await signedRequest(baseUrl, guardCreds, { path: '/v1/pacientes?limite=5' });
  expect(refused.status).toBe(400);
  expect(refused.body.error.code).toBe('VAL_INVALID_PARAM');
  expect(refused.body.error.details.lista[0].field).toBe('request.query.additionalProperties');
  // A refused upstream answer (the upstream's own 404) comes back as it is.
  const missing = await signedRequest(baseUrl, guardCreds, { path: '/v1/pacientes/999999' });
  expect(missing.status).toBe(404);
  const badSignature = await signedRequest(baseUrl, guardCreds, { path: '/v1/ping', signature: 'f'.repeat(64) });
  expect(badSignature.status).toBe(401);
  for (const res of [ping, created, refused, missing, badSignature])
    answers.push(JSON.stringify(res.headers), res.text);
});

test('proxy report: the markdown table and --json (the console API object)', async () => {
  // The background write of the violations: the report is read from gateway.db.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const json = await runCli({ DATA_DIR: dataDir }, 'proxy', 'report', '--json');
  expect(json.code, json.stderr).toBe(0);
  const report = contractReport.parse(JSON.parse(json.stdout));
  expect(report.proxy).toEqual({ mode: 'resign', upstream: upstream.gatewayUrl, strict: true });
  expect(report.violations).toEqual([
    expect.objectContaining({ operation: 'getPacientes', rule: 'request.query.additionalProperties', count: 1 }),
  ]);
  const markdown = await runCli({ DATA_DIR: dataDir }, 'proxy', 'report');
  expect(markdown.stdout).toContain(
    '| operation | rule | count | first seen | last seen | last value | last request_id |',
  );
  expect(markdown.stdout).toContain('| getPacientes | `request.query.additionalProperties` | 1 |');
});

test('the upstream secret is in no log line, no file of DATA_DIR, no answer', async () => {
  await stopStack(child);
  child = null;
  const secret = Buffer.from(upstreamCreds.apiSecret);
  expect(output.length).toBeGreaterThan(0);
  expect(output).toContain('incoming request');
  expect(Buffer.from(output).includes(secret)).toBe(false);
  expect(answers.length).toBeGreaterThan(0);
  for (const answer of answers) expect(answer.includes(upstreamCreds.apiSecret)).toBe(false);
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) walk(file);
      else files.push(file);
    }
  };
  walk(dataDir);
  expect(files.some((f) => f.endsWith('gateway.db'))).toBe(true);
  for (const file of files) expect(readFileSync(file).includes(secret), file).toBe(false);
});
