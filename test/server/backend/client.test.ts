import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { backendAdmin } from '../../helpers/fixtures.ts';
import { insertTenant } from '../../../server/tenants/tenants.repository.ts';
import { BACKEND_RETRY_AFTER_SECONDS } from '../../../server/backend/client.ts';

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
    test(`${kind} → 503 SERVICE_UNAVAILABLE with Retry-After`, async () => {
      await withFault(kind, async () => {
        const res = await stack.call({ path: '/v1/pacientes' });
        expect(res.status).toBe(503);
        expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
        expect(res.body.data).toBeNull();
        // Issue 21 § 4: every 503 from a fault says when to retry.
        expect(res.headers['retry-after']).toBe(String(BACKEND_RETRY_AFTER_SECONDS));
      });
    });
  }
  test('an injected fault on a write: 503 with Retry-After too', async () => {
    const fault = await admin('POST', '/admin/faults', { tenant: stack.tenantSlug, route: 'POST /tenants/*/pacientes', kind: 'http500', failure_rate: 1 });
    try {
      const res = await stack.call({ method: 'POST', path: '/v1/pacientes', body: { nome: 'Paciente Falha Injetada', data_nascimento: '1979-03-21' }, idempotencyKey: `falha-${Date.now()}` });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(res.headers['retry-after']).toBe(String(BACKEND_RETRY_AFTER_SECONDS));
    } finally {
      await admin('DELETE', `/admin/faults/${fault.body.data.id}`);
    }
  });
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
    expect(res.headers['retry-after']).toBe(String(BACKEND_RETRY_AFTER_SECONDS));
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
    expect(res.headers['retry-after']).toBe(String(BACKEND_RETRY_AFTER_SECONDS));
  } finally {
    await s.stop();
  }
});

/**
 * Issue 9: every error code backend-sim can answer (its BackendError only takes the codes of
 * contracts/errors.ts) has one meaning at the gateway, and a code outside the contract is a
 * counted contract violation, never a silent 503. backend-sim cannot be made to send a code it does
 * not have, so a loopback stub plays a backend that breaks the contract.
 */
describe('backend error codes through the contract', () => {
  let server: import('node:http').Server;
  let client: import('../../../server/backend/client.ts').BackendClient;
  let answer: { status: number; body: unknown } = { status: 200, body: { data: null } };

  beforeAll(async () => {
    const http = await import('node:http');
    const { BackendClient } = await import('../../../server/backend/client.ts');
    server = http.createServer((_req, res) => {
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as import('node:net').AddressInfo).port;
    client = new BackendClient(`http://127.0.0.1:${port}`, 'token-of-the-stub-0123', 2000);
  });
  afterAll(async () => {
    await client?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  const failure = async (status: number, code: unknown) => {
    answer = { status, body: { error: { code, message: 'Mensagem do backend.', details: { field: 'x' } } } };
    const { z } = await import('zod');
    return client.call({ method: 'GET', path: '/tenants/t/coisa' }, z.unknown()).then(
      () => {
        throw new Error('expected a failure');
      },
      (error: unknown) => error as { code?: string; status?: number; name?: string },
    );
  };

  test('each public code backend-sim can send reaches the integrator as itself, with its status', async () => {
    const { BACKEND_PASSTHROUGH_CODES, API_ERROR_STATUS } = await import('../../../contracts/errors.ts');
    for (const code of BACKEND_PASSTHROUGH_CODES) {
      const error = await failure(API_ERROR_STATUS[code], code);
      expect(error, code).toMatchObject({ code, status: API_ERROR_STATUS[code] });
    }
  });

  test("each of backend-sim's internal codes becomes its one public outcome", async () => {
    const { BACKEND_INTERNAL_OUTCOME } = await import('../../../contracts/errors.ts');
    for (const [code, outcome] of Object.entries(BACKEND_INTERNAL_OUTCOME)) {
      const error = await failure(outcome.status, code);
      expect(error, code).toMatchObject({ code: outcome.becomes });
      // A 503 says when to retry; the other outcomes (the clinic cannot be opened) do not.
      expect((error as { headers?: Record<string, string> }).headers?.['retry-after'], code).toBe(
        outcome.becomes === 'SERVICE_UNAVAILABLE' ? String(BACKEND_RETRY_AFTER_SECONDS) : undefined,
      );
    }
  });

  test('an error code outside the contract is a counted contract violation, answered 503 to the client', async () => {
    const before = client.contractViolations.length;
    const error = await failure(422, 'CODIGO_NOVO_DESCONHECIDO');
    expect(error.name).toBe('BackendContractError');
    expect(client.contractViolations.length).toBe(before + 1);
    expect(client.contractViolations.at(-1)).toContain('CODIGO_NOVO_DESCONHECIDO');
    const { toApiError } = await import('../../../server/http/envelope-plugin.ts');
    expect(toApiError(error)).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503, headers: { 'retry-after': String(BACKEND_RETRY_AFTER_SECONDS) } });
  });

  test('data its schema refuses is a contract violation too (parsed, never cast)', async () => {
    const { z } = await import('zod');
    answer = { status: 200, body: { data: { id: 'sete' } } };
    const before = client.contractViolations.length;
    await expect(client.call({ method: 'GET', path: '/tenants/t/coisa' }, z.object({ id: z.number() }))).rejects.toMatchObject({ name: 'BackendContractError' });
    expect(client.contractViolations.length).toBe(before + 1);
    answer = { status: 200, body: { data: { id: 7, segredo: 'x' } } };
    const ok = await client.call({ method: 'GET', path: '/tenants/t/coisa' }, z.object({ id: z.number() }));
    expect(ok.data).toEqual({ id: 7 });
  });
});
