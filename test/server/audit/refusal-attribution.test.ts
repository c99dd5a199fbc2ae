import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { journalEntry } from '../../helpers/journal.ts';
import { nowSeconds } from '../../helpers/signed-client.ts';
import { ensureOperator } from '../../../server/operators/index.ts';
import { ConsoleClient } from '../admin/console-client.ts';

/**
 * Issue 19 § Every refusal under the key it names: when X-API-Key names an existing key, the entry
 * carries that key's id and clinic, so the console's per-key "Calls" view explains why an integrator fails.
 * Refusals that proved nothing are marked unverified (verified = 0); the ones after a valid signature are verified.
 */

const PASSWORD = 'attribution-password';
let stack: TestStack;
let console: ConsoleClient;
let tenantId: number;

beforeAll(async () => {
  stack = await startTestStack({ RATE_LIMIT_PER_MINUTE: '3' });
  await ensureOperator(stack.gatewayDb.db, 'operador', PASSWORD);
  console = new ConsoleClient(stack.gatewayUrl);
  expect((await console.login('operador', PASSWORD)).status).toBe(200);
  tenantId = (await stack.tenants.get(stack.tenantSlug))!.id;
});
afterAll(async () => stack?.stop());

/** The request's entry and what the console's "Calls" of the key list. */
async function entryAndCalls(requestId: string, chaveId: number) {
  const row = await journalEntry(stack, requestId);
  const calls = await console.call('GET', `/admin/api/audit?chave_id=${chaveId}&limit=200`);
  expect(calls.status).toBe(200);
  return { row, listed: calls.body.data.items.find((item: { request_id: string }) => item.request_id === requestId) };
}

const cases: Array<
  [
    string,
    number,
    string,
    (key: Awaited<ReturnType<TestStack['newKey']>>) => Promise<{ status: number; body: any }>,
    0 | 1,
  ]
> = [
  [
    'timestamp 301 s in the past',
    401,
    'AUTH_TIMESTAMP_EXPIRED',
    (key) => stack.call({ path: '/v1/ping', timestamp: nowSeconds() - 301 }, key),
    0,
  ],
  [
    'timestamp 301 s in the future',
    401,
    'AUTH_TIMESTAMP_EXPIRED',
    (key) => stack.call({ path: '/v1/ping', timestamp: nowSeconds() + 301 }, key),
    0,
  ],
  [
    'timestamp not a number',
    401,
    'AUTH_INVALID_TIMESTAMP',
    (key) => stack.call({ path: '/v1/ping', timestamp: 'ontem' }, key),
    0,
  ],
  [
    'bad signature',
    401,
    'AUTH_INVALID_SIGNATURE',
    (key) => stack.call({ path: '/v1/ping', signature: 'a'.repeat(64) }, key),
    0,
  ],
  ['missing scope', 403, 'AUTH_INSUFFICIENT_SCOPE', (key) => stack.call({ path: '/v1/exames' }, key), 1],
];

for (const [name, status, code, send, verified] of cases) {
  test(`${name}: ${status} ${code}, journaled under the key and its clinic, listed in the key's calls`, async () => {
    const key = await stack.newKey({ scopes: ['pacientes:read'] });
    const res = await send(key);
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
    const { row, listed } = await entryAndCalls(res.body.meta.request_id, key.chaveId);
    expect(row).toMatchObject({
      chave_id: key.chaveId,
      tenant_id: tenantId,
      tenant_slug: stack.tenantSlug,
      error_code: code,
      verified,
    });
    expect(listed).toMatchObject({ chave_id: key.chaveId, error_code: code, verified });
  });
}

test('revoked key: 401 AUTH_KEY_REVOKED under that key', async () => {
  const key = await stack.newKey();
  await stack.keys.revoke(key.chaveId);
  const res = await stack.call({ path: '/v1/ping' }, key);
  expect(res.body.error.code).toBe('AUTH_KEY_REVOKED');
  const { row, listed } = await entryAndCalls(res.body.meta.request_id, key.chaveId);
  expect(row).toMatchObject({ chave_id: key.chaveId, tenant_id: tenantId, verified: 0 });
  expect(listed).toBeDefined();
});

test('inactive clinic: 401 AUTH_TENANT_OPEN_FAILED under the key and its clinic', async () => {
  await stack.createTenant('clinica-inativa');
  const key = await stack.newKey({ tenant: 'clinica-inativa' });
  await stack.tenants.setStatus('clinica-inativa', 'disabled');
  const res = await stack.call({ path: '/v1/ping' }, key);
  expect(res.body.error.code).toBe('AUTH_TENANT_OPEN_FAILED');
  const inactiveId = (await stack.tenants.get('clinica-inativa'))!.id;
  const { row, listed } = await entryAndCalls(res.body.meta.request_id, key.chaveId);
  expect(row).toMatchObject({
    chave_id: key.chaveId,
    tenant_id: inactiveId,
    tenant_slug: 'clinica-inativa',
    verified: 0,
  });
  expect(listed).toBeDefined();
});

test('rate-limited: 429 RATE_LIMIT_EXCEEDED under the key (verified: its signature was checked)', async () => {
  const key = await stack.newKey();
  let res = await stack.call({ path: '/v1/ping' }, key);
  for (let i = 0; i < 10 && res.status !== 429; i++) res = await stack.call({ path: '/v1/ping' }, key);
  expect(res.status).toBe(429);
  const { row, listed } = await entryAndCalls(res.body.meta.request_id, key.chaveId);
  expect(row).toMatchObject({
    chave_id: key.chaveId,
    tenant_id: tenantId,
    error_code: 'RATE_LIMIT_EXCEEDED',
    verified: 1,
  });
  expect(listed).toBeDefined();
});

test('an unknown key names nobody: no entry under any key (counted with the unattributed groups)', async () => {
  const res = await stack.call({ path: '/v1/ping' }, { apiKey: `ce_live_${'1'.repeat(32)}`, apiSecret: 'x' });
  expect(res.body.error.code).toBe('AUTH_KEY_NOT_FOUND');
  expect(await journalEntry(stack, res.body.meta.request_id)).toBeUndefined();
});
