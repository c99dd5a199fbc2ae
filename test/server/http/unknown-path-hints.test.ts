import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

/**
 * Issue 29: in development mode a 404 for an unknown /v1 path names the closest operations in `details.sugestoes`
 * (`METHOD /path` as in /docs), like a signature mistake names its fix. Production keeps the spec's answer,
 * 01-overview-auth-errors-limits.md § error codes: "`RES_NOT_FOUND` | 404 | nonexistent resource or hidden by
 * auto-filter (generic message, no details)".
 */

const GENERIC = { code: 'RES_NOT_FOUND', message: 'Endpoint nao encontrado.', details: null };

describe('development mode', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ APP_ENV: 'development' });
  });
  afterAll(async () => stack?.stop());

  test('GET /v1/patients (signed): 404 naming GET /v1/pacientes first, then the other operations on that path', async () => {
    const res = await stack.call({ path: '/v1/patients' });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('RES_NOT_FOUND');
    expect(res.body.error.message).toBe('Endpoint nao encontrado.');
    expect(res.body.error.details).toEqual({
      sugestoes: [
        'GET /v1/pacientes',
        'POST /v1/pacientes',
        'GET /v1/pacientes/{id}',
        'PATCH /v1/pacientes/{id}',
        'POST /v1/pacientes/unificar',
      ],
      ajuda: expect.stringContaining('APP_ENV=development'),
    });
  });

  test('unsigned too (no key is needed to be told where the endpoint is)', async () => {
    const res = await stack.raw({ method: 'POST', path: '/v1/pacientes/12/prontuario' });
    expect(res.status).toBe(404);
    expect(res.body.error.details.sugestoes[0]).toBe('POST /v1/pacientes/{id}/prontuarios');
    expect(res.body.error.details.sugestoes).toContain('GET /v1/pacientes/{id}/prontuarios');
  });

  test('a typo in a nested path, and a query string, are looked past', async () => {
    const res = await stack.call({ path: '/v1/exame/7/arquivo?tipo=laudo' });
    expect(res.status).toBe(404);
    expect(res.body.error.details.sugestoes[0]).toBe('GET /v1/exames/{id}/arquivo');
    const doctors = await stack.call({ path: '/v1/doctors/3' });
    expect(doctors.body.error.details.sugestoes[0]).toBe('GET /v1/medicos/{id}');
  });

  test('nothing close: an empty list (not the whole table), with the help text pointing to /docs', async () => {
    const res = await stack.call({ path: '/v1/zzzzzzzzzz/qqqqqqq' });
    expect(res.status).toBe(404);
    expect(res.body.error.details.sugestoes).toEqual([]);
    expect(res.body.error.details.ajuda).toContain('/docs');
  });

  test('bounded: a path of thousands of segments or one huge segment is answered 404 at once, with no suggestion', async () => {
    const deep = await stack.raw({ path: `/v1/${'pacientes/'.repeat(1500)}` });
    expect(deep.status).toBe(404);
    expect(deep.body.error.details.sugestoes).toEqual([]);
    const wide = await stack.raw({ path: `/v1/${'p'.repeat(8000)}` });
    expect(wide.status).toBe(404);
    expect(wide.body.error.details.sugestoes).toEqual([]);
  });

  test('outside /v1 and for a resource that does not exist, the 404 stays generic', async () => {
    expect((await stack.raw({ path: '/patients' })).body.error).toEqual(GENERIC);
    const missing = await stack.call({ path: '/v1/pacientes/99999999' });
    expect(missing.status).toBe(404);
    expect(missing.body.error.details).toBeNull();
  });
});

describe('production mode', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ APP_ENV: 'production' });
  });
  afterAll(async () => stack?.stop());

  test('GET /v1/patients: the spec’s generic 404, "generic message, no details"', async () => {
    const signed = await stack.call({ path: '/v1/patients' });
    expect(signed.status).toBe(404);
    expect(signed.body.error).toEqual(GENERIC);
    const unsigned = await stack.raw({ path: '/v1/pacientes/12/prontuario' });
    expect(unsigned.status).toBe(404);
    expect(unsigned.body.error).toEqual(GENERIC);
  });
});
