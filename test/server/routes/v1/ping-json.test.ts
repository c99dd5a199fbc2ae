import { describe, expect, test } from 'vitest';
import { pingData, pongJson, type PingAuth } from '../../../../server/routes/v1/ping.ts';
import { maskApiKey } from '../../../../server/keys/keys.service.ts';

// Decision S32-2: the ping's data is written by its own serializer; it must be the bytes JSON.stringify writes of
// the object the schema describes, for every value a caller can make it echo.
const auth: PingAuth = {
  apiKey: 'ck_live_0123456789abcdef0123456789abcdef',
  chaveId: 42,
  tenantSlug: 'clinica-"aspas"-\u00e7\u2028',
  medicoId: 7,
  scopes: ['pacientes:read', 'agenda:write'],
};

const reference = (a: PingAuth, serverTime: string, method: 'GET' | 'POST', body: unknown) =>
  JSON.stringify({
    ok: true,
    service: 'clinic-exams-gateway',
    version: 'v1',
    server_time: serverTime,
    backend_called: false,
    auth: {
      api_key_masked: maskApiKey(a.apiKey),
      chave_id: a.chaveId,
      clinica: a.tenantSlug,
      medico_id: a.medicoId,
      escopos: a.scopes,
    },
    echo: { method, body },
  });

describe('the ping serializer', () => {
  const bodies: unknown[] = [
    null,
    undefined,
    0,
    -1.5e300,
    'texto "com" \\ barras \n e \u0000 controle',
    [1, 'dois', { tres: [null, true] }],
    { teste: 'ola', senha: '[REDACTED]', aninhado: { a: [] }, '\u00e9': 'acento' },
  ];
  for (const [i, body] of bodies.entries()) {
    test(`writes what JSON.stringify writes (body ${i})`, () => {
      for (const method of ['GET', 'POST'] as const) {
        const json = pongJson(auth, '2026-12-02T19:00:00.000Z', method, body);
        expect(json).toBe(reference(auth, '2026-12-02T19:00:00.000Z', method, body));
        if (body !== undefined) expect(pingData.safeParse(JSON.parse(json)).success).toBe(true);
      }
    });
  }

  test('a key without scopes and other ids', () => {
    const other = { ...auth, chaveId: 1, medicoId: 0, scopes: [], tenantSlug: 'a' };
    expect(pongJson(other, 'x', 'GET', null)).toBe(reference(other, 'x', 'GET', null));
  });
});
