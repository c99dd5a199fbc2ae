import { afterAll, beforeAll, expect, test } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { request } from 'undici';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { journalRow, journalRows, unattributedGroups } from '../../helpers/journal.ts';
import { ensureOperator } from '../../../server/operators/index.ts';

/**
 * Issue 19 § Bounded entries: a body that did not parse is never stored raw (size, content type and a
 * keyed digest only); the spec's redaction applies to every body that reaches the journal. Proven by a
 * byte search of DATA_DIR (database files, WAL included) after login and ping calls with unparsable bodies.
 */

const PASSWORD = 'Operador-Senha-Verdadeira-8731';
const SENTINELS = {
  senha: 'SenhaSentinela-5521',
  cpf: '52998224725',
  token: 'TokenSentinela-99x',
};
let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
  await ensureOperator(stack.gatewayDb.db, 'operador', PASSWORD);
});
afterAll(async () => stack?.stop());

/** A console call with a body of any type, byte for byte. */
async function consoleRaw(pathName: string, body: string, contentType: string) {
  const res = await request(stack.gatewayUrl + pathName, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body,
  });
  return { status: res.statusCode, body: (await res.body.json()) as any };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

test('console login with the real password in a text/plain body: refused, and the journal keeps its size and type, never its bytes', async () => {
  const login = await consoleRaw('/admin/api/auth/login', `username=operador&password=${PASSWORD}`, 'text/plain');
  expect(login.status).toBe(400);
  const entry =
    journalRow(stack, login.body.meta.request_id) ??
    unattributedGroups(stack).find((g) => g.sample.request_id === login.body.meta.request_id)?.sample;
  expect(entry).toBeDefined();
  expect(JSON.parse(entry!.body)).toEqual({
    _nao_interpretado: { bytes: `username=operador&password=${PASSWORD}`.length, content_type: 'text/plain' },
  });
  // Broken JSON too (Fastify's parser refuses it before the route).
  const broken = await consoleRaw(
    '/admin/api/auth/login',
    `{"username":"operador","password":"${PASSWORD}"`,
    'application/json',
  );
  expect(broken.status).toBe(400);
});

test('signed and unsigned /v1 calls with unparsable bodies: described by size, type and keyed digest', async () => {
  const secretBody = `senha=${SENTINELS.senha}&cpf=${SENTINELS.cpf}&api_secret=${stack.creds.apiSecret}`;
  // Signed, wrong content type: refused after the signature (400), the body never parsed.
  const plain = await stack.call({
    method: 'POST',
    path: '/v1/ping',
    body: secretBody,
    headers: { 'content-type': 'text/plain' },
  });
  expect(plain.status).toBe(400);
  const row = journalRow(stack, plain.body.meta.request_id)!;
  const described = JSON.parse(row.body)._nao_interpretado;
  expect(described).toMatchObject({ bytes: secretBody.length, content_type: 'text/plain' });
  expect(described.hmac_sha256).toMatch(/^[0-9a-f]{64}$/);
  // Signed JSON that does not parse.
  const brokenJson = `{"senha":"${SENTINELS.senha}","token":"${SENTINELS.token}"`;
  const broken = await stack.call({ method: 'POST', path: '/v1/ping', body: brokenJson });
  expect(broken.status).toBe(400);
  expect(JSON.parse(journalRow(stack, broken.body.meta.request_id)!.body)._nao_interpretado.bytes).toBe(
    brokenJson.length,
  );
  // A bad signature over a text body: unverified entry under the key, body described.
  const badSig = await stack.call({
    method: 'POST',
    path: '/v1/ping',
    body: secretBody,
    headers: { 'content-type': 'text/plain' },
    signature: 'b'.repeat(64),
  });
  expect(badSig.status).toBe(401);
  const bad = journalRow(stack, badSig.body.meta.request_id)!;
  expect(bad.verified).toBe(0);
  expect(JSON.parse(bad.body)._nao_interpretado.bytes).toBe(secretBody.length);
  // The same bytes give the same digest (an operator can tell two refusals carried the same body).
  expect(JSON.parse(bad.body)._nao_interpretado.hmac_sha256).toBe(described.hmac_sha256);
  // A bad signature over JSON that parses: stored redacted.
  const jsonBody = JSON.stringify({ senha: SENTINELS.senha, paciente: { cpf: SENTINELS.cpf }, nome: 'Fulano' });
  const badJson = await stack.call({ method: 'POST', path: '/v1/ping', body: jsonBody, signature: 'c'.repeat(64) });
  expect(badJson.status).toBe(401);
  expect(JSON.parse(journalRow(stack, badJson.body.meta.request_id)!.body)).toEqual({
    senha: '[REDACTED]',
    paciente: { cpf: '[REDACTED]' },
    nome: 'Fulano',
  });
  // Unsigned: refused from its headers, the body is not even read.
  const unsigned = await stack.raw({
    method: 'POST',
    path: '/v1/ping',
    headers: { 'content-type': 'text/plain' },
    body: secretBody,
  });
  expect(unsigned.status).toBe(401);
});

test('a byte search of DATA_DIR finds no operator password, API secret or redacted value', async () => {
  stack.app.auditWriter.flush();
  expect(journalRows(stack).length).toBeGreaterThan(3);
  const needles = [PASSWORD, stack.creds.apiSecret, SENTINELS.senha, SENTINELS.cpf, SENTINELS.token];
  const files = filesUnder(stack.dataDir);
  expect(files.some((f) => f.endsWith('gateway.db-wal'))).toBe(true);
  for (const file of files) {
    const bytes = readFileSync(file);
    for (const needle of needles) {
      expect(bytes.includes(Buffer.from(needle)), `${needle} found in ${path.relative(stack.dataDir, file)}`).toBe(
        false,
      );
      expect(
        bytes.includes(Buffer.from(needle, 'utf16le')),
        `${needle} (UTF-16) found in ${path.relative(stack.dataDir, file)}`,
      ).toBe(false);
    }
  }
});
