import type { ChildProcess } from 'node:child_process';
import { spawnStack, stopStack } from '../../helpers/child-stack.ts';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { nowSeconds, sign } from '../../helpers/signed-client.ts';
import { SMALL_BODY_LIMIT } from '../../../server/routes/operation.ts';

/**
 * Issue 9: each route has a body limit, enforced while the body arrives, and a request without a
 * valid key is refused from its headers, before any body is read.
 */

describe('per-route body limits (in-process stack)', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.stop());

  test('a 25 MB patient body padded in a discarded field gets 413 with the envelope (limit 64 KB)', async () => {
    const body = JSON.stringify({
      nome: 'Paciente Gigante',
      data_nascimento: '1990-01-01',
      observacao: 'x'.repeat(25 * 1024 * 1024),
    });
    const res = await stack.call({ method: 'POST', path: '/v1/pacientes', body, idempotencyKey: randomUUID() });
    expect(res.status).toBe(413);
    expect(res.body.data).toBeNull();
    expect(res.body.error).toEqual({
      code: 'VAL_INVALID_PARAM',
      message: `Corpo excede o limite de ${SMALL_BODY_LIMIT} bytes.`,
      details: { field: 'body', limite_bytes: SMALL_BODY_LIMIT },
    });
    expect(res.body.meta.request_id).toMatch(/^[0-9a-f]+$/);
  });

  test('just under the limit the same route validates the body normally (400 for the discarded-field padding is not a thing: 201)', async () => {
    const base = JSON.stringify({ nome: 'Paciente Limite', data_nascimento: '1990-01-01', observacao: '' });
    const body = JSON.stringify({
      nome: 'Paciente Limite',
      data_nascimento: '1990-01-01',
      observacao: 'x'.repeat(SMALL_BODY_LIMIT - base.length),
    });
    expect(Buffer.byteLength(body)).toBe(SMALL_BODY_LIMIT);
    const res = await stack.call({ method: 'POST', path: '/v1/pacientes', body, idempotencyKey: randomUUID() });
    expect(res.status, res.text).toBe(201);
  });

  test('a chunked body (no Content-Length) is cut at the route limit too', async () => {
    const chunk = Buffer.alloc(16 * 1024, 0x20);
    let sent = 0;
    const stream = new Readable({
      read() {
        sent += chunk.length;
        this.push(sent > 4 * 1024 * 1024 ? null : chunk);
      },
    });
    const timestamp = String(nowSeconds());
    const res = await request(`${stack.gatewayUrl}/v1/pacientes`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'idempotency-key': randomUUID(),
        'x-api-key': stack.creds.apiKey,
        'x-timestamp': timestamp,
        'x-signature': sign(stack.creds.apiSecret, timestamp, 'POST', '/v1/pacientes', ''),
      },
      body: stream,
    }).catch((error: Error) => error);
    if (res instanceof Error) {
      // The gateway may close the socket while the client is still streaming; it must not have read it all.
      expect(sent).toBeLessThan(4 * 1024 * 1024);
    } else {
      expect(res.statusCode).toBe(413);
      expect(((await res.body.json()) as any).error.code).toBe('VAL_INVALID_PARAM');
    }
  });
});

/** VmRSS / VmHWM of a process, in bytes. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)![1]) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

describe('memory while refusing oversized bodies (the stack in its own process, as npm start runs it)', () => {
  let child: ChildProcess;
  let dataDir: string;
  let baseUrl: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'gw-mem-'));
    ({ child, baseUrl } = await spawnStack(dataDir));
  }, 60_000);

  afterAll(async () => {
    await stopStack(child);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** Sends `count` concurrent bodies of `bytes` streamed lazily (the client holds 64 KB at a time). */
  async function flood(count: number, bytes: number, headers: Record<string, string>) {
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const one = async () => {
      let sent = 0;
      const body = new Readable({
        read() {
          if (sent >= bytes) return this.push(null);
          sent += chunk.length;
          this.push(chunk);
        },
      });
      const res = await request(`${baseUrl}/v1/pacientes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(bytes), ...headers },
        body,
      }).catch((error: Error) => error);
      if (res instanceof Error) return { status: 0, sent };
      const json = (await res.body.json().catch(() => null)) as any;
      return { status: res.statusCode, code: json?.error?.code, sent };
    };
    return Promise.all(Array.from({ length: count }, one));
  }

  test('8 concurrent unauthenticated 60 MB bodies: 401 each, gateway peak memory grows by at most a few MB', async () => {
    // Warm-up: first-call allocations (JIT, lazy modules, sockets) are not what is measured.
    await flood(8, 1024 * 1024, {});
    await flood(8, 1024 * 1024, {});
    const before = memoryOf(child.pid!);
    writeFileSync(`/proc/${child.pid}/clear_refs`, '5'); // reset the peak (VmHWM) to the current RSS
    const results = await flood(8, 60 * 1024 * 1024, {});
    const after = memoryOf(child.pid!);
    const growthMb = (after.peak - before.rss) / 1024 / 1024;
    console.log(
      `8 x 60 MB unauthenticated: RSS ${(before.rss / 1048576).toFixed(1)} MB before, peak ${(after.peak / 1048576).toFixed(1)} MB (+${growthMb.toFixed(1)} MB)`,
    );
    for (const r of results) if (r.status !== 0) expect(r).toMatchObject({ status: 401, code: 'AUTH_MISSING_HEADER' });
    expect(growthMb).toBeLessThan(8);
  });

  test('8 concurrent signed 25 MB patient bodies: 413 from Content-Length, peak memory grows by at most a few MB', async () => {
    const creds = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')).keys.demo;
    const warm = { 'x-api-key': creds.api_key, 'x-timestamp': String(nowSeconds()), 'x-signature': '0'.repeat(64) };
    await flood(8, 1024 * 1024, warm);
    const before = memoryOf(child.pid!);
    writeFileSync(`/proc/${child.pid}/clear_refs`, '5');
    const timestamp = String(nowSeconds());
    const results = await flood(8, 25 * 1024 * 1024, {
      'x-api-key': creds.api_key,
      'x-timestamp': timestamp,
      // The signature cannot be checked before the body arrives; the size is refused first.
      'x-signature': '0'.repeat(64),
      'idempotency-key': randomUUID(),
    });
    const after = memoryOf(child.pid!);
    const growthMb = (after.peak - before.rss) / 1024 / 1024;
    console.log(
      `8 x 25 MB signed: RSS ${(before.rss / 1048576).toFixed(1)} MB before, peak ${(after.peak / 1048576).toFixed(1)} MB (+${growthMb.toFixed(1)} MB)`,
    );
    for (const r of results) if (r.status !== 0) expect(r).toMatchObject({ status: 413, code: 'VAL_INVALID_PARAM' });
    expect(growthMb).toBeLessThan(8);
  });
});
