import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { ensureOperator } from '../../../server/admin/operators.ts';
import { ConsoleClient } from './console-client.ts';

// Issue 22 § 4: the signing playground fills X-API-Key from the key an operator picks.
let stack: TestStack;
let client: ConsoleClient;

beforeAll(async () => {
  stack = await startTestStack();
  await ensureOperator(stack.gatewayDb.db, 'operador', 'correct-horse-battery');
  client = new ConsoleClient(stack.gatewayUrl);
  expect((await client.login('operador', 'correct-horse-battery')).status).toBe(200);
});
afterAll(async () => stack?.stop());

describe('GET /admin/api/keys/:id/api-key', () => {
  it('answers the full API key (never the secret), not cached, to a signed-in operator only', async () => {
    const key = await stack.newKey();
    const res = await client.call('GET', `/admin/api/keys/${key.chaveId}/api-key`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: key.chaveId, api_key: key.apiKey, status: 'active' });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text).not.toContain(key.apiSecret);

    const anonymous = await client.call('GET', `/admin/api/keys/${key.chaveId}/api-key`, undefined, { cookie: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.text).not.toContain(key.apiKey);
    expect((await client.call('GET', '/admin/api/keys/999999/api-key')).status).toBe(404);
  });
});
