import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

// Spec 01 § What the service does: browser calls only from {portal_url} (and a local development origin in development).
const PORTAL = 'https://portal.exemplo.test';
const DEV = 'http://localhost:5173';

describe('development mode', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ PORTAL_ORIGIN: PORTAL, APP_ENV: 'development', DEV_ORIGIN: DEV });
  });
  afterAll(async () => stack?.stop());

  const preflight = (origin: string) =>
    stack.raw({
      method: 'OPTIONS',
      path: '/v1/pacientes',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-api-key, x-signature',
      },
    });

  test('preflight from the portal origin is answered with the allowed methods and headers', async () => {
    const res = await preflight(PORTAL);
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(PORTAL);
    expect(res.headers['access-control-allow-methods']).toContain('POST');
    expect(res.headers['access-control-allow-headers'].toLowerCase()).toContain('x-signature');
    expect(res.headers['access-control-allow-headers'].toLowerCase()).toContain('idempotency-key');
    expect(res.body.error).toBeNull();
  });
  test('preflight from the development origin is accepted in development', async () => {
    expect((await preflight(DEV)).headers['access-control-allow-origin']).toBe(DEV);
  });
  test('preflight from any other origin is refused (403 OPERATION_NOT_ALLOWED, no allow-origin)', async () => {
    const res = await preflight('https://evil.example');
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('OPERATION_NOT_ALLOWED');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
  test('a signed browser call from the portal gets Access-Control-Allow-Origin and exposed headers', async () => {
    const res = await stack.call({ path: '/v1/ping', headers: { origin: PORTAL } });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(PORTAL);
    expect(res.headers['access-control-expose-headers']).toContain('X-Request-Id');
  });
  test('a signed browser call from another origin is refused before reaching any data', async () => {
    const res = await stack.call({ path: '/v1/ping', headers: { origin: 'https://evil.example' } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('OPERATION_NOT_ALLOWED');
  });
  test('server-to-server calls (no Origin) are unaffected and carry no CORS headers', async () => {
    const res = await stack.call({ path: '/v1/ping' });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
  test('OPTIONS that is not a preflight is 405', async () => {
    expect((await stack.raw({ method: 'OPTIONS', path: '/v1/ping' })).status).toBe(405);
  });
});

describe('production mode', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ PORTAL_ORIGIN: PORTAL, APP_ENV: 'production', DEV_ORIGIN: DEV });
  });
  afterAll(async () => stack?.stop());

  test('the development origin is refused outside development', async () => {
    const res = await stack.call({ path: '/v1/ping', headers: { origin: DEV } });
    expect(res.status).toBe(403);
  });
  test('the portal origin is still accepted', async () => {
    expect((await stack.call({ path: '/v1/ping', headers: { origin: PORTAL } })).status).toBe(200);
  });
});
