import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { ensureOperator } from '../../../server/operators/index.ts';
import { ConsoleClient } from './console-client.ts';
import { sign } from '../../helpers/signed-client.ts';
import { journalEntry } from '../../helpers/journal.ts';

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

describe('POST /admin/api/playground/send', () => {
  const send = (body: unknown, options?: { csrf?: string | null }) =>
    client.call('POST', '/admin/api/playground/send', body, options);

  it('relays the request the page signed to /v1 unchanged: authenticated, answered and journaled like an integrator’s', async () => {
    const key = await stack.newKey({ scopes: ['pacientes:read', 'pacientes:write'] });
    const ts = String(Math.floor(Date.now() / 1000));
    const target = '/v1/pacientes?limit=1&offset=0';
    const res = await send({
      method: 'GET',
      path: target,
      headers: {
        'x-api-key': key.apiKey,
        'x-timestamp': ts,
        'x-signature': sign(key.apiSecret, ts, 'GET', target, ''),
      },
    });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.data.status).toBe(200);
    const answer = JSON.parse(res.body.data.body);
    expect(answer.error).toBeNull();
    const headers = Object.fromEntries(res.body.data.headers as Array<[string, string]>);
    expect(headers['content-type']).toMatch(/application\/json/);
    expect(headers).not.toHaveProperty('set-cookie');

    const row = await journalEntry(stack, answer.meta.request_id);
    expect(row).toMatchObject({ source: 'api', chave_id: key.chaveId, path: target, status: 200, verified: 1 });
  });

  it('sends the raw body byte for byte (the signature covers it): a write with its Idempotency-Key is created, then replayed', async () => {
    const key = await stack.newKey({ scopes: ['pacientes:read', 'pacientes:write'] });
    const body = '{"nome":  "Paciente Do Playground", "data_nascimento":"1990-01-01","sexo":"FEM"}';
    const ts = String(Math.floor(Date.now() / 1000));
    const request = {
      method: 'POST',
      path: '/v1/pacientes',
      headers: {
        'x-api-key': key.apiKey,
        'x-timestamp': ts,
        'x-signature': sign(key.apiSecret, ts, 'POST', '/v1/pacientes', body),
        'idempotency-key': 'playground-relay-1',
        'content-type': 'application/json',
      },
      body,
    };
    const first = await send(request);
    expect(first.body.data.status).toBe(201);
    const again = await send(request);
    expect(again.body.data.status).toBe(201);
    expect(Object.fromEntries(again.body.data.headers)['idempotency-replay']).toBe('true');
    // A body changed after signing is refused by the gateway, not by the relay.
    const tampered = await send({
      ...request,
      body: body.replace('  ', ' '),
      headers: { ...request.headers, 'idempotency-key': 'playground-relay-2' },
    });
    expect(tampered.body.data.status).toBe(401);
    expect(JSON.parse(tampered.body.data.body).error.code).toBe('AUTH_INVALID_SIGNATURE');
  });

  it('only the public API, only the spec’s headers; a session and the CSRF token are required', async () => {
    const headers = { 'x-api-key': 'k', 'x-timestamp': '1', 'x-signature': 's' };
    expect((await send({ method: 'GET', path: '/admin/api/tenants', headers })).status).toBe(400);
    expect((await send({ method: 'GET', path: '/v1x', headers })).status).toBe(400);
    expect(
      (await send({ method: 'GET', path: '/v1/ping', headers: { ...headers, cookie: 'ce_console_session=x' } })).status,
    ).toBe(400);
    expect((await send({ method: 'GET', path: '/v1/ping', headers }, { csrf: null })).status).toBe(403);
    const anonymous = await client.call(
      'POST',
      '/admin/api/playground/send',
      { method: 'GET', path: '/v1/ping', headers },
      { cookie: null, csrf: null },
    );
    expect(anonymous.status).toBe(401);
  });
});
