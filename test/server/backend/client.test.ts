import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { backendAdmin } from '../../helpers/fixtures.ts';
import { insertTenant } from '../../../server/tenants/tenants.repository.ts';

// Spec 01 § Backend codes: 503 for connection failure, unclassified 500, invalid JSON, bad internal credential; 504 on timeout.
let stack: TestStack;
let admin: ReturnType<typeof backendAdmin>;
beforeAll(async () => {
  stack = await startTestStack({ BACKEND_TIMEOUT_MS: '500' });
  admin = backendAdmin(stack);
});
afterAll(async () => stack?.stop());

async function withFault(kind: string, run: () => Promise<void>) {
  const fault = await admin('POST', '/admin/faults', { tenant: stack.tenantSlug, route: 'GET /tenants/*/pacientes', kind, failure_rate: 1 });
  expect(fault.status).toBe(201);
  try {
    await run();
  } finally {
    await admin('DELETE', `/admin/faults/${fault.body.data.id}`);
  }
}

describe('fault injection through GET /v1/pacientes', () => {
  for (const kind of ['http500', 'drop', 'invalid_json']) {
    test(`${kind} → 503 SERVICE_UNAVAILABLE`, async () => {
      await withFault(kind, async () => {
        const res = await stack.call({ path: '/v1/pacientes' });
        expect(res.status).toBe(503);
        expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
        expect(res.body.data).toBeNull();
      });
    });
  }
  test('hang past the configured timeout → 504 SERVICE_TIMEOUT', async () => {
    await withFault('hang', async () => {
      const started = Date.now();
      const res = await stack.call({ path: '/v1/pacientes' });
      expect(res.status).toBe(504);
      expect(res.body.error.code).toBe('SERVICE_TIMEOUT');
      expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    });
  });
  test('after the fault is removed the same call succeeds', async () => {
    expect((await stack.call({ path: '/v1/pacientes' })).status).toBe(200);
  });
});

test('a wrong internal credential makes the gateway answer 503', async () => {
  const wrong = await startTestStack({ BACKEND_URL: stack.backendUrl, BACKEND_TOKEN: 'credencial-errada-0123456789' });
  try {
    const res = await wrong.call({ path: '/v1/config' });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
  } finally {
    await wrong.stop();
  }
});

test('a tenant backend-sim cannot open → 401 AUTH_TENANT_OPEN_FAILED', async () => {
  // Registered in the gateway only: backend-sim has no database for it.
  await insertTenant(stack.gatewayDb.db, { slug: 'sem-banco', nome: 'Sem Banco', is_sandbox: 0, created_at: new Date().toISOString() });
  const creds = await stack.newKey({ tenant: 'sem-banco' });
  const res = await stack.call({ path: '/v1/config' }, creds);
  expect(res.status).toBe(401);
  expect(res.body.error.code).toBe('AUTH_TENANT_OPEN_FAILED');
});

test('backend-sim killed mid-run → 503 SERVICE_UNAVAILABLE', async () => {
  const s = await startTestStack();
  try {
    expect((await s.call({ path: '/v1/config' })).status).toBe(200);
    await s.backendSim!.close();
    const res = await s.call({ path: '/v1/config' });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
  } finally {
    await s.stop();
  }
});
