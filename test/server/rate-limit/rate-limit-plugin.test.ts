import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

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
