import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestStack, type TestStack } from '../../../helpers/stack.ts';

// Spec 02 § Health and configuration: GET/POST /v1/ping.
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => stack?.stop());

describe('GET /v1/ping', () => {
  test('200 data: ok, service, version v1, server_time, backend_called false, auth block, echo', async () => {
    const before = Date.now();
    const res = await stack.call({ path: '/v1/ping' });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d).toMatchObject({ ok: true, version: 'v1', backend_called: false, echo: { method: 'GET', body: null } });
    expect(typeof d.service).toBe('string');
    expect(Date.parse(d.server_time)).toBeGreaterThanOrEqual(before - 1000);
    expect(d.auth).toEqual({
      api_key_masked: expect.any(String),
      chave_id: stack.creds.chaveId,
      clinica: stack.tenantSlug,
      medico_id: 0, // 0 means unbound
      escopos: expect.arrayContaining(['pacientes:read', 'medicos:write']),
    });
    expect(d.auth.api_key_masked).not.toContain(stack.creds.apiKey.slice(12, -4));
  });

  test('auth.medico_id shows the doctor a key is bound to', async () => {
    const creds = await stack.newKey({ medicoId: 42, scopes: ['exames:read'] });
    const res = await stack.call({ path: '/v1/ping' }, creds);
    expect(res.body.data.auth.medico_id).toBe(42);
    expect(res.body.data.auth.escopos).toEqual(['exames:read']);
  });

  test('does not call the backend: answers 200 with backend-sim stopped', async () => {
    const s = await startTestStack();
    try {
      await s.backendSim!.close();
      const ping = await s.call({ path: '/v1/ping' });
      expect(ping.status).toBe(200);
      expect(ping.body.data.backend_called).toBe(false);
      const config = await s.call({ path: '/v1/config' });
      expect(config.status).toBe(503);
      expect(config.body.error.code).toBe('SERVICE_UNAVAILABLE');
    } finally {
      await s.stop();
    }
  });
});

describe('POST /v1/ping', () => {
  test('echo.method POST and echo.body redacted: senha, password, cpf, cns, rg, token, api_secret (case-insensitive, recursive)', async () => {
    const body = {
      SENHA: 's',
      Password: 'p',
      cpf: '52998224725',
      cns: '1',
      rg: { numero: '2' },
      token: ['t'],
      api_secret: 'x',
      nome: 'ana',
      email: 'a@b.c',
      nested: [{ Cpf: '1', ok: true }, { deeper: { TOKEN: 'y', keep: 3 } }],
    };
    const res = await stack.call({ method: 'POST', path: '/v1/ping', body });
    expect(res.status).toBe(200);
    expect(res.body.data.echo).toEqual({
      method: 'POST',
      body: {
        SENHA: '[REDACTED]',
        Password: '[REDACTED]',
        cpf: '[REDACTED]',
        cns: '[REDACTED]',
        rg: '[REDACTED]',
        token: '[REDACTED]',
        api_secret: '[REDACTED]',
        nome: 'ana',
        email: 'a@b.c', // only the ping list is masked in the echo
        nested: [{ Cpf: '[REDACTED]', ok: true }, { deeper: { TOKEN: '[REDACTED]', keep: 3 } }],
      },
    });
  });

  test('any JSON value is echoed (array, string, number, null)', async () => {
    for (const value of [[1, { senha: 'x' }], 'texto', 12, null]) {
      const res = await stack.call({ method: 'POST', path: '/v1/ping', body: JSON.stringify(value) });
      expect(res.status).toBe(200);
      expect(res.body.data.echo.body).toEqual(Array.isArray(value) ? [1, { senha: '[REDACTED]' }] : value);
    }
  });

  test('empty body is echoed as null (decision)', async () => {
    const res = await stack.call({ method: 'POST', path: '/v1/ping' });
    expect(res.status).toBe(200);
    expect(res.body.data.echo).toEqual({ method: 'POST', body: null });
  });

  test('2 KB is the limit: 2048 bytes pass, 2049 bytes give 413 VAL_INVALID_PARAM', async () => {
    const sized = (n: number) => {
      const base = '{"a":""}';
      return `{"a":"${'x'.repeat(n - base.length)}"}`;
    };
    expect(sized(2048)).toHaveLength(2048);
    expect((await stack.call({ method: 'POST', path: '/v1/ping', body: sized(2048) })).status).toBe(200);
    const res = await stack.call({ method: 'POST', path: '/v1/ping', body: sized(2049) });
    expect(res.status).toBe(413);
    expect(res.body.data).toBeNull();
    expect(res.body.error.code).toBe('VAL_INVALID_PARAM');
  });

  test('the 413 comes after authentication: an unsigned oversized body gets 401', async () => {
    const res = await stack.raw({
      method: 'POST',
      path: '/v1/ping',
      headers: { 'content-type': 'application/json' },
      body: `{"a":"${'x'.repeat(3000)}"}`,
    });
    expect(res.status).toBe(401);
  });
});
