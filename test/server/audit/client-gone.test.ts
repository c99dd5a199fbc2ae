import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { z } from 'zod';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

/**
 * A client that gives up while its call waits on backend-sim: the gateway answers into a socket that is gone,
 * where the client's address can no longer be read. Its journal entry had no address, and the audit writer's
 * flush threw on it outside any request: the whole appliance exited (found with issue 25, where backend-sim's
 * own process makes such an answer come a little later, after the socket is closed).
 */
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => stack?.stop());

test('the appliance keeps answering, and the abandoned call is journaled', async () => {
  await stack.backend.call(
    {
      method: 'POST',
      path: '/admin/faults',
      body: { route: `GET /tenants/${stack.tenantSlug}/pacientes*`, latency_ms: 1000 },
    },
    z.unknown(),
  );
  const target = '/v1/pacientes?limit=7';
  const ts = String(Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', stack.creds.apiSecret).update(`${ts}.GET ${target}\n`).digest('hex');
  const gaveUp = await fetch(`${stack.gatewayUrl}${target}`, {
    headers: { 'x-api-key': stack.creds.apiKey, 'x-timestamp': ts, 'x-signature': signature },
    signal: AbortSignal.timeout(200),
  }).then(
    () => 'answered',
    (error: Error) => error.name,
  );
  expect(gaveUp).toBe('TimeoutError');

  const journaled = () => {
    stack.app.auditWriter.flush();
    return stack.gatewayDb.sqlite.prepare('SELECT client_ip FROM audit_log WHERE path = ?').get(target) as
      | { client_ip: string }
      | undefined;
  };
  const deadline = Date.now() + 15_000;
  while (!journaled() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  expect(journaled()).toEqual({ client_ip: expect.any(String) });
  expect((await stack.call({ method: 'GET', path: '/v1/ping' })).status).toBe(200);
});
