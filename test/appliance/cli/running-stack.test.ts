import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { signedRequest } from '../../helpers/signed-client.ts';
import { runtimeFilePath, type RuntimeInfo } from '../../../appliance/runtime-file.ts';
import { buildCli } from '../../../appliance/cli/main.ts';
import { API_RELEASE } from '../../../server/config.ts';

/**
 * Issue 13 § Start and CLI: the stack as `npm start` runs it (its own process, non-default ports),
 * and the CLI run in another "terminal" with nothing but DATA_DIR: it must find that stack through
 * DATA_DIR/runtime.json. Before, it probed BACKEND_PORT's default (8081), so a clinic it created got
 * no database and its keys answered AUTH_TENANT_OPEN_FAILED.
 */
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

/** The environment of a shell that never set the stack's ports (whatever the test runner has). */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of [
    'PORT',
    'HOST',
    'BACKEND_PORT',
    'BACKEND_URL',
    'S3_PORT',
    'S3_ENDPOINT',
    'S3_PUBLIC_ENDPOINT',
    'DATA_DIR',
  ])
    delete env[name];
  return { ...env, ...extra };
}

/** A port that is free now (the kernel's pick), so the stack gets fixed non-default ports. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function holdPort(): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port }));
  });
}

function cli(dataDir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'appliance/cli/main.ts', ...args],
      { env: cleanEnv({ DATA_DIR: dataDir }), timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

/** Runs appliance/main.ts to its end (a start that must fail), bounded in time. */
function startExpectingFailure(
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'appliance/main.ts'], {
      env: cleanEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('the CLI against a stack started on non-default ports', () => {
  let child: ChildProcess;
  let dataDir: string;
  let port: number;
  let backendPort: number;
  let exited: Promise<number | null>;
  let output = '';

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'gw-cli-ports-'));
    port = await freePort();
    backendPort = await freePort();
    expect([port, backendPort]).not.toContain(8081);
    child = spawn(process.execPath, ['--import', 'tsx', 'appliance/main.ts'], {
      env: cleanEnv({
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        PORT: String(port),
        BACKEND_PORT: String(backendPort),
        S3_PORT: '0',
        LOG_LEVEL: 'silent',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    const deadline = Date.now() + 90_000;
    while (!existsSync(runtimeFilePath(dataDir))) {
      if (child.exitCode !== null) throw new Error(`stack exited ${child.exitCode}: ${output}`);
      if (Date.now() > deadline) throw new Error(`no runtime file after 90 s: ${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  });

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const runtime = (): RuntimeInfo => JSON.parse(readFileSync(runtimeFilePath(dataDir), 'utf8'));

  test('the runtime file holds the effective ports and URLs, mode 0600, and no secret', () => {
    const info = runtime();
    expect(info.pid).toBe(child.pid);
    expect(info.gateway).toEqual({ url: `http://127.0.0.1:${port}`, port, host: '127.0.0.1' });
    // backend-sim's own process (issue 25), a child of the appliance.
    expect(info.backend).toEqual({
      url: `http://127.0.0.1:${backendPort}`,
      port: backendPort,
      external: false,
      pid: expect.any(Number),
    });
    expect(info.backend.pid).not.toBe(child.pid);
    expect(info.storage.embedded).toBe(true);
    expect(info.storage.internal_url).toBe(`http://127.0.0.1:${info.storage.port}`);
    expect(info.storage.port).not.toBe(9000);
    expect(Date.parse(info.started_at)).toBeLessThanOrEqual(Date.now());
    expect(info.data_dir).toBe(dataDir);
    expect(statSync(runtimeFilePath(dataDir)).mode & 0o777).toBe(0o600);
    const text = readFileSync(runtimeFilePath(dataDir), 'utf8');
    expect(text).not.toContain(readFileSync(path.join(dataDir, 'backend.token'), 'utf8').trim());
    expect(text).not.toContain(readFileSync(path.join(dataDir, 'master.key'), 'utf8').trim());
  });

  test('a clinic and a key created by the CLI work at once: signed ping and a call reaching the clinic database answer 200, not AUTH_TENANT_OPEN_FAILED', async () => {
    const created = await cli(dataDir, 'tenants', 'create', 'clinica-portas', '--name', 'Clinica Portas');
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).not.toContain('backend-sim is not running');
    const issued = await cli(dataDir, 'keys', 'create', '--tenant', 'clinica-portas', '--scopes', 'all', '--json');
    expect(issued.code, issued.stderr).toBe(0);
    const key = JSON.parse(issued.stdout);
    const creds = { apiKey: key.api_key, apiSecret: key.api_secret };
    const ping = await signedRequest(`http://127.0.0.1:${port}`, creds, { path: '/v1/ping' });
    expect(ping.status, ping.text).toBe(200);
    expect(ping.body.data.auth.clinica).toBe('clinica-portas');
    // A call that opens the clinic's database in backend-sim.
    const pacientes = await signedRequest(`http://127.0.0.1:${port}`, creds, { path: '/v1/pacientes' });
    expect(pacientes.status, pacientes.text).toBe(200);
    expect(pacientes.body.data).toEqual([]);
  });

  test('--medico: a doctor of the clinic is bound; one that does not exist there is refused, nothing created', async () => {
    const demoKey = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')).keys.demo;
    const medicos = await signedRequest(
      `http://127.0.0.1:${port}`,
      { apiKey: demoKey.api_key, apiSecret: demoKey.api_secret },
      { path: '/v1/medicos?limit=100' },
    );
    expect(medicos.status).toBe(200);
    const ids: number[] = medicos.body.data.map((m: { id: number }) => m.id);
    const doctor = ids[0];
    const missing = Math.max(...ids) + 1000;

    const before = JSON.parse((await cli(dataDir, 'keys', 'list', '--json')).stdout).length;
    const refused = await cli(
      dataDir,
      'keys',
      'create',
      '--tenant',
      'demo',
      '--scopes',
      'all',
      '--medico',
      String(missing),
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(`--medico ${missing}: no such doctor in clinic "demo"`);
    expect(refused.stderr).toContain(`${doctor} (`); // names the doctors it does have
    // A doctor id of another clinic's numbering that this new clinic lacks.
    const elsewhere = await cli(
      dataDir,
      'keys',
      'create',
      '--tenant',
      'clinica-portas',
      '--scopes',
      'all',
      '--medico',
      String(doctor),
    );
    expect(elsewhere.code).not.toBe(0);
    expect(elsewhere.stderr).toContain('it has no doctors yet');
    expect(JSON.parse((await cli(dataDir, 'keys', 'list', '--json')).stdout)).toHaveLength(before);

    const bound = await cli(
      dataDir,
      'keys',
      'create',
      '--tenant',
      'demo',
      '--scopes',
      'read-only',
      '--medico',
      String(doctor),
      '--json',
    );
    expect(bound.code, bound.stderr).toBe(0);
    const key = JSON.parse(bound.stdout);
    const ping = await signedRequest(
      `http://127.0.0.1:${port}`,
      { apiKey: key.api_key, apiSecret: key.api_secret },
      { path: '/v1/ping' },
    );
    expect(ping.body.data.auth.medico_id).toBe(doctor);
  });

  test('keys list without --tenant has a tenant column; with --tenant it does not repeat it', async () => {
    const all = await cli(dataDir, 'keys', 'list');
    expect(all.code, all.stderr).toBe(0);
    const [header, , ...rows] = all.stdout.trimEnd().split('\n');
    expect(header.split(/\s+/).slice(0, 3)).toEqual(['id', 'tenant', 'key']);
    const tenantsShown = new Set(rows.map((r) => r.split(/\s+/)[1]));
    expect([...tenantsShown].sort()).toEqual(['clinica-b', 'clinica-portas', 'demo', 'sandbox']);
    const json = JSON.parse((await cli(dataDir, 'keys', 'list', '--json')).stdout);
    expect(new Set(json.map((k: { tenant: string }) => k.tenant))).toEqual(tenantsShown);
    const one = await cli(dataDir, 'keys', 'list', '--tenant', 'sandbox');
    expect(one.stdout.split('\n')[0].split(/\s+/)).not.toContain('tenant');
    expect(one.stdout).toContain('ce_live_');
  });

  test('a second stack on the same ports is refused with the variable to change, naming the running one', async () => {
    const second = await startExpectingFailure({
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      BACKEND_PORT: '0',
      S3_PORT: '0',
    });
    expect(second.code).not.toBe(0);
    expect(second.stderr).toContain(`port ${port} is in use: set PORT to another port`);
    expect(second.stderr).toContain(`already running on this DATA_DIR at http://127.0.0.1:${port}`);
    // The running stack's file is untouched.
    expect(runtime().pid).toBe(child.pid);
  });

  test('SIGTERM: clean exit and the runtime file is gone; the CLI then says the stack is not running', async () => {
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(existsSync(runtimeFilePath(dataDir))).toBe(false);
    const offline = await cli(dataDir, 'keys', 'create', '--tenant', 'demo', '--scopes', 'all', '--medico', '1');
    expect(offline.code).not.toBe(0);
    expect(offline.stderr).toContain('the appliance is not running on this DATA_DIR');
  });
});

describe('a port in use names the variable that moves it (no stack trace, non-zero exit, nothing created)', () => {
  let held: { server: Server; port: number };
  const dataDirs: string[] = [];
  beforeAll(async () => {
    held = await holdPort();
  });
  afterAll(async () => {
    await new Promise((r) => held.server.close(r));
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  test.each(['PORT', 'BACKEND_PORT', 'S3_PORT'])('%s', async (variable) => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-port-busy-'));
    dataDirs.push(dataDir);
    const env = {
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: '0',
      BACKEND_PORT: '0',
      S3_PORT: '0',
      SEED_ON_FIRST_START: 'false',
      [variable]: String(held.port),
    };
    const result = await startExpectingFailure(env);
    expect(result.code).not.toBe(0);
    expect(result.code).not.toBeNull();
    expect(result.stderr).toMatch(
      new RegExp(
        `^Startup failed: port ${held.port} is in use: set ${variable} to another port, e\\.g\\. \`${variable}=\\d+ npm start\`\\n$`,
      ),
    );
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(existsSync(path.join(dataDir, 'gateway.db'))).toBe(false);
  });

  test('two variables on the same port', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-port-same-'));
    dataDirs.push(dataDir);
    const result = await startExpectingFailure({
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: '18093',
      BACKEND_PORT: '18093',
      S3_PORT: '0',
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('BACKEND_PORT and PORT are both 18093');
  });
});

describe('CLI metadata', () => {
  test('--version prints the package version', async () => {
    const result = await cli(path.join(tmpdir(), 'gw-cli-version-never-created'), '--version');
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(API_RELEASE);
    expect(API_RELEASE).toBe(JSON.parse(readFileSync('package.json', 'utf8')).version);
  });

  test('every command has a description', () => {
    const missing: string[] = [];
    const walk = (command: ReturnType<typeof buildCli>, prefix: string) => {
      for (const sub of command.commands) {
        const name = `${prefix}${sub.name()}`;
        if (!sub.description().trim()) missing.push(name);
        walk(sub, `${name} `);
      }
    };
    walk(buildCli(), '');
    expect(missing).toEqual([]);
  });
});
