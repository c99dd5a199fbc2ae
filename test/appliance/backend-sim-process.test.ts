import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { z } from 'zod';
import { startTestStack, type TestStack } from '../helpers/stack.ts';
import { bannerUrl, loopbackStackEnv, spawnStack, stopStack } from '../helpers/child-stack.ts';
import { signedRequest, type Credentials } from '../helpers/signed-client.ts';
import { ensureOperator } from '../../server/operators/index.ts';
import { ephemeralConfig } from '../../server/config.ts';
import { startStack } from '../../appliance/stack.ts';
import { portErrorMessage } from '../../appliance/port-check.ts';
import { runtimeFilePath, type RuntimeInfo } from '../../appliance/runtime-file.ts';
import { ConsoleClient } from '../server/admin/console-client.ts';

/**
 * Issue 25 § 3: `npm start` runs backend-sim in its own child process (two event loops, two cores for a create).
 * What held with one process still holds: signed calls reach the clinic, the appliance clock reaches backend-sim,
 * the stop order, the pid in runtime.json and the banner; and what is new: the child dies with the appliance
 * (a SIGKILL of the appliance leaves no backend-sim), and a backend-sim that dies alone is started again on its port.
 * Processes are read from /proc: a process whose parent was killed may stay a zombie until init reaps it.
 */
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

const DAY_S = 86_400;
const PASSWORD = 'backend-process-password';

/** The state letter and parent pid from /proc/<pid>/stat; null once the process is gone. */
function procStat(pid: number): { state: string; ppid: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state, ppid: Number(ppid) };
  } catch {
    return null;
  }
}

/** Running: exists and is not a zombie (exited, waiting to be reaped). */
const isRunning = (pid: number) => {
  const stat = procStat(pid);
  return stat !== null && stat.state !== 'Z' && stat.state !== 'X';
};

/** This process's children that run backend-sim's entry (its bundle or its source). */
function backendChildren(): number[] {
  const found: number[] = [];
  for (const task of readdirSync(`/proc/${process.pid}/task`)) {
    const children = readFileSync(`/proc/${process.pid}/task/${task}/children`, 'utf8').trim();
    for (const pid of children ? children.split(' ').map(Number) : []) {
      const command = (() => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        } catch {
          return '';
        }
      })();
      if (/backend-sim(-child\.ts|\.mjs)/.test(command) && isRunning(pid)) found.push(pid);
    }
  }
  return found;
}

/** Polls `check` until it holds or `timeoutMs` passes (a bound, not a measure); returns its last value. */
async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("startStack with backend-sim in its own process (npm start's default)", () => {
  let stack: TestStack;
  let operator: ConsoleClient;
  /** backend-sim's own clock (its internal admin API, with the stack's internal token). */
  const simClock = async () =>
    (
      await stack.backend.call(
        { method: 'GET', path: '/admin/clock' },
        z.object({ offset_ms: z.number(), agora: z.string() }),
      )
    ).data;

  beforeAll(async () => {
    stack = await startTestStack({}, { backendSim: 'process' });
    await ensureOperator(stack.gatewayDb.db, 'operador', PASSWORD);
    operator = new ConsoleClient(stack.gatewayUrl);
    expect((await operator.login('operador', PASSWORD)).status).toBe(200);
  });
  afterAll(async () => stack?.stop());

  test("a child of the stack's process, on loopback; signed calls reach the clinic: a patient created and read back", async () => {
    const sim = stack.backendSim!;
    expect(sim.mode).toBe('process');
    expect(sim.pid).not.toBe(process.pid);
    expect(procStat(sim.pid)?.ppid).toBe(process.pid);
    expect(new URL(stack.backendUrl).hostname).toBe('127.0.0.1');

    const created = await stack.call({
      method: 'POST',
      path: '/v1/pacientes',
      body: { nome: 'PACIENTE PROCESSO', data_nascimento: '1980-02-03' },
      idempotencyKey: randomUUID(),
    });
    expect(created.status, created.text).toBe(201);
    const read = await stack.call({ method: 'GET', path: `/v1/pacientes/${created.body.data.id}` });
    expect(read.status, read.text).toBe(200);
    expect(read.body.data.nome).toBe('PACIENTE PROCESSO');
  });

  test('the appliance clock moved through the console API reaches it before the answer: its clock and the patients it stamps; reset too', async () => {
    const moved = await operator.call('PUT', '/admin/api/clock', { advance_seconds: 10 * DAY_S });
    expect(moved.status, moved.text).toBe(200);
    const offsetS = moved.body.data.offset_seconds as number;
    expect((await simClock()).offset_ms).toBe(offsetS * 1000);
    const created = await stack.call({
      method: 'POST',
      path: '/v1/pacientes',
      body: { nome: 'PACIENTE ADIANTADO', data_nascimento: '1980-01-01' },
      idempotencyKey: randomUUID(),
      timestamp: Math.floor(Date.now() / 1000) + offsetS,
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data.criado_em.slice(0, 10)).toBe(
      new Date(Date.now() + offsetS * 1000).toISOString().slice(0, 10),
    );

    expect((await operator.call('DELETE', '/admin/api/clock')).status).toBe(200);
    expect((await simClock()).offset_ms).toBe(0);
  });

  test('killed alone (SIGKILL of its pid): started again on the same port, told the clock offset again, the clinic answers again', async () => {
    const moved = await operator.call('PUT', '/admin/api/clock', { advance_seconds: 3 * DAY_S });
    expect(moved.status, moved.text).toBe(200);
    const offsetMs = moved.body.data.offset_seconds * 1000;
    const before = { pid: stack.backendSim!.pid, port: stack.backendSim!.port };
    process.kill(before.pid, 'SIGKILL');

    const back = await eventually(async () => {
      if (stack.backendSim!.pid === before.pid) return false;
      const list = await stack.call({
        method: 'GET',
        path: '/v1/pacientes?limit=1',
        timestamp: Math.floor((Date.now() + offsetMs) / 1000),
      });
      return list.status === 200;
    }, 30_000);
    expect(back, 'backend-sim answered again through the gateway').toBe(true);
    expect(stack.backendSim!.port).toBe(before.port);
    expect(procStat(stack.backendSim!.pid)?.ppid).toBe(process.pid);
    expect(await eventually(async () => (await simClock().catch(() => null))?.offset_ms === offsetMs)).toBe(true);
    expect((await operator.call('DELETE', '/admin/api/clock')).status).toBe(200);
  });

  test("stop(): the gateway first, then backend-sim's process exits", async () => {
    const pid = stack.backendSim!.pid;
    await stack.stop();
    expect(isRunning(pid)).toBe(false);
    stack = undefined as unknown as TestStack;
  });
});

describe('a BACKEND_PORT taken after the start-time check: the listen error names the variable, nothing left running', () => {
  let held: Server;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-backend-port-'));
  beforeAll(async () => {
    held = createServer();
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((r) => held.close(r));
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('startStack rejects with EADDRINUSE on that port; portErrorMessage names BACKEND_PORT', async () => {
    const port = (held.address() as { port: number }).port;
    const config = ephemeralConfig(dataDir, { BACKEND_PORT: String(port) });
    const error = await startStack(config).then(
      () => null,
      (e: unknown) => e as NodeJS.ErrnoException & { port?: number },
    );
    expect(error?.code).toBe('EADDRINUSE');
    expect(error?.port).toBe(port);
    expect(portErrorMessage(config, error)).toBe(
      `port ${port} is in use: set BACKEND_PORT to another port, e.g. \`BACKEND_PORT=<another port> npm start\``,
    );
    expect(
      await eventually(() => backendChildren().length === 0),
      `backend-sim children left: ${backendChildren().join(', ')}`,
    ).toBe(true);
  });
});

describe("npm start (appliance/main.ts): backend-sim's process in runtime.json and the banner, and gone with the appliance", () => {
  let child: ChildProcess | null = null;
  const dataDirs: string[] = [];
  afterAll(async () => {
    await stopStack(child, 'SIGKILL');
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  async function start(): Promise<{
    baseUrl: string;
    runtime: RuntimeInfo;
    output: () => string;
    creds: Credentials;
    dataDir: string;
  }> {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-backend-proc-'));
    dataDirs.push(dataDir);
    let out = '';
    const started = await spawnStack(dataDir, {}, { output: (chunk) => (out += chunk) });
    child = started.child;
    const runtime = JSON.parse(readFileSync(runtimeFilePath(dataDir), 'utf8')) as RuntimeInfo;
    const demo = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')).keys.demo;
    return {
      baseUrl: started.baseUrl,
      runtime,
      output: () => out,
      creds: { apiKey: demo.api_key, apiSecret: demo.api_secret },
      dataDir,
    };
  }

  test('runtime.json and the banner name its pid, a child of the appliance; a signed create reaches the clinic; SIGKILL of the appliance leaves no backend-sim running', async () => {
    const { baseUrl, runtime, output, creds } = await start();
    const appliance = child!.pid!;
    const backendPid = runtime.backend.pid!;
    expect(runtime.pid).toBe(appliance);
    expect(runtime.backend).toMatchObject({ external: false, port: Number(new URL(runtime.backend.url).port) });
    expect(backendPid).not.toBe(appliance);
    expect(procStat(backendPid)?.ppid).toBe(appliance);
    expect(output()).toContain(`backend    ${runtime.backend.url} (its own process, pid ${backendPid}, loopback only)`);
    const created = await signedRequest(baseUrl, creds, {
      method: 'POST',
      path: '/v1/pacientes',
      body: { nome: 'PACIENTE ANTES DO KILL', data_nascimento: '1990-09-09' },
      idempotencyKey: randomUUID(),
    });
    expect(created.status, created.text).toBe(201);

    await stopStack(child, 'SIGKILL');
    child = null;
    expect(
      await eventually(() => !isRunning(backendPid)),
      `backend-sim (pid ${backendPid}) still running after the appliance was killed`,
    ).toBe(true);
  });

  test('Ctrl-C (SIGINT to the whole process group, as a terminal sends it): backend-sim keeps answering through the drain, a call waiting on it gets its 200, exit 0', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-backend-ctrlc-'));
    dataDirs.push(dataDir);
    // Its own process group, as a terminal's foreground job (the appliance and backend-sim's process in it).
    const appliance = spawn(process.execPath, ['--import', 'tsx', 'appliance/main.ts'], {
      env: loopbackStackEnv(dataDir),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    child = appliance;
    let out = '';
    const baseUrl = await bannerUrl(appliance, 50_000, (chunk) => (out += chunk));
    const exited = new Promise<string>((resolve) =>
      appliance.once('exit', (code, signal) => resolve(signal ?? `code ${code}`)),
    );
    const runtime = JSON.parse(readFileSync(runtimeFilePath(dataDir), 'utf8')) as RuntimeInfo;
    const token = readFileSync(path.join(dataDir, 'backend.token'), 'utf8').trim();
    const admin = async (method: string, p: string, body?: unknown) =>
      (await (
        await fetch(`${runtime.backend.url}${p}`, {
          method,
          headers: { 'x-internal-token': token, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        })
      ).json()) as any;
    const fault = (await admin('POST', '/admin/faults', { route: 'GET /tenants/demo/pacientes*', latency_ms: 1500 }))
      .data;
    const demo = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')).keys.demo;
    const waiting = signedRequest(
      baseUrl,
      { apiKey: demo.api_key, apiSecret: demo.api_secret },
      { path: '/v1/pacientes?limit=1' },
    );
    expect(
      await eventually(async () =>
        (await admin('GET', '/admin/faults')).data.some((f: any) => f.id === fault.id && f.hits > 0),
      ),
    ).toBe(true);

    process.kill(-appliance.pid!, 'SIGINT');
    const answered = await waiting;
    expect(answered.status, answered.text).toBe(200);
    expect(await exited, out).toBe('code 0');
    child = null;
    expect(out).toMatch(/SIGINT: stopping/);
    expect(out).toMatch(/drained in \d+ ms: 1 request\(s\) answered/);
    expect(isRunning(runtime.backend.pid!)).toBe(false);
  });

  test('SIGTERM: the gateway drains, backend-sim stops after it, exit 0, runtime.json removed', async () => {
    const { runtime, output, dataDir } = await start();
    const backendPid = runtime.backend.pid!;
    const exited = new Promise<string>((resolve) =>
      child!.once('exit', (code, signal) => resolve(signal ?? `code ${code}`)),
    );
    child!.kill('SIGTERM');
    expect(await exited, output()).toBe('code 0');
    child = null;
    expect(output()).toMatch(/drained in \d+ ms/);
    expect(existsSync(runtimeFilePath(dataDir))).toBe(false);
    // The appliance waited for its child to exit before its own exit.
    expect(isRunning(backendPid)).toBe(false);
  });
});
