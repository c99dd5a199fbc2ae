import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { rawRequest, signedRequest } from '../../helpers/signed-client.ts';
import { loadConfig } from '../../../server/config.ts';
import { openGatewayServices } from '../../../appliance/stack.ts';
import { buildApp } from '../../../server/app.ts';
import { ApiError } from '../../../server/errors.ts';
import { EXAME_BLOCKED_FIELDS } from '../../../contracts/schemas/exames.ts';

// Spec 01 § Response envelope, § Request headers, § Response headers, § Errors.
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => stack?.stop());

/** Every response except the 302 redirects: envelope + the standard headers. */
function expectEnvelope(
  res: { status: number; body: any; headers: Record<string, string> },
  opts: { error?: string; cache?: string } = {},
) {
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(Object.keys(res.body).sort()).toEqual(['data', 'error', 'meta']);
  expect(res.body.meta.request_id).toMatch(/^[0-9a-f]{16,}$/);
  expect(Number.isInteger(res.body.meta.duracao_ms)).toBe(true);
  expect(res.headers['x-api-version']).toBe('v1');
  expect(res.headers['x-api-release']).toMatch(/^\d+\.\d+\.\d+$/);
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['cache-control']).toBe(opts.cache ?? 'no-store');
  if (opts.error) {
    expect(res.body.data).toBeNull();
    expect(res.body.error.code).toBe(opts.error);
    expect(res.body.error.message).toMatch(/^[\x20-\x7e]+$/); // Portuguese without special accents
    expect(res.body.error).toHaveProperty('details');
  } else {
    expect(res.body.error).toBeNull();
  }
}

describe('envelope and headers on every kind of response', () => {
  test('200 success', async () => expectEnvelope(await stack.call({ path: '/v1/ping' })));
  test('200 config carries Cache-Control: private, max-age=300', async () =>
    expectEnvelope(await stack.call({ path: '/v1/config' }), { cache: 'private, max-age=300' }));
  test('401 authentication failure', async () =>
    expectEnvelope(await stack.raw({ path: '/v1/ping' }), { error: 'AUTH_MISSING_HEADER' }));
  test('404 unknown route under /v1', async () => {
    const res = await stack.call({ path: '/v1/nao-existe' });
    expectEnvelope(res, { error: 'RES_NOT_FOUND' });
    expect(res.status).toBe(404);
  });
  test('404 unknown route outside /v1', async () => {
    const res = await stack.raw({ path: '/wp-admin/../etc/passwd' });
    expect(res.status).toBe(404);
    expectEnvelope(res, { error: 'RES_NOT_FOUND' });
  });
  test('405 METHOD_NOT_ALLOWED: wrong verb on a known path, with Allow', async () => {
    for (const method of ['DELETE', 'PUT', 'PATCH']) {
      const res = await stack.raw({ method, path: '/v1/ping' });
      expect(res.status).toBe(405);
      expectEnvelope(res, { error: 'METHOD_NOT_ALLOWED' });
      expect(res.headers.allow).toBe('GET, POST');
    }
    const config = await stack.raw({ method: 'POST', path: '/v1/config' });
    expect(config.status).toBe(405);
    expectEnvelope(config, { error: 'METHOD_NOT_ALLOWED' });
  });
  test('405 on HEAD (no implicit HEAD routes)', async () => {
    const res = await stack.raw({ method: 'HEAD', path: '/v1/ping' });
    expect(res.status).toBe(405);
  });
  test('400 malformed JSON body', async () => {
    const res = await stack.call({ method: 'POST', path: '/v1/ping', body: '{"a": 1,' });
    expect(res.status).toBe(400);
    expectEnvelope(res, { error: 'VAL_INVALID_PARAM' });
    expect(res.body.error.details.field).toBe('body');
  });
  test('400 wrong content type', async () => {
    const res = await stack.call({
      method: 'POST',
      path: '/v1/ping',
      body: 'a=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(400);
    expectEnvelope(res, { error: 'VAL_INVALID_PARAM' });
    expect(res.body.error.details.field).toBe('Content-Type');
  });
  test('400 body without any content type', async () => {
    const res = await stack.call({ method: 'POST', path: '/v1/ping', body: '{}', headers: { 'content-type': '' } });
    expect(res.status).toBe(400);
    expectEnvelope(res, { error: 'VAL_INVALID_PARAM' });
  });
  test('400 unknown query parameter (whitelist violation)', async () => {
    const res = await stack.call({ path: '/v1/ping?debug=1' });
    expect(res.status).toBe(400);
    expectEnvelope(res, { error: 'VAL_INVALID_PARAM' });
    expect(res.body.error.details.field).toBe('debug');
  });
  test('413 oversized body above the gateway-wide limit (64 MiB), before any parsing', async () => {
    const huge = Buffer.alloc(64 * 1024 * 1024 + 10, 0x20);
    const res = await rawRequest(stack.gatewayUrl, {
      method: 'POST',
      path: '/v1/ping',
      headers: { 'content-type': 'application/json' },
      body: huge,
    });
    expect(res.status).toBe(413);
    expectEnvelope(res, { error: 'VAL_INVALID_PARAM' });
  });
  test('X-Request-Id on writes equals meta.request_id; absent on reads', async () => {
    const write = await stack.call({ method: 'POST', path: '/v1/ping', body: {} });
    expect(write.headers['x-request-id']).toBe(write.body.meta.request_id);
    const read = await stack.call({ path: '/v1/ping' });
    expect(read.headers['x-request-id']).toBeUndefined();
  });
  test('request ids are unique per request', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) ids.add((await stack.call({ path: '/v1/ping' })).body.meta.request_id);
    expect(ids.size).toBe(20);
  });
});

describe('strict ids, limit and offset (spec 01 § Pagination, spec 02 § Endpoints)', () => {
  const bad = [
    'limit=0',
    'limit=201',
    'limit=abc',
    'limit=1.5',
    'limit=1e2',
    'limit=-1',
    'limit=+5',
    'limit=',
    'offset=-1',
    'offset=x',
    'offset=1.0',
    'limit=10&limit=20',
  ];
  for (const query of bad) {
    test(`GET /v1/pacientes?${query} → 400 VAL_INVALID_PARAM naming the field`, async () => {
      const res = await stack.call({ path: `/v1/pacientes?${query}` });
      expect(res.status).toBe(400);
      expectEnvelope(res, { error: 'VAL_INVALID_PARAM' });
      expect(res.body.error.details.field).toBe(query.split('=')[0]);
    });
  }
  test('defaults: limit 50, offset 0; meta has limit, offset, total, has_more', async () => {
    const res = await stack.call({ path: '/v1/pacientes' });
    expect(res.status).toBe(200);
    expect(res.body.meta).toMatchObject({ limit: 50, offset: 0, has_more: false });
    expect(Number.isInteger(res.body.meta.total)).toBe(true);
  });
  test('limit=200 and offset=0 are the edges that pass', async () => {
    expect((await stack.call({ path: '/v1/pacientes?limit=200&offset=0' })).status).toBe(200);
  });
  for (const id of ['0', '-1', 'abc', '1.5', '01', '1e3', '99999999999999999999']) {
    test(`path id ${id} → 400 VAL_INVALID_PARAM (not a positive integer)`, async () => {
      const res = await stack.call({ path: `/v1/pacientes/${id}` });
      expect(res.status).toBe(400);
      expectEnvelope(res, { error: 'VAL_INVALID_PARAM' });
      expect(res.body.error.details.field).toBe('id');
    });
  }
});

test('500 for a true internal fault: generic message, no stack trace or internal detail', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-500-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', BACKEND_URL: 'http://127.0.0.1:9' });
  const services = await openGatewayServices(config);
  const app = await buildApp(config, {
    database: services.gatewayDb,
    keys: services.keys,
    tenants: services.tenants,
    backend: services.backend,
  });
  // A route that fails the way a bug would: a plain Error carrying internals.
  app.get('/v1/falha-interna', { config: { public: true } }, async () => {
    throw new Error('SQLITE_CORRUPT at /var/lib/secret/path.db: SELECT * FROM api_keys');
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    const port = (app.server.address() as { port: number }).port;
    const res = await rawRequest(`http://127.0.0.1:${port}`, { path: '/v1/falha-interna' });
    expect(res.status).toBe(500);
    expectEnvelope(res, { error: 'INTERNAL_ERROR' });
    expect(res.text).not.toMatch(/SQLITE|secret|api_keys|at .*\.ts|stack/i);
  } finally {
    await app.close();
    await services.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('ApiError carries its spec status from the one table', () => {
  expect(new ApiError('CONCURRENT_REQUEST', 'x').status).toBe(409);
  expect(new ApiError('AUTH_INSUFFICIENT_SCOPE', 'x').status).toBe(403);
  expect(new ApiError('SERVICE_TIMEOUT', 'x').status).toBe(504);
});

test('signed requests work with a percent-encoded query signed exactly as sent', async () => {
  const res = await signedRequest(stack.gatewayUrl, stack.creds, { path: '/v1/pacientes?nome=JO%C3%83O' });
  expect(res.status).toBe(200);
});

test('an out-of-enum value returns 400 with the accepted values (spec 02 § Capabilities)', async () => {
  const res = await stack.call({ path: '/v1/pacientes?ativo=2' });
  expect(res.status).toBe(400);
  expect(res.body.error.details.field).toBe('ativo');
  expect(res.body.error.details.lista[0].valores_aceitos).toEqual(['0', '1']);
});

test('errors are never cacheable, even on a route whose success is (config)', async () => {
  const res = await stack.call({ path: '/v1/config?x=1' });
  expect(res.status).toBe(400);
  expect(res.headers['cache-control']).toBe('no-store');
});

describe('requests refused before routing still get the envelope and headers', () => {
  test('an undecodable URL (/v1/%zz) → 400 VAL_INVALID_PARAM', async () => {
    const res = await stack.raw({ path: '/v1/pacientes/%zz' });
    expect(res.status).toBe(400);
    expectEnvelope(res, { error: 'VAL_INVALID_PARAM' });
    expect(res.body.error.details.field).toBe('path');
  });
  test('headers over the HTTP parser limit → 431 in the envelope', async () => {
    const res = await stack.raw({ path: '/v1/ping', headers: { 'x-api-key': 'a'.repeat(20_000) } });
    expect(res.status).toBe(431);
    expectEnvelope(res, { error: 'VAL_INVALID_PARAM' });
  });
  test('a trailing slash or a doubled slash is another path: 404 in the envelope', async () => {
    for (const path of ['/v1/ping/', '//v1/ping']) {
      const res = await stack.raw({ path });
      expect(res.status).toBe(404);
      expectEnvelope(res, { error: 'RES_NOT_FOUND' });
    }
  });
  test('/ redirects to the console; unknown console API paths answer 404 in the envelope', async () => {
    const root = await stack.raw({ path: '/' });
    expect(root.status).toBe(302);
    expect(root.headers.location).toBe('/console/');
    expect(root.headers['x-api-version']).toBe('v1');
    const admin = await stack.raw({ path: '/admin/api/nao-existe' });
    expect(admin.status).toBe(404);
    expectEnvelope(admin, { error: 'RES_NOT_FOUND' });
  });
  test('a JSON body that is not an object on a write → 400, never 500', async () => {
    for (const body of ['[1,2]', 'null', '"texto"', '42']) {
      const res = await stack.call({
        method: 'POST',
        path: '/v1/pacientes',
        body,
        idempotencyKey: `corpo-${body.length}-${Math.random().toString(36).slice(2)}`,
      });
      expect(res.status).toBe(400);
      expectEnvelope(res, { error: 'VAL_INVALID_PARAM' });
    }
  });
});

/**
 * Issue 21 § 4: an unknown query parameter or body field names the ones accepted there (`campos_aceitos`, and
 * the message), and the nearest one when it looks like a typo; one item per unknown name.
 */
describe('unknown query parameters and body fields list the accepted names', () => {
  const unknownItem = (res: { status: number; body: any; headers: Record<string, string> }, field: string) => {
    expect(res.status).toBe(400);
    expectEnvelope(res, { error: 'VAL_INVALID_PARAM' });
    const item = res.body.error.details.lista.find((i: { field: string }) => i.field === field);
    expect(item, JSON.stringify(res.body.error)).toBeDefined();
    return item as { field: string; msg: string; campos_aceitos: string[] };
  };

  test('GET /v1/pacientes?name=x: the query parameters of the list, and "nome" suggested', async () => {
    const res = await stack.call({ path: '/v1/pacientes?name=x' });
    const item = unknownItem(res, 'name');
    expect(item.campos_aceitos).toEqual(expect.arrayContaining(['nome', 'cpf', 'limit', 'offset']));
    expect(item.campos_aceitos).not.toContain('name');
    expect(item.msg).toBe(
      `Parametro de query nao aceito neste endpoint. Aceitos: ${item.campos_aceitos.join(', ')}. Voce quis dizer "nome"?`,
    );
    expect(res.body.error.message).toBe(`Parametro invalido: name. ${item.msg}`);
  });

  test('two unknown parameters: one item each, each naming its own field', async () => {
    const res = await stack.call({ path: '/v1/pacientes?name=x&foo=1' });
    expect(res.body.error.message).toBe('2 campos precisam de atencao.');
    expect(res.body.error.details.lista.map((i: { field: string }) => i.field)).toEqual(['name', 'foo']);
    expect(unknownItem(res, 'foo').msg).not.toMatch(/Voce quis dizer/);
  });

  test('an operation without query parameters says so', async () => {
    const item = unknownItem(await stack.call({ path: '/v1/ping?debug=1' }), 'debug');
    expect(item).toMatchObject({ msg: 'Este endpoint nao aceita parametros de query.', campos_aceitos: [] });
  });

  test('an unknown body field lists the fields of the body, a nested one those of its object', async () => {
    const top = unknownItem(
      await stack.call({
        method: 'POST',
        path: '/v1/pacientes',
        body: { nome: 'Maria da Silva', nomee: 'x' },
        idempotencyKey: `campos-${Date.now()}`,
      }),
      'nomee',
    );
    expect(top.campos_aceitos).toEqual(expect.arrayContaining(['nome', 'cpf', 'data_nascimento']));
    expect(top.msg).toMatch(/^Campo nao aceito neste endpoint\. Aceitos: nome, .*\. Voce quis dizer "nome"\?$/);
    const nested = unknownItem(
      await stack.call({
        method: 'POST',
        path: '/v1/pacientes/1/prontuarios',
        body: { mensagem: 'x', anexos: [{ nome: 'a.pdf', base64: 'JVBERi0=', extra: 1 }] },
        idempotencyKey: `campos-aninhados-${Date.now()}`,
      }),
      'anexos.0.extra',
    );
    expect(nested.campos_aceitos).toEqual(expect.arrayContaining(['nome', 'base64']));
    expect(nested.campos_aceitos).not.toContain('mensagem');
    expect(nested.msg).toMatch(/Aceitos em anexos\.0: /);
  });

  test('blocked fields are not offered, and keep their own reason', async () => {
    const res = await stack.call({
      method: 'POST',
      path: '/v1/exames',
      body: { exame_bloqueado: 1, foo: 2 },
      idempotencyKey: `bloqueados-${Date.now()}`,
    });
    const foo = unknownItem(res, 'foo');
    expect(foo.campos_aceitos).toEqual(expect.arrayContaining(['paciente_id', 'procedimento_id']));
    for (const blocked of EXAME_BLOCKED_FIELDS) expect(foo.campos_aceitos).not.toContain(blocked);
    const blocked = unknownItem(res, 'exame_bloqueado');
    expect(blocked).toEqual({ field: 'exame_bloqueado', msg: 'Campo bloqueado: nao pode ser enviado pela API.' });
  });
});
