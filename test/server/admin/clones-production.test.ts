import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { ensureOperator } from '../../../server/operators/index.ts';
import { ConsoleClient } from './console-client.ts';

// Issue 30 § Ephemeral clinics in production: clone and drop are refused (403 OPERATION_NOT_ALLOWED naming
// ALLOW_EPHEMERAL_CLINICS, the reset's shape) on the console and automation routes unless the opt-in is set.
vi.setConfig({ testTimeout: 90_000 });
const PASSWORD = 'correct-horse-battery';

async function productionStack() {
  const stack = await startTestStack({ APP_ENV: 'production' });
  await ensureOperator(stack.gatewayDb.db, 'operador', PASSWORD);
  const client = new ConsoleClient(stack.gatewayUrl);
  expect((await client.login('operador', PASSWORD)).status).toBe(200);
  const issued = await client.call('POST', '/admin/api/operator-tokens', { label: 'ci', tenants: '*', clone: true });
  expect(issued.status).toBe(201);
  return { stack, client, token: issued.body.data.token as string };
}

const automation = async (stack: TestStack, token: string, method: 'POST' | 'DELETE', target: string) => {
  const res = await request(`${stack.gatewayUrl}/admin/api/automation${target}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: '{}',
  });
  return { status: res.statusCode, body: (await res.body.json()) as any };
};

describe('APP_ENV=production without ALLOW_EPHEMERAL_CLINICS', () => {
  let stack: TestStack;
  let client: ConsoleClient;
  let token: string;
  beforeAll(async () => {
    ({ stack, client, token } = await productionStack());
  });
  afterAll(async () => stack?.stop());

  it('the policy says disabled; clone and drop answer 403 OPERATION_NOT_ALLOWED naming the opt-in; nothing is made or removed', async () => {
    const policy = await client.call('GET', '/admin/api/ephemeral-clinics-policy');
    expect(policy.body.data).toMatchObject({ allowed: false, app_env: 'production', opt_in: false, max: 20 });
    const before = (await client.call('GET', '/admin/api/tenants')).body.data;
    for (const res of [
      await client.call('POST', `/admin/api/tenants/${stack.tenantSlug}/clone`, {}),
      await client.call('DELETE', `/admin/api/tenants/${stack.tenantSlug}`, { confirm: stack.tenantSlug }),
      await automation(stack, token, 'POST', `/tenants/${stack.tenantSlug}/clone`),
      await automation(stack, token, 'DELETE', `/tenants/${stack.tenantSlug}`),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('OPERATION_NOT_ALLOWED');
      expect(res.body.error.details).toEqual({ opt_in_variable: 'ALLOW_EPHEMERAL_CLINICS' });
      expect(res.body.error.message).toMatch(/ALLOW_EPHEMERAL_CLINICS=true/);
    }
    expect((await client.call('GET', '/admin/api/tenants')).body.data).toEqual(before);
    expect((await stack.call({ path: '/v1/pacientes?limit=1' })).status).toBe(200);
  });
});

describe('APP_ENV=production with ALLOW_EPHEMERAL_CLINICS=true', () => {
  let stack: TestStack;
  let token: string;
  beforeAll(async () => {
    // Read by the console API at start, like ALLOW_TENANT_RESET.
    process.env.ALLOW_EPHEMERAL_CLINICS = 'true';
    try {
      ({ stack, token } = await productionStack());
    } finally {
      delete process.env.ALLOW_EPHEMERAL_CLINICS;
    }
  });
  afterAll(async () => stack?.stop());

  it('a token with the clone permission clones and drops', async () => {
    const made = await automation(stack, token, 'POST', `/tenants/${stack.tenantSlug}/clone`);
    expect(made.status, JSON.stringify(made.body.error)).toBe(201);
    const dropped = await automation(stack, token, 'DELETE', `/tenants/${made.body.data.slug}`);
    expect(dropped.status, JSON.stringify(dropped.body.error)).toBe(200);
  });
});
