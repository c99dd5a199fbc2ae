import net from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { MAX_JSON_DEPTH } from '../../../server/http/json-depth.ts';
import { unattributedCount, unattributedGroups } from '../../helpers/journal.ts';

/**
 * Issue 12: every answered request is audited, whatever its shape. Each case reads the request id
 * the client was given and finds that very row in the audit log, or, for a request that names no
 * existing key (issue 19), the unattributed group that counted it, its sample being that request.
 */

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => stack?.stop());

const rowOf = (requestId: string) => {
  stack.app.auditWriter.flush();
  return stack.gatewayDb.sqlite.prepare('SELECT * FROM audit_log WHERE request_id = ?').get(requestId) as
    | Record<string, any>
    | undefined;
};

/** Raw bytes on a socket (what no HTTP client library would send); returns the raw answer. */
function rawExchange(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const url = new URL(stack.gatewayUrl);
    const socket = net.connect(Number(url.port), url.hostname, () => socket.write(bytes));
    let out = '';
    socket.on('data', (d) => (out += d));
    socket.on('end', () => resolve(out));
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
  });
}

const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

test(`JSON nested 10,000 levels, signed: 400 VAL_INVALID_PARAM (max depth ${MAX_JSON_DEPTH}) and audited`, async () => {
  const res = await stack.call({ method: 'POST', path: '/v1/ping', body: `{"a":${nested(10_000)}}`.slice(0, 2048) });
  // Within ping's 2 KB: ~1000 levels.
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('VAL_INVALID_PARAM');
  expect(res.body.error.details).toMatchObject({ field: 'body', profundidade_maxima: MAX_JSON_DEPTH });
  expect(rowOf(res.body.meta.request_id)).toMatchObject({ status: 400, error_code: 'VAL_INVALID_PARAM' });

  const deep = await stack.call({
    method: 'POST',
    path: '/v1/pacientes',
    body: `{"nome":${nested(10_000)}}`,
    idempotencyKey: randomUUID(),
  });
  expect(deep.status).toBe(400);
  expect(deep.body.error.details.field).toBe('body');
  const row = rowOf(deep.body.meta.request_id)!;
  expect(row).toMatchObject({ status: 400, error_code: 'VAL_INVALID_PARAM', method: 'POST', path: '/v1/pacientes' });
  // Described (size, type, keyed digest), never walked nor stored.
  expect(JSON.parse(row.body)._nao_interpretado).toMatchObject({ bytes: 20_009, content_type: 'application/json' });
});

test('JSON nested 10,000 levels, unsigned: 401 and audited (the body is described, not walked)', async () => {
  const res = await stack.raw({
    method: 'POST',
    path: '/v1/pacientes',
    headers: { 'content-type': 'application/json' },
    body: nested(10_000),
  });
  expect(res.status).toBe(401);
  expect(rowOf(res.body.meta.request_id)).toBeUndefined();
  const [group] = unattributedGroups(stack, { status: 401, error_code: 'AUTH_MISSING_HEADER' });
  expect(group.sample).toMatchObject({ request_id: res.body.meta.request_id, method: 'POST', path: '/v1/pacientes' });
  // Refused from its headers, before its body was read: nothing of the body reaches the journal.
  expect(group.sample.body).toBeNull();
});

test('exactly the maximum depth is accepted', async () => {
  const body = `{"a":${nested(MAX_JSON_DEPTH - 1)}}`;
  const res = await stack.call({ method: 'POST', path: '/v1/ping', body });
  expect(res.status, res.text).toBe(200);
  const over = await stack.call({ method: 'POST', path: '/v1/ping', body: `{"a":${nested(MAX_JSON_DEPTH)}}` });
  expect(over.status).toBe(400);
});

test('an undecodable URL: 400 in the envelope, audited', async () => {
  const res = await stack.raw({ path: '/v1/pacientes/%E0%A4%A' });
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('VAL_INVALID_PARAM');
  const [group] = unattributedGroups(stack, { status: 400, error_code: 'VAL_INVALID_PARAM' }).filter(
    (g) => g.sample.request_id === res.body.meta.request_id,
  );
  expect(group.sample).toMatchObject({ path: '/v1/pacientes/%E0%A4%A' });
});

test('headers too large (refused by the HTTP parser): 431 in the envelope, audited with the request line', async () => {
  const answer = await rawExchange(
    `GET /v1/ping?cpf=12345678909 HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
  );
  expect(answer).toMatch(/^HTTP\/1\.1 431 /);
  const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
  const [group] = unattributedGroups(stack, { status: 431, error_code: 'VAL_INVALID_PARAM' });
  expect(group.sample).toMatchObject({ request_id: body.meta.request_id, method: 'GET' });
  // The query is redacted like any audited URL.
  expect(group.sample.path).toBe('/v1/ping?cpf=%5BREDACTED%5D');
});

test('a malformed request line (parser garbage): 400 in the envelope, audited', async () => {
  const before = unattributedCount(stack, { status: 400, error_code: 'VAL_INVALID_PARAM' });
  const answer = await rawExchange('\x00\x01garbage \xff\r\n\r\n');
  expect(answer).toMatch(/^HTTP\/1\.1 400 /);
  JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
  expect(unattributedCount(stack, { status: 400, error_code: 'VAL_INVALID_PARAM' })).toBe(before + 1);
});

test('Content-Type with a charset other than UTF-8: 400 VAL_INVALID_PARAM naming Content-Type', async () => {
  const body = JSON.stringify({ teste: 1 });
  for (const charset of ['utf-16', 'UTF-16LE', 'iso-8859-1', '"latin1"']) {
    const res = await stack.call({
      method: 'POST',
      path: '/v1/ping',
      body,
      headers: { 'content-type': `application/json; charset=${charset}` },
    });
    expect(res.status, charset).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VAL_INVALID_PARAM', details: { field: 'Content-Type' } });
  }
  for (const charset of ['utf-8', 'UTF-8', '"utf-8"', 'utf8']) {
    const res = await stack.call({
      method: 'POST',
      path: '/v1/ping',
      body,
      headers: { 'content-type': `application/json; charset=${charset}` },
    });
    expect(res.status, charset).toBe(200);
  }
});

test('the audit entry is committed before the response leaves (no flush needed to read it)', async () => {
  const res = await stack.call({ path: '/v1/ping' });
  // Read through a separate connection, without asking the writer to flush.
  const row = stack.gatewayDb.sqlite
    .prepare('SELECT status FROM audit_log WHERE request_id = ?')
    .get(res.body.meta.request_id);
  expect(row).toEqual({ status: 200 });
});
