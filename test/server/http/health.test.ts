import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { startEmbeddedS3, type EmbeddedS3 } from '../../../appliance/storage/embedded-s3.ts';

// Issue 13 § Health and readiness: GET /healthz and GET /readyz, unsigned, outside /v1, in the envelope.

function expectEnvelope(res: { headers: Record<string, string>; body: any }) {
  expect(res.body.meta.request_id).toMatch(/^[0-9a-f]+$/);
  expect(Number.isInteger(res.body.meta.duracao_ms)).toBe(true);
  expect(res.headers['x-api-version']).toBe('v1');
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['content-type']).toMatch(/^application\/json/);
}

describe('a whole stack: backend-sim stopped → not ready', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.stop());

  test('/healthz answers without signing, in the envelope', async () => {
    const res = await stack.raw({ path: '/healthz' });
    expect(res.status).toBe(200);
    expectEnvelope(res);
    expect(res.body).toMatchObject({ data: { status: 'ok' }, error: null });
  });

  test('/readyz answers without signing: every component up, with its latency', async () => {
    const res = await stack.raw({ path: '/readyz' });
    expect(res.status).toBe(200);
    expect(res.headers['retry-after']).toBeUndefined();
    expectEnvelope(res);
    expect(res.body.error).toBeNull();
    expect(res.body.data.status).toBe('ready');
    expect(Object.keys(res.body.data.componentes).sort()).toEqual([
      'backend_sim',
      'gateway_db',
      'integrity',
      'journal',
      'storage',
    ]);
    for (const component of Object.values<any>(res.body.data.componentes)) {
      expect(component.status).toBe('up');
      expect(Number.isInteger(component.latencia_ms)).toBe(true);
      expect(component.latencia_ms).toBeLessThan(1500);
    }
  });

  test('signing headers, if sent, change nothing; other verbs are 405; not under /v1', async () => {
    const signed = await stack.raw({
      path: '/readyz',
      headers: { 'x-api-key': 'junk', 'x-signature': 'junk', 'x-timestamp': 'junk' },
    });
    expect(signed.status).toBe(200);
    const post = await stack.raw({ method: 'POST', path: '/healthz' });
    expect(post.status).toBe(405);
    expect(post.body.error.code).toBe('METHOD_NOT_ALLOWED');
    expect((await stack.raw({ path: '/v1/healthz' })).body.error.code).toBe('RES_NOT_FOUND');
  });

  test('a stopped backend-sim makes /readyz 503 SERVICE_UNAVAILABLE naming it, quickly; /healthz still 200', async () => {
    await stack.backendSim!.close();
    const started = performance.now();
    const res = await stack.raw({ path: '/readyz' });
    expect(performance.now() - started).toBeLessThan(2500);
    expect(res.status).toBe(503);
    expectEnvelope(res);
    expect(res.body.data).toBeNull();
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(res.body.error.message).toContain('backend_sim');
    expect(res.body.error.details.status).toBe('not_ready');
    const { componentes } = res.body.error.details;
    expect(componentes.backend_sim).toMatchObject({ status: 'down', erro: 'connection_failed' });
    // A component that comes back by itself: worth asking again in 5 s (issue 21 § 4).
    expect(res.headers['retry-after']).toBe('5');
    expect(componentes.gateway_db.status).toBe('up');
    expect(componentes.storage.status).toBe('up');
    // Nothing about where the component lives.
    expect(res.text).not.toMatch(/127\.0\.0\.1|localhost|token/i);
    expect((await stack.raw({ path: '/healthz' })).status).toBe(200);
  });
});

describe('storage stopped → not ready (storage owned by the test through S3_ENDPOINT)', () => {
  let stack: TestStack;
  let s3: EmbeddedS3;
  let s3Dir: string;
  beforeAll(async () => {
    s3Dir = mkdtempSync(path.join(tmpdir(), 'gw-health-s3-'));
    s3 = await startEmbeddedS3({
      directory: s3Dir,
      port: 0,
      accessKey: 'health-test',
      secretKey: 'health-test-secret',
      buckets: ['clinic-files'],
    });
    stack = await startTestStack({
      S3_ENDPOINT: `http://127.0.0.1:${s3.port}`,
      S3_ACCESS_KEY: 'health-test',
      S3_SECRET_KEY: 'health-test-secret',
    });
  });
  afterAll(async () => {
    await stack?.stop();
    await s3?.close().catch(() => undefined);
    if (s3Dir) rmSync(s3Dir, { recursive: true, force: true });
  });

  test('up while the storage runs, 503 naming storage once it is stopped', async () => {
    expect((await stack.raw({ path: '/readyz' })).status).toBe(200);
    await s3.close();
    const res = await stack.raw({ path: '/readyz' });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(res.body.error.details.componentes.storage).toMatchObject({ status: 'down', erro: 'connection_failed' });
    expect(res.headers['retry-after']).toBe('5');
    expect(res.body.error.details.componentes.backend_sim.status).toBe('up');
  });
});
