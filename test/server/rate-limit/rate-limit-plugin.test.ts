import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import type { Credentials } from '../../helpers/signed-client.ts';

// Spec 01 § Limits: "429 is returned when the quota is exceeded (lower quota on the sandbox)".
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ RATE_LIMIT_PER_MINUTE: '5', SANDBOX_RATE_LIMIT_PER_MINUTE: '2' });
});
afterAll(async () => stack?.stop());

test('over the per-key quota: 429 in the envelope with Retry-After', async () => {
  const creds = await stack.newKey();
  for (let i = 0; i < 5; i++) expect((await stack.call({ path: '/v1/ping' }, creds)).status).toBe(200);
  const res = await stack.call({ path: '/v1/ping' }, creds);
  expect(res.status).toBe(429);
  expect(res.body.data).toBeNull();
  expect(res.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(res.headers['x-api-version']).toBe('v1');
});

test('quotas are per API key: another key is unaffected', async () => {
  const a = await stack.newKey();
  const b = await stack.newKey();
  for (let i = 0; i < 6; i++) await stack.call({ path: '/v1/ping' }, a);
  expect((await stack.call({ path: '/v1/ping' }, a)).status).toBe(429);
  expect((await stack.call({ path: '/v1/ping' }, b)).status).toBe(200);
});

test('the sandbox tenant has a lower quota', async () => {
  await stack.createTenant('sandbox-teste', { sandbox: true });
  const creds = await stack.newKey({ tenant: 'sandbox-teste', scopes: ['pacientes:read'] });
  expect((await stack.call({ path: '/v1/ping' }, creds)).status).toBe(200);
  expect((await stack.call({ path: '/v1/ping' }, creds)).status).toBe(200);
  const res = await stack.call({ path: '/v1/ping' }, creds);
  expect(res.status).toBe(429);
  expect(res.body.error.details.limite_por_minuto).toBe(2);
});

describe('the buckets run on a monotonic clock, not the wall clock (issue 20 § 6)', () => {
  // The wall clock this stack reads (signing window, appliance time) is pinned and stepped by hand;
  // requests are signed with it, so only the rate limiter could notice the steps.
  let wall = Date.now();
  let own: TestStack;
  beforeAll(async () => {
    own = await startTestStack({ RATE_LIMIT_PER_MINUTE: '1200' }, { now: () => wall });
  });
  afterAll(async () => own?.stop());
  const ping = (creds: Credentials) => own.call({ path: '/v1/ping', timestamp: Math.floor(wall / 1000) }, creds);

  test('the wall clock stepped back one hour: a key that used 1 request of 1,200 is not refused', async () => {
    const creds = await own.newKey();
    expect((await ping(creds)).status).toBe(200);
    wall -= 60 * 60_000;
    const res = await ping(creds);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers['retry-after']).toBeUndefined();
    expect(Number(res.headers['x-ratelimit-remaining'])).toBeGreaterThanOrEqual(1197);
  });

  test('the wall clock stepped forward one hour: an exhausted quota is not refilled by the step', async () => {
    const small = await startTestStack({ RATE_LIMIT_PER_MINUTE: '3' }, { now: () => wall });
    try {
      const creds = await small.newKey();
      const call = () => small.call({ path: '/v1/ping', timestamp: Math.floor(wall / 1000) }, creds);
      for (let i = 0; i < 3; i++) expect((await call()).status).toBe(200);
      expect((await call()).status).toBe(429);
      wall += 60 * 60_000;
      const res = await call();
      expect(res.status).toBe(429);
      expect(res.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    } finally {
      await small.stop();
    }
  });
});
