import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { holdWritesUntil } from '../../appliance/hold-writes.ts';

/**
 * Decision T32-3: the start-time idempotency check runs once the gateway listens; until it settles, a write or a
 * request naming an Idempotency-Key (a replay) does not reach the gateway, while reads are answered at once.
 */
let server: Server | null = null;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = null;
});

/** A server whose handler records what reached it, in order. */
async function recording(): Promise<{ server: Server; port: number; reached: string[] }> {
  const reached: string[] = [];
  const s = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      reached.push(`${req.method} ${req.url}${body ? ` ${body}` : ''}`);
      res.end('ok');
    });
  });
  server = s;
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return { server: s, port: (s.address() as AddressInfo).port, reached };
}

function call(
  port: number,
  method: string,
  path: string,
  options: { body?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: options.headers, agent: false }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

function deferred(): { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void } {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('holdWritesUntil', () => {
  it('serves reads at once, holds writes and replays (their bodies kept) until the check is done, then takes nothing per request', async () => {
    const { server: s, port, reached } = await recording();
    const handler = s.listeners('request');
    const check = deferred();
    const gate = holdWritesUntil(s, check.promise);
    // Added after the gate (as the drain's listener is): called from the request's arrival on.
    const arrived: string[] = [];
    const drainLike = (req: IncomingMessage) => arrived.push(`${req.method} ${req.url}`);
    s.prependListener('request', drainLike);

    const post = call(port, 'POST', '/v1/pacientes', { body: '{"nome":"x"}' });
    const replay = call(port, 'GET', '/v1/exames', { headers: { 'idempotency-key': 'k1' } });
    const patch = call(port, 'PATCH', '/v1/pacientes/1', { body: '{}' });
    expect(await call(port, 'GET', '/v1/ping')).toEqual({ status: 200, body: 'ok' });
    await settle();
    expect(reached).toEqual(['GET /v1/ping']);
    expect(arrived).toHaveLength(4);
    expect(gate.held).toBe(3);

    check.resolve();
    expect((await post).status).toBe(200);
    expect((await replay).status).toBe(200);
    expect((await patch).status).toBe(200);
    expect(reached.slice(1).sort()).toEqual([
      'GET /v1/exames',
      'PATCH /v1/pacientes/1 {}',
      'POST /v1/pacientes {"nome":"x"}',
    ]);
    // The server's listeners are its own again, the one added meanwhile kept ahead of them.
    expect(s.listeners('request')).toEqual([drainLike, ...handler]);
    expect((await call(port, 'DELETE', '/v1/x')).status).toBe(200);
    expect(gate.held).toBe(3);
  });

  it('a check that fails: the held writes and later ones are refused (503), reads still answered, nothing written', async () => {
    const { server: s, port, reached } = await recording();
    const check = deferred();
    holdWritesUntil(s, check.promise);
    const post = call(port, 'POST', '/v1/pacientes', { body: '{}' });
    await settle();
    check.reject(new Error('gateway.db unreadable'));
    expect((await post).status).toBe(503);
    expect((await call(port, 'PUT', '/v1/x', { body: '{}' })).status).toBe(503);
    expect((await call(port, 'GET', '/v1/ping', { headers: { 'idempotency-key': 'k' } })).status).toBe(503);
    expect((await call(port, 'GET', '/v1/ping')).status).toBe(200);
    expect(reached).toEqual(['GET /v1/ping']);
  });
});
