import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { Scrape } from '../../helpers/prometheus.ts';

/**
 * Issue 33 § Done when: a fake upstream (a node:http server in this test) answers what a test sets; the contract guard
 * in front of it reports each departure from the contract under the operation and rule, or maps a failure to 503/504.
 */

const UPSTREAM_KEY = 'ck_live_upstreamkeyforthefakeupstream01';
const UPSTREAM_SECRET = 'upstream-secret-Zq8WvK3mN7pR2sT6uY1x';

type Answer = { status: number; headers?: Record<string, string>; body?: string; hang?: boolean };
let next: Answer = { status: 200 };
let seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string } | null = null;
let upstream: http.Server;
let stack: TestStack;

const envelope = (data: unknown, meta: Record<string, unknown> = {}) =>
  JSON.stringify({ data, meta: { request_id: 'abc123', duracao_ms: 1, ...meta }, error: null });
const errorEnvelope = (code: string, data: unknown = null) =>
  JSON.stringify({ data, meta: { request_id: 'abc123', duracao_ms: 1 }, error: { code, message: 'x', details: null } });
const JSON_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'x-api-version': 'v1',
  'cache-control': 'no-store',
};
const WRITE_HEADERS = { ...JSON_HEADERS, 'x-request-id': 'abc123', 'idempotency-replay': 'false' };
const PING = {
  ok: true,
  service: 'clinic-exams-gateway',
  version: 'v1',
  server_time: '2026-12-02T00:00:00.000Z',
  backend_called: false,
  auth: { api_key_masked: 'ck_live_…', chave_id: 1, clinica: 'x', medico_id: 0, escopos: [] },
  echo: { method: 'GET', body: null },
};
const PACIENTE = { id: 7, nome: 'Maria' };

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      seen = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() };
      if (next.hang) return; // never answers
      res.writeHead(next.status, next.headers ?? {});
      res.end(next.body ?? '');
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  stack = await startTestStack({
    PROXY_MODE: 'resign',
    UPSTREAM_URL: url,
    UPSTREAM_API_KEY: UPSTREAM_KEY,
    UPSTREAM_API_SECRET: UPSTREAM_SECRET,
    UPSTREAM_TIMEOUT_MS: '400',
    LOG_LEVEL: 'info',
  });
});
afterAll(async () => {
  await stack?.stop();
  upstream?.closeAllConnections();
  await new Promise((resolve) => upstream?.close(resolve));
});

async function violationsOf(requestId: string): Promise<Array<{ operation: string; rule: string; seen: string }>> {
  stack.app.auditWriter.flush();
  const row = await stack.database.db
    .selectFrom('audit_log' as never)
    .select(['detail' as never])
    .where('request_id' as never, '=', requestId as never)
    .executeTakeFirst();
  const detail = (row as { detail: string | null } | undefined)?.detail;
  return detail ? (JSON.parse(detail).contract_violations ?? []) : [];
}

const requestIdOf = (res: { headers: Record<string, string>; body: any }) => res.body?.meta?.request_id as string;

test('re-sign: the upstream gets the same bytes signed with its key and a fresh timestamp; a conforming answer has no violations', async () => {
  next = { status: 200, headers: JSON_HEADERS, body: envelope(PING) };
  const res = await stack.call({ path: '/v1/ping' });
  expect(res.status).toBe(200);
  expect(res.text).toBe(envelope(PING));
  expect(seen!.url).toBe('/v1/ping');
  expect(seen!.headers['x-api-key']).toBe(UPSTREAM_KEY);
  expect(seen!.headers['accept-encoding']).toBe('identity');
  const { createHmac } = await import('node:crypto');
  const ts = seen!.headers['x-timestamp'] as string;
  expect(Math.abs(Number(ts) - Date.now() / 1000)).toBeLessThan(5);
  expect(seen!.headers['x-signature']).toBe(
    createHmac('sha256', UPSTREAM_SECRET).update(`${ts}.GET /v1/ping\n`).digest('hex'),
  );
  // The proxy's own journal entry: the upstream's id is noted; nothing violated.
  stack.app.auditWriter.flush();
  const rows = await stack.database.db
    .selectFrom('audit_log' as never)
    .selectAll()
    .execute();
  const entry = (rows as any[]).find((r) => r.path === '/v1/ping');
  expect(entry.status).toBe(200);
  expect(JSON.parse(entry.detail)).toEqual({
    proxy: { mode: 'resign', upstream_status: 200, upstream_request_id: 'abc123' },
  });
});

test('a write body is forwarded byte for byte and signed as sent', async () => {
  next = {
    status: 201,
    headers: { ...WRITE_HEADERS, location: '/v1/pacientes/7' },
    body: envelope(PACIENTE, { idempotent_replay: false }),
  };
  const body = '{"nome":"Maria",  "data_nascimento":"1985-03-14","sexo":"FEM"}';
  const res = await stack.call({ method: 'POST', path: '/v1/pacientes', body, idempotencyKey: 'k-1' });
  expect(res.status).toBe(201);
  expect(seen!.body).toBe(body);
  expect(seen!.headers['idempotency-key']).toBe('k-1');
  expect(res.headers.location).toBe('/v1/pacientes/7');
});

const cases: Array<{
  name: string;
  call: Parameters<TestStack['call']>[0];
  answer: Answer;
  operation: string;
  rule: string;
}> = [
  {
    name: 'a missing X-Api-Version',
    call: { path: '/v1/ping' },
    answer: {
      status: 200,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
      body: envelope(PING),
    },
    operation: 'getPing',
    rule: 'responses.200.headers.X-Api-Version',
  },
  {
    name: 'a wrong type in data',
    call: { path: '/v1/pacientes/7' },
    answer: { status: 200, headers: JSON_HEADERS, body: envelope({ id: '7', nome: 'Maria' }) },
    operation: 'getPacientesById',
    rule: 'responses.200.data.id',
  },
  {
    name: 'an unknown error code',
    call: { path: '/v1/pacientes/7' },
    answer: { status: 404, headers: JSON_HEADERS, body: errorEnvelope('PACIENTE_SUMIU') },
    operation: 'getPacientesById',
    rule: 'responses.404.error.code',
  },
  {
    name: 'a 201 without Location',
    call: {
      method: 'POST',
      path: '/v1/pacientes',
      body: { nome: 'Maria', data_nascimento: '1985-03-14', sexo: 'FEM' },
      idempotencyKey: 'k-2',
    },
    answer: { status: 201, headers: WRITE_HEADERS, body: envelope(PACIENTE, { idempotent_replay: false }) },
    operation: 'postPacientes',
    rule: 'responses.201.headers.Location',
  },
  {
    name: 'an error envelope with data',
    call: { path: '/v1/pacientes/7' },
    answer: { status: 404, headers: JSON_HEADERS, body: errorEnvelope('RES_NOT_FOUND', { id: 7 }) },
    operation: 'getPacientesById',
    rule: 'responses.404.data',
  },
  {
    name: 'a status the operation does not answer',
    call: { path: '/v1/ping' },
    answer: { status: 202, headers: JSON_HEADERS, body: envelope(PING) },
    operation: 'getPing',
    rule: 'responses.status',
  },
  {
    name: 'a list without its pagination meta',
    call: { path: '/v1/convenios' },
    answer: { status: 200, headers: { ...JSON_HEADERS, 'cache-control': 'private, max-age=300' }, body: envelope([]) },
    operation: 'getConvenios',
    rule: 'responses.200.meta.version',
  },
];

for (const c of cases) {
  test(`reported: ${c.name} (${c.operation} ${c.rule})`, async () => {
    next = c.answer;
    const res = await stack.call(c.call);
    // Forwarded as it came: the guard observes.
    expect(res.status).toBe(c.answer.status);
    expect(res.text).toBe(c.answer.body);
    const violations = await violationsOf(res.headers['x-request-id'] ?? requestIdOf(res) ?? '');
    const proxyId = await lastEntryId();
    const found = violations.length > 0 ? violations : await violationsOf(proxyId);
    expect(found).toContainEqual(expect.objectContaining({ operation: c.operation, rule: c.rule }));
    const metrics = new Scrape(await stack.app.metrics.scrape());
    expect(
      metrics.value('gateway_contract_violations_total', { operation: c.operation, rule: c.rule }),
    ).toBeGreaterThan(0);
  });
}

async function lastEntryId(): Promise<string> {
  stack.app.auditWriter.flush();
  const rows = (await stack.database.db
    .selectFrom('audit_log' as never)
    .selectAll()
    .execute()) as any[];
  return rows.sort((a, b) => a.id - b.id).at(-1).request_id;
}

test('a request outside the contract is reported under request.… and still forwarded (not --strict)', async () => {
  next = {
    status: 200,
    headers: JSON_HEADERS,
    body: envelope([], { limit: 10, offset: 0, total: 0, has_more: false }),
  };
  const res = await stack.call({ path: '/v1/pacientes?limite=5' });
  expect(res.status).toBe(200);
  expect(seen!.url).toBe('/v1/pacientes?limite=5');
  const violations = await violationsOf(await lastEntryId());
  expect(violations).toContainEqual(
    expect.objectContaining({ operation: 'getPacientes', rule: 'request.query.additionalProperties' }),
  );
});

test('a 302 is forwarded as it is, its Location untouched', async () => {
  const location = 'http://storage.example/bucket/exame.pdf?X-Amz-Signature=abc';
  next = { status: 302, headers: { 'x-api-version': 'v1', 'cache-control': 'no-store', location } };
  const res = await stack.call({ path: '/v1/exames/7/arquivo?tipo=exame' });
  expect(res.status).toBe(302);
  expect(res.headers.location).toBe(location);
  expect(await violationsOf(await lastEntryId())).toEqual([]);
});

test('a non-JSON answer is a 503 SERVICE_UNAVAILABLE, journaled as an upstream fault', async () => {
  next = { status: 200, headers: { 'content-type': 'text/html' }, body: '<html>proxy error</html>' };
  const res = await stack.call({ path: '/v1/ping' });
  expect(res.status).toBe(503);
  expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
  stack.app.auditWriter.flush();
  const rows = (await stack.database.db
    .selectFrom('audit_log' as never)
    .selectAll()
    .execute()) as any[];
  const entry = rows.find((r) => r.request_id === res.body.meta.request_id);
  expect(JSON.parse(entry.detail).upstream_fault.kind).toBe('invalid_json');
  expect(JSON.parse(entry.detail).contract_violations).toBeUndefined();
});

test('an upstream that hangs past UPSTREAM_TIMEOUT_MS is a 504 SERVICE_TIMEOUT', async () => {
  next = { status: 200, hang: true };
  const res = await stack.call({ path: '/v1/ping' });
  expect(res.status).toBe(504);
  expect(res.body.error.code).toBe('SERVICE_TIMEOUT');
  stack.app.auditWriter.flush();
  const rows = (await stack.database.db
    .selectFrom('audit_log' as never)
    .selectAll()
    .execute()) as any[];
  const entry = rows.find((r) => r.request_id === res.body.meta.request_id);
  expect(JSON.parse(entry.detail).upstream_fault.kind).toBe('timeout');
});

test('a refused connection is a 503 SERVICE_UNAVAILABLE', async () => {
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const saved = stack.app.log;
  expect(saved).toBeDefined();
  // A second guard, pointed at a port nothing listens on.
  const other = await startTestStack({
    PROXY_MODE: 'resign',
    UPSTREAM_URL: `http://127.0.0.1:${port}`,
    UPSTREAM_API_KEY: UPSTREAM_KEY,
    UPSTREAM_API_SECRET: UPSTREAM_SECRET,
  });
  try {
    const res = await other.call({ path: '/v1/ping' });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
  } finally {
    await other.stop();
  }
});

test('GET /admin/api/contract (console session) and /automation/contract (operator token) answer the same report', async () => {
  const { ensureOperator } = await import('../../../server/operators/index.ts');
  const { ConsoleClient } = await import('../admin/console-client.ts');
  const { contractReport } = await import('../../../contracts/admin/contract.ts');
  await ensureOperator(stack.database.db, 'guarda', 'correct-horse-battery', 'admin');
  const client = new ConsoleClient(stack.gatewayUrl);
  expect((await client.login('guarda', 'correct-horse-battery')).status).toBe(200);
  const res = await client.call('GET', '/admin/api/contract');
  expect(res.status).toBe(200);
  const report = contractReport.parse(res.body.data);
  expect(report.proxy).toEqual({
    mode: 'resign',
    upstream: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    strict: false,
  });
  const location = report.violations.find((v) => v.rule === 'responses.201.headers.Location');
  expect(location).toMatchObject({ operation: 'postPacientes', count: 1, last_value: 'absent' });
  expect(report.total).toBe(report.violations.reduce((sum, v) => sum + v.count, 0));
  // The journal entry the row links to has the violation.
  expect(await violationsOf(location!.last_request_id)).toContainEqual(
    expect.objectContaining({ rule: 'responses.201.headers.Location' }),
  );
  const issued = (await client.call('POST', '/admin/api/operator-tokens', { label: 'ci', tenants: ['clinica-teste'] }))
    .body.data;
  const { request } = await import('undici');
  const viaToken = await request(`${stack.gatewayUrl}/admin/api/automation/contract`, {
    headers: { authorization: `Bearer ${issued.token}` },
  });
  expect(viaToken.statusCode).toBe(200);
  expect(((await viaToken.body.json()) as any).data).toEqual(res.body.data);
});

test('--strict: a request outside the contract gets the contract 400 and is not forwarded; reported all the same', async () => {
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const strict = await startTestStack({
    PROXY_MODE: 'resign',
    PROXY_STRICT: 'true',
    UPSTREAM_URL: url,
    UPSTREAM_API_KEY: UPSTREAM_KEY,
    UPSTREAM_API_SECRET: UPSTREAM_SECRET,
  });
  try {
    seen = null;
    const noKey = await strict.call({
      method: 'POST',
      path: '/v1/pacientes',
      body: { nome: 'Maria', data_nascimento: '1985-03-14', sexo: 'FEM' },
    });
    expect(noKey.status).toBe(400);
    expect(noKey.body.error).toMatchObject({ code: 'VAL_INVALID_PARAM', details: { field: 'Idempotency-Key' } });
    const wrongType = await strict.call({
      method: 'POST',
      path: '/v1/pacientes',
      body: { nome: 7 },
      idempotencyKey: 'k-s',
    });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error.details.lista.map((i: any) => i.field)).toContain('request.body.nome');
    expect(seen).toBeNull();
    await strict.app.contractStore.flush();
    const rows = await strict.database.db.selectFrom('contract_violations').selectAll().execute();
    expect(rows.map((r) => r.rule)).toEqual(
      expect.arrayContaining(['request.headers.Idempotency-Key', 'request.body.nome']),
    );
    // What was seen is described, never quoted.
    expect(JSON.stringify(rows)).not.toContain('Maria');
  } finally {
    await strict.stop();
  }
});

test('pass-through: every header and byte as the caller sent them; the missing signature is reported, not refused', async () => {
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const pass = await startTestStack({ PROXY_MODE: 'pass-through', UPSTREAM_URL: url });
  try {
    next = { status: 200, headers: JSON_HEADERS, body: envelope(PING) };
    const res = await pass.call(
      { path: '/v1/ping', headers: { 'x-custom': 'kept' } },
      { apiKey: UPSTREAM_KEY, apiSecret: UPSTREAM_SECRET },
    );
    expect(res.status).toBe(200);
    expect(seen!.headers['x-api-key']).toBe(UPSTREAM_KEY);
    expect(seen!.headers['x-custom']).toBe('kept');
    const { createHmac } = await import('node:crypto');
    const ts = seen!.headers['x-timestamp'] as string;
    expect(seen!.headers['x-signature']).toBe(
      createHmac('sha256', UPSTREAM_SECRET).update(`${ts}.GET /v1/ping\n`).digest('hex'),
    );
    const unsigned = await pass.raw({ path: '/v1/ping' });
    expect(unsigned.status).toBe(200);
    await pass.app.contractStore.flush();
    const rows = await pass.database.db.selectFrom('contract_violations').selectAll().execute();
    expect(rows.map((r) => r.rule).sort()).toEqual([
      'request.headers.X-API-Key',
      'request.headers.X-Signature',
      'request.headers.X-Timestamp',
    ]);
  } finally {
    await pass.stop();
  }
});

test('a TLS failure (an upstream whose certificate is not trusted) is a 503, journaled as a tls fault', async () => {
  const { execFileSync } = await import('node:child_process');
  const { mkdtempSync, readFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const path = await import('node:path');
  const https = await import('node:https');
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-proxy-tls-'));
  const [key, cert] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  const server = https.createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_req, res) => res.end('{}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const guard = await startTestStack({
    PROXY_MODE: 'resign',
    UPSTREAM_URL: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    UPSTREAM_API_KEY: UPSTREAM_KEY,
    UPSTREAM_API_SECRET: UPSTREAM_SECRET,
  });
  try {
    const res = await guard.call({ path: '/v1/ping' });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(res.headers['retry-after']).toBeDefined();
    expect(res.text).not.toContain(UPSTREAM_SECRET);
    guard.app.auditWriter.flush();
    const rows = (await guard.database.db
      .selectFrom('audit_log' as never)
      .selectAll()
      .execute()) as any[];
    const entry = rows.find((r) => r.request_id === res.body.meta.request_id);
    expect(JSON.parse(entry.detail).upstream_fault.kind).toBe('tls');
    // The guard's own document is the contract's, in proxy mode too.
    const doc = await guard.raw({ path: '/openapi.json' });
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.paths)).toContain('/v1/pacientes/{id}');
  } finally {
    await guard.stop();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  }
});
