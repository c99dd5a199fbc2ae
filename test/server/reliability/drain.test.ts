import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, request } from 'undici';
import { afterEach, describe, expect, test } from 'vitest';
import { spawnStack, stopStack } from '../../helpers/child-stack.ts';
import { sign, nowSeconds, type Credentials } from '../../helpers/signed-client.ts';

/**
 * Issue 20 § 7: SIGTERM used to reset connections whose request was already received, and to wait
 * for their keep-alive (72 s) after answering. Now the stack stops accepting, answers what it already
 * received with `Connection: close`, and exits, within DRAIN_TIMEOUT_MS. A spawned stack (appliance/main.ts,
 * as npm start runs it) with a backend latency fault keeps a request in flight while it gets SIGTERM.
 */

let child: ChildProcess | null = null;
let dataDir = '';
const clients: Client[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.destroy().catch(() => undefined)));
  await stopStack(child, 'SIGKILL');
  child = null;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

interface Started {
  baseUrl: string;
  creds: Credentials;
  output: () => string;
  /** The exit code: 0 after a drain and a clean stop; 1 when the shutdown is forced (DRAIN_TIMEOUT_MS + 5 s). */
  exited: Promise<number | null>;
  /** Switches on a backend-sim fault (its internal admin API) and resolves once a request hit it. */
  fault(input: Record<string, unknown>): Promise<() => Promise<void>>;
}

async function start(env: Record<string, string>): Promise<Started> {
  dataDir = mkdtempSync(path.join(tmpdir(), 'gw-drain-'));
  let out = '';
  const started = await spawnStack(dataDir, env, { output: (chunk) => (out += chunk) });
  child = started.child;
  const exited = new Promise<number | null>((resolve) => started.child.once('exit', (code) => resolve(code)));
  const demo = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')).keys.demo;
  const backendUrl = JSON.parse(readFileSync(path.join(dataDir, 'runtime.json'), 'utf8')).backend.url as string;
  const token = readFileSync(path.join(dataDir, 'backend.token'), 'utf8').trim();
  const admin = async (method: 'GET' | 'POST', p: string, body?: unknown) => {
    const res = await request(`${backendUrl}${p}`, {
      method,
      headers: { 'x-internal-token': token, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await res.body.json()) as any;
  };
  return {
    baseUrl: started.baseUrl,
    creds: { apiKey: demo.api_key, apiSecret: demo.api_secret },
    output: () => out,
    exited,
    fault: async (input) => {
      const { id } = (await admin('POST', '/admin/faults', input)).data;
      return async () => {
        const deadline = Date.now() + 10_000;
        while (Date.now() < deadline) {
          const fault = (await admin('GET', '/admin/faults')).data.find((f: any) => f.id === id);
          if (fault?.hits > 0) return;
          await new Promise((r) => setTimeout(r, 20));
        }
        throw new Error('the fault was never hit');
      };
    },
  };
}

/** A signed GET on its own keep-alive connection (an undici Client: one connection, reused). */
function signedGet(client: Client, creds: Credentials, pathAndQuery: string) {
  const ts = String(nowSeconds());
  return client
    .request({
      method: 'GET',
      path: pathAndQuery,
      headers: {
        'x-api-key': creds.apiKey,
        'x-timestamp': ts,
        'x-signature': sign(creds.apiSecret, ts, 'GET', pathAndQuery, ''),
      },
    })
    .then(async (res) => ({
      status: res.statusCode,
      connection: res.headers.connection,
      body: (await res.body.json()) as any,
    }));
}

const newClient = (baseUrl: string) => {
  const client = new Client(baseUrl, { keepAliveTimeout: 60_000, pipelining: 1 });
  clients.push(client);
  return client;
};

/** How a fresh TCP connection to the gateway ends: 'connected' or the error code. */
function tryConnect(baseUrl: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/**
 * Resolves once a fresh connection is refused: the drain has begun (the signal is handled asynchronously;
 * bounded poll). A connection the kernel had queued just as the listener closed is reset (ECONNRESET);
 * the next attempt is refused.
 */
async function refusedOnceDraining(baseUrl: string): Promise<string> {
  let fresh = 'connected';
  for (let i = 0; i < 100 && (fresh === 'connected' || fresh === 'ECONNRESET'); i++) {
    fresh = await tryConnect(baseUrl);
    if (fresh !== 'ECONNREFUSED') await new Promise((r) => setTimeout(r, 10));
  }
  return fresh;
}

/** The shutdown's own account (appliance/main.ts): answered during the drain, and cut at the bound. */
const drainLine = (output: string) => /drained in \d+ ms: .*/.exec(output)?.[0];

describe('SIGTERM drains the stack', () => {
  test('a request in flight gets its whole answer with Connection: close; an idle keep-alive connection still gets an answer; new connections are refused; nothing cut, exit 0', async () => {
    const s = await start({ DRAIN_TIMEOUT_MS: '8000' });
    // An idle keep-alive connection, opened before the signal.
    const idle = newClient(s.baseUrl);
    expect((await signedGet(idle, s.creds, '/v1/ping')).status).toBe(200);

    const hit = await s.fault({ route: 'GET /tenants/demo/pacientes*', latency_ms: 2500 });
    const slow = signedGet(newClient(s.baseUrl), s.creds, '/v1/pacientes?limit=2');
    slow.catch(() => undefined); // awaited below; a failure before then must not be an unhandled rejection
    await hit(); // received by the gateway, waiting on backend-sim
    child!.kill('SIGTERM');

    // No new connection once the stack drains.
    expect(await refusedOnceDraining(s.baseUrl)).toBe('ECONNREFUSED');

    // A request sent on the connection that was idle when the signal came is answered, and closes it.
    const late = await signedGet(idle, s.creds, '/v1/ping');
    expect(late.status).toBe(200);
    expect(late.connection).toBe('close');

    const answer = await slow;
    expect(answer.status).toBe(200);
    expect(answer.connection).toBe('close');
    expect(Array.isArray(answer.body.data)).toBe(true);
    expect(answer.body.meta.request_id).toMatch(/^[0-9a-f]+$/);

    // Exit 0: drained and stopped, not the forced exit (code 1) that follows the bound by 5 s.
    expect(await s.exited).toBe(0);
    // Both requests answered during the drain and none cut: the drain ended before its bound.
    expect(drainLine(s.output())).toMatch(/^drained in \d+ ms: 2 request\(s\) answered$/);
    expect(s.output()).not.toMatch(/forced exit/i);
  }, 60_000);

  test('a request that outlasts DRAIN_TIMEOUT_MS is cut at the bound while another is answered; the process still exits 0', async () => {
    const s = await start({ DRAIN_TIMEOUT_MS: '3000' });
    const idle = newClient(s.baseUrl);
    expect((await signedGet(idle, s.creds, '/v1/ping')).status).toBe(200);
    const hit = await s.fault({ route: 'GET /tenants/demo/pacientes*', kind: 'hang' });
    const stuck = signedGet(newClient(s.baseUrl), s.creds, '/v1/pacientes?limit=2').then(
      (r) => `answered ${r.status}`,
      (error: Error & { code?: string }) => error.code ?? error.message,
    );
    await hit();
    child!.kill('SIGTERM');
    expect(await refusedOnceDraining(s.baseUrl)).toBe('ECONNREFUSED');
    // Received during the drain, while the hung request holds it open: answered, with Connection: close.
    const late = await signedGet(idle, s.creds, '/v1/ping');
    expect(late).toMatchObject({ status: 200, connection: 'close' });

    expect(await s.exited, s.output()).toBe(0);
    // The hung request got no answer: its connection was cut.
    expect(await stuck).toMatch(/UND_ERR_SOCKET|ECONNRESET|other side closed/);
    // One answered, one cut, at the configured bound; then the clean stop, not the forced exit.
    expect(drainLine(s.output())).toMatch(
      /^drained in \d+ ms: 1 request\(s\) answered, 1 cut at the 3000 ms bound \(DRAIN_TIMEOUT_MS\)$/,
    );
    expect(s.output()).not.toMatch(/forced exit/i);
  }, 60_000);
});
