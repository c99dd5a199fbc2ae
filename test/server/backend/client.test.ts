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
  const fault = await admin('POST', '/admin/faults', {
    tenant: stack.tenantSlug,
    route: 'GET /tenants/*/pacientes',
    kind,
    failure_rate: 1,
  });
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
    const fault = await admin('POST', '/admin/faults', {
      tenant: stack.tenantSlug,
      route: 'POST /tenants/*/pacientes',
      kind: 'http500',
      failure_rate: 1,
    });
    try {
      const res = await stack.call({
        method: 'POST',
        path: '/v1/pacientes',
        body: { nome: 'Paciente Falha Injetada', data_nascimento: '1979-03-21' },
        idempotencyKey: `falha-${Date.now()}`,
      });
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
  await insertTenant(stack.gatewayDb.db, {
    slug: 'sem-banco',
    nome: 'Sem Banco',
    is_sandbox: 0,
    created_at: new Date().toISOString(),
  });
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
    expect(toApiError(error)).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      status: 503,
      headers: { 'retry-after': String(BACKEND_RETRY_AFTER_SECONDS) },
    });
  });

  test('data its schema refuses is a contract violation too (parsed, never cast)', async () => {
    const { z } = await import('zod');
    answer = { status: 200, body: { data: { id: 'sete' } } };
    const before = client.contractViolations.length;
    await expect(
      client.call({ method: 'GET', path: '/tenants/t/coisa' }, z.object({ id: z.number() })),
    ).rejects.toMatchObject({ name: 'BackendContractError' });
    expect(client.contractViolations.length).toBe(before + 1);
    answer = { status: 200, body: { data: { id: 7, segredo: 'x' } } };
    const ok = await client.call({ method: 'GET', path: '/tenants/t/coisa' }, z.object({ id: z.number() }));
    expect(ok.data).toEqual({ id: 7 });
  });
});

/**
 * Issue 25 § 2: a read's `data` stamped by the backend with the schema the gateway expects is relayed as the
 * backend's JSON text, never parsed again, except the first stamped answer and one in `verifyOneStampedIn` after
 * it, which are checked in full; any violation stops the trust until restart (docs/decisions.md HOP1). A loopback
 * stub plays the backend, honest or not.
 */
describe('stamped reads (BackendClient.relay)', () => {
  let server: import('node:http').Server;
  let url: string;
  let answer: { body: string; stamp?: string; status?: number } = { body: '{}' };
  const clients: Array<import('../../../server/backend/client.ts').BackendClient> = [];

  beforeAll(async () => {
    const http = await import('node:http');
    server = http.createServer((_req, res) => {
      res.writeHead(answer.status ?? 200, {
        'content-type': 'application/json',
        ...(answer.stamp ? { 'x-contract-schema': answer.stamp } : {}),
      });
      res.end(answer.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}`;
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await new Promise((resolve) => server?.close(resolve));
  });

  const fresh = async (verifyOneStampedIn: number) => {
    const { BackendClient } = await import('../../../server/backend/client.ts');
    const client = new BackendClient(url, 'token-of-the-stub-0123', 2000);
    client.verifyOneStampedIn = verifyOneStampedIn;
    clients.push(client);
    return client;
  };
  const schemas = async () => {
    const { z } = await import('zod');
    const { contractOf } = await import('../../../shared-node/contract-stamp.ts');
    const item = z.object({ id: z.number().int(), nome: z.string() });
    const list = z.array(item);
    return {
      list,
      stamp: contractOf(list)!.stamp,
      otherStamp: contractOf(z.array(z.object({ id: z.number() })))!.stamp,
    };
  };
  const read = { method: 'GET' as const, path: '/tenants/t/coisas' };
  const honest = '{"meta":{"total":7},"data":[{"id":1,"nome":"UM"},{"id":2,"nome":"DOIS \\"},\\"data\\":"}]}';

  test("an answer stamped with the expected schema: data relayed as the backend's text, meta parsed", async () => {
    const { RelayedJson } = await import('../../../server/http/schemas.ts');
    const { list, stamp } = await schemas();
    const client = await fresh(3);
    answer = { body: honest, stamp };
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await client.relay(read, list));
    for (const result of results) {
      expect(result.data).toBeInstanceOf(RelayedJson);
      expect((result.data as InstanceType<typeof RelayedJson>).json).toBe(
        '[{"id":1,"nome":"UM"},{"id":2,"nome":"DOIS \\"},\\"data\\":"}]',
      );
      expect(result.meta).toEqual({ total: 7 });
    }
    // The first and the fourth (one in 3 after the first) checked in full, the others relayed unparsed.
    expect(client.relays).toEqual({ relayed: 2, verified: 2, parsed: 0 });
    expect(client.contractViolations).toEqual([]);
  });

  test('unstamped, stamped with another schema, or not meta first: parsed in full, keys outside the schema stripped', async () => {
    const { list, stamp, otherStamp } = await schemas();
    const client = await fresh(1000);
    const withExtra = '{"meta":{"total":1},"data":[{"id":1,"nome":"UM","senha_hash":"x"}]}';
    for (const sent of [
      { body: withExtra },
      { body: withExtra, stamp: otherStamp },
      { body: '{"data":[{"id":1,"nome":"UM","senha_hash":"x"}],"meta":{"total":1}}', stamp },
    ]) {
      answer = sent;
      const result = await client.relay(read, list);
      expect(result.data).toEqual([{ id: 1, nome: 'UM' }]);
      expect(result.meta).toEqual({ total: 1 });
    }
    expect(client.relays).toEqual({ relayed: 0, verified: 0, parsed: 3 });
  });

  test('a checked stamped answer outside its schema: a counted violation (503), and no stamp is trusted afterwards', async () => {
    const { RelayedJson } = await import('../../../server/http/schemas.ts');
    const { list, stamp } = await schemas();
    const client = await fresh(1000);
    // More than its schema names (a field it would strip), on the first stamped answer, which is always checked.
    answer = { body: '{"meta":{"total":1},"data":[{"id":1,"nome":"UM","senha_hash":"x"}]}', stamp };
    await expect(client.relay(read, list)).rejects.toMatchObject({ name: 'BackendContractError' });
    expect(client.contractViolations).toHaveLength(1);
    expect(client.contractViolations[0]).toContain('stamped data is not what its schema makes of it');
    // A type its schema refuses, stamped: refused the same way.
    const other = await fresh(1000);
    answer = { body: '{"meta":{"total":1},"data":[{"id":"um","nome":"UM"}]}', stamp };
    await expect(other.relay(read, list)).rejects.toMatchObject({ name: 'BackendContractError' });
    // From then on even an honest stamped answer is parsed in full.
    answer = { body: honest, stamp };
    const after = await client.relay(read, list);
    expect(after.data).not.toBeInstanceOf(RelayedJson);
    expect(after.data).toEqual([
      { id: 1, nome: 'UM' },
      { id: 2, nome: 'DOIS "},"data":' },
    ]);
    expect(client.trustsStamps).toBe(false);
  });

  test('an error answer is mapped as by call(), stamp or not', async () => {
    const { list, stamp } = await schemas();
    const client = await fresh(1);
    answer = {
      status: 404,
      stamp,
      body: JSON.stringify({ error: { code: 'RES_NOT_FOUND', message: 'Nao encontrado.', details: null } }),
    };
    await expect(client.relay(read, list)).rejects.toMatchObject({ code: 'RES_NOT_FOUND', status: 404 });
    expect(client.relays).toEqual({ relayed: 0, verified: 0, parsed: 0 });
  });
});

describe('splitStamped', () => {
  test('meta up to its closing brace, strings and nesting included; data is the rest', async () => {
    const { splitStamped } = await import('../../../server/backend/client.ts');
    expect(splitStamped('{"meta":{},"data":{"id":1}}')).toEqual({ meta: {}, data: '{"id":1}' });
    expect(splitStamped('{"meta":{"a":"},\\"data\\":{","b":[{"c":"]"}]},"data":[1]}')).toEqual({
      meta: { a: '},"data":{', b: [{ c: ']' }] },
      data: '[1]',
    });
  });
  test('any other layout: null (the answer is then parsed in full)', async () => {
    const { splitStamped } = await import('../../../server/backend/client.ts');
    for (const text of [
      '{"data":[],"meta":{}}',
      '{"meta":null,"data":[]}',
      '{"meta":{},"other":[]}',
      '{"meta":{"a":1}',
      ' {"meta":{},"data":[]}',
      '{"meta":{"a":}},"data":[]}',
      '{"meta":[],"data":[]}',
    ]) {
      expect(splitStamped(text), text).toBeNull();
    }
  });
});
