import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { randomUUID } from 'node:crypto';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { makeCpf } from '../../helpers/fixtures.ts';
import { auditedHeaders, auditedResponse } from '../../../server/audit/journal-entries.ts';
import { JOURNAL_LIMITS, TRUNCATED_MARK } from '../../../server/audit/bounded.ts';
import { ensureOperator } from '../../../server/operators/index.ts';
import { ConsoleClient } from '../admin/console-client.ts';

// Issue 14 item 3: the audit log as a request journal (error message, redacted response, request headers).
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => stack?.stop());

const rowFor = (requestId: string) => {
  stack.app.auditWriter.flush();
  return stack.gatewayDb.sqlite.prepare('SELECT * FROM audit_log WHERE request_id = ?').get(requestId) as Record<
    string,
    any
  >;
};
const allRows = () => {
  stack.app.auditWriter.flush();
  return JSON.stringify(stack.gatewayDb.sqlite.prepare('SELECT * FROM audit_log').all());
};

describe('the journal columns', () => {
  test('an error records its code, its message and the redacted answer', async () => {
    const res = await stack.call({
      method: 'POST',
      path: '/v1/pacientes',
      body: { nome: 'X' },
      idempotencyKey: randomUUID(),
    });
    expect(res.status).toBe(400);
    const row = rowFor(res.body.meta.request_id);
    expect(row.error_code).toBe('VAL_INVALID_PARAM');
    expect(row.error_message).toBe(res.body.error.message);
    expect(JSON.parse(row.response_body)).toMatchObject({
      data: null,
      error: { code: 'VAL_INVALID_PARAM', message: res.body.error.message },
    });
  });

  test('sentinel CPF, e-mail and phone in a response are never stored in plaintext; paciente nome is kept', async () => {
    const cpf = makeCpf(Math.floor(Math.random() * 900_000) + 7_000);
    const email = `sentinela.${randomUUID().slice(0, 8)}@example.com`;
    const nome = `Sentinela Journal ${randomUUID().slice(0, 6).toUpperCase().replace(/\d/g, 'X')}`;
    const res = await stack.call({
      method: 'POST',
      path: '/v1/pacientes',
      body: { nome, data_nascimento: '1988-04-12', sexo: 'FEM', cpf, email, celular: '11987654321' },
      idempotencyKey: randomUUID(),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    // The answer carries them (so a naive copy would store them).
    expect(res.text).toContain(email);
    const row = rowFor(res.body.meta.request_id);
    const response = JSON.parse(row.response_body);
    expect(response.data.email).toBe('[REDACTED]');
    expect(response.data.cpf).toBe('[REDACTED]');
    const everything = allRows();
    expect(everything).not.toContain(email);
    expect(everything).not.toContain(cpf);
    expect(everything).not.toContain('11987654321');
    expect(response.data.nome).toBe(nome.toUpperCase());
  });

  test('no signing header is stored; X-API-Key, X-Timestamp, Idempotency-Key, Content-Type and User-Agent are', async () => {
    const idempotencyKey = randomUUID();
    const res = await stack.call({
      method: 'POST',
      path: '/v1/ping',
      body: { a: 1 },
      idempotencyKey,
      headers: {
        authorization: 'Bearer SEGREDO-AUTH',
        cookie: 'sessao=SEGREDO-COOKIE',
        'user-agent': 'journal-test/1.0',
        'x-paciente-cpf': '12345678909',
      },
    });
    expect(res.status).toBe(200);
    const row = rowFor(res.body.meta.request_id);
    const headers = JSON.parse(row.request_headers);
    expect(headers).toMatchObject({
      'x-api-key': stack.creds.apiKey,
      'x-timestamp': expect.stringMatching(/^\d+$/),
      'idempotency-key': idempotencyKey,
      'content-type': 'application/json',
      'user-agent': 'journal-test/1.0',
    });
    for (const name of ['x-signature', 'authorization', 'cookie']) expect(headers).not.toHaveProperty(name);
    // A header outside the known set: its name, never its value.
    expect(headers['x-paciente-cpf']).toBe('[omitido]');
    const everything = allRows();
    for (const secret of ['SEGREDO-AUTH', 'SEGREDO-COOKIE', '12345678909']) expect(everything).not.toContain(secret);
  });

  test('a refused signature: attributed to the key presented, and neither the signature nor the signed body (development explanation) is stored', async () => {
    const cpf = makeCpf(424_242);
    const res = await stack.call({
      method: 'PATCH',
      path: `/v1/pacientes/1?cpf=${cpf}`,
      body: { cpf },
      signWith: { body: '{}' },
    });
    expect(res.status).toBe(401);
    const row = rowFor(res.body.meta.request_id);
    expect(row).toMatchObject({
      chave_id: stack.creds.chaveId,
      error_code: 'AUTH_INVALID_SIGNATURE',
      error_message: res.body.error.message,
    });
    expect(JSON.stringify(row)).not.toContain(cpf);
    const signature = JSON.parse(row.request_headers)['x-signature'];
    expect(signature).toBeUndefined();
  });

  test('requests refused before routing (an undecodable URL) carry their message too, under the key they name', async () => {
    const res = await stack.raw({
      path: '/v1/pacientes/%E0%A4%A?cpf=52998224725',
      headers: { 'x-api-key': stack.creds.apiKey },
    });
    expect(res.status).toBe(400);
    const row = rowFor(res.body.meta.request_id);
    expect(row).toMatchObject({ chave_id: stack.creds.chaveId, verified: 0 });
    expect(row.error_message).toBe(res.body.error.message);
    expect(JSON.parse(row.response_body).error).toEqual(res.body.error);
    expect(JSON.stringify(row)).not.toContain('52998224725');
  });

  test("the echo of POST /v1/ping is not copied (it changes nothing and its body is in the entry); a write's answer is", async () => {
    const ping = await stack.call({ method: 'POST', path: '/v1/ping', body: { eco: 'ola', senha: 'x' } });
    expect(ping.status).toBe(200);
    const pingRow = rowFor(ping.body.meta.request_id);
    expect(pingRow.response_body).toBeNull();
    expect(JSON.parse(pingRow.body)).toEqual({ eco: 'ola', senha: '[REDACTED]' });
    const created = await stack.call({
      method: 'POST',
      path: '/v1/pacientes',
      body: { nome: 'Journal Eco', data_nascimento: '1990-01-01' },
      idempotencyKey: randomUUID(),
    });
    expect(created.status).toBe(201);
    expect(JSON.parse(rowFor(created.body.meta.request_id).response_body).data.id).toBe(created.body.data.id);
  });

  test('successful reads keep no response copy (GET /v1/ping)', async () => {
    const res = await stack.call({ path: '/v1/ping' });
    const row = rowFor(res.body.meta.request_id);
    expect(row.response_body).toBeNull();
    expect(row.error_message).toBeNull();
    expect(JSON.parse(row.request_headers)['x-api-key']).toBe(stack.creds.apiKey);
  });
});

describe('every field has its cap, end to end (issue 19 § Bounded entries): a real request, then its journal row', () => {
  test(`a request body past ${JOURNAL_LIMITS.body} characters of JSON: pruned under _truncado (first levels and items, the rest counted), long strings summarised`, async () => {
    const itens = Array.from({ length: 400 }, (_, n) => ({ nome: `Item de teste numero ${n}`, n }));
    // Refused for its unknown fields, after parsing: the parsed body is what the journal keeps (ping takes 2 KB at most).
    const res = await stack.call({
      method: 'POST',
      path: '/v1/pacientes',
      body: { itens, anexo: 'A'.repeat(5000) },
      idempotencyKey: randomUUID(),
    });
    expect(res.status, res.text).toBe(400);
    const row = rowFor(res.body.meta.request_id);
    expect(row.body.length).toBeLessThanOrEqual(JOURNAL_LIMITS.body);
    const stored = JSON.parse(row.body);
    expect(stored._truncado.limite).toBe(JOURNAL_LIMITS.body);
    expect(stored._truncado.caracteres).toBeGreaterThan(JOURNAL_LIMITS.body);
    expect(stored.amostra.itens.slice(0, 2)).toEqual(itens.slice(0, 2));
    expect(stored.amostra.itens.at(-1)).toMatch(/^\[\+\d+ itens\]$/);
    expect(stored.amostra.anexo).toBe('[omitido: 5000 caracteres]');
  });

  test(`request headers: at most ${JOURNAL_LIMITS.headers} names, the rest counted in _omitidos; long values and names shortened; the whole within 4 KB`, async () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < 60; i++) many[`x-extra-${String(i).padStart(2, '0')}`] = 'v';
    const counted = await stack.call({ path: '/v1/ping', headers: { 'user-agent': 'u'.repeat(600), ...many } });
    expect(counted.status).toBe(200);
    const byCount = JSON.parse(rowFor(counted.body.meta.request_id).request_headers);
    const kept = Object.keys(byCount).filter((name) => name !== '_omitidos');
    expect(kept).toHaveLength(JOURNAL_LIMITS.headers);
    // 60 of its own plus the signing headers and the transport's: everything not kept is counted, nothing silently lost.
    expect(kept.length + byCount._omitidos).toBeGreaterThanOrEqual(60 + 3);
    expect(byCount['x-api-key']).toBe(stack.creds.apiKey);
    expect(byCount['user-agent']).toBe('[omitido: 600 caracteres]');

    const long: Record<string, string> = {};
    for (let i = 0; i < 50; i++) long[`x-${'n'.repeat(140)}-${String(i).padStart(2, '0')}`] = 'v';
    const sized = await stack.call({ path: '/v1/ping', headers: long });
    expect(sized.status).toBe(200);
    const text = rowFor(sized.body.meta.request_id).request_headers as string;
    expect(text.length).toBeLessThanOrEqual(4096);
    const bySize = JSON.parse(text);
    const names = Object.keys(bySize).filter((name) => name !== '_omitidos');
    expect(names.length).toBeLessThan(JOURNAL_LIMITS.headers);
    expect(bySize._omitidos).toBeGreaterThan(0);
    const longNames = names.filter((name) => name.startsWith('x-nnn'));
    expect(longNames.length).toBeGreaterThan(0);
    expect(longNames.every((name) => name.includes(TRUNCATED_MARK))).toBe(true);
  });

  test(`an error message past ${JOURNAL_LIMITS.errorMessage} characters (it names an unknown field of 1,000 characters): cut and marked`, async () => {
    const field = `campo_${'x'.repeat(1000)}`;
    const res = await stack.call({
      method: 'POST',
      path: '/v1/pacientes',
      body: { nome: 'Paciente Campo Longo', data_nascimento: '1990-01-01', [field]: 1 },
      idempotencyKey: randomUUID(),
    });
    expect(res.status, res.text).toBe(400);
    const message: string = res.body.error.message;
    expect(message).toContain(field);
    const row = rowFor(res.body.meta.request_id);
    expect(row.error_message).toBe(
      `${message.slice(0, JOURNAL_LIMITS.errorMessage)}${TRUNCATED_MARK} ${message.length} caracteres]`,
    );
    // The answer kept in the journal summarises the same long string instead of copying it.
    expect(JSON.parse(row.response_body).error.message).toBe(`[omitido: ${message.length} caracteres]`);
  });

  test(`a detail past ${JOURNAL_LIMITS.detail} characters (an operator token for 100 clinics of 40-character slugs): pruned under _truncado`, async () => {
    // No /v1 request can build a detail that long (the gateway writes them: ids, fingerprints, 64-character keys);
    // the console's token issuance names every clinic of the token. Clinics as rows of gateway.db (the
    // issuance only checks that they exist), removed afterwards.
    const slugs = Array.from(
      { length: 100 },
      (_, i) => `clinica-detalhe-${String(i).padStart(3, '0')}-${'d'.repeat(20)}`,
    );
    const insert = stack.gatewayDb.sqlite.prepare(
      "INSERT INTO tenants (slug, nome, is_sandbox, status, created_at) VALUES (?, ?, 0, 'active', ?)",
    );
    for (const slug of slugs) insert.run(slug, slug, new Date().toISOString());
    try {
      await ensureOperator(stack.gatewayDb.db, 'operador-detalhe', 'detalhe-password-1');
      const console = new ConsoleClient(stack.gatewayUrl);
      expect((await console.login('operador-detalhe', 'detalhe-password-1')).status).toBe(200);
      const issued = await console.call('POST', '/admin/api/operator-tokens', {
        label: 'Detalhe longo',
        tenants: slugs,
        expires_in_days: 1,
      });
      expect(issued.status, issued.text).toBe(201);
      const row = rowFor(issued.body.meta.request_id as string);
      expect(row.detail.length).toBeLessThanOrEqual(JOURNAL_LIMITS.detail);
      const detail = JSON.parse(row.detail);
      expect(detail._truncado.limite).toBe(JOURNAL_LIMITS.detail);
      expect(detail._truncado.caracteres).toBeGreaterThan(JOURNAL_LIMITS.detail);
      expect(detail.amostra).toMatchObject({ action: 'operator_token.create', token_id: issued.body.data.id });
      expect(detail.amostra.tenants.slice(0, 2)).toEqual(slugs.slice(0, 2));
      expect(detail.amostra.tenants.at(-1)).toMatch(/^\[\+\d+ itens\]$/);
    } finally {
      stack.gatewayDb.sqlite
        .prepare(`DELETE FROM tenants WHERE slug IN (${slugs.map(() => '?').join(', ')})`)
        .run(...slugs);
    }
  });
});

describe('auditedResponse and auditedHeaders', () => {
  test('a redirect never stores its body or Location, whatever the payload', () => {
    const url = 'https://s3.local/bucket/clinica/exame.pdf?X-Amz-Signature=abc';
    expect(auditedResponse('GET', 302, JSON.stringify({ location: url }))).toEqual({ errorMessage: null, body: null });
    expect(auditedResponse('POST', 303, url)).toEqual({ errorMessage: null, body: null });
  });

  test('long strings and big answers are summarised', () => {
    const long = auditedResponse('POST', 201, JSON.stringify({ data: { base64: 'A'.repeat(5000) } }));
    expect(JSON.parse(long.body!)).toEqual({ data: { base64: '[omitido: 5000 caracteres]' } });
    const big = auditedResponse('POST', 201, JSON.stringify({ data: 'x'.repeat(300) }).repeat(300));
    expect(JSON.parse(big.body!)).toHaveProperty('_omitido');
    expect(auditedResponse('POST', 500, 'not json')).toEqual({
      errorMessage: null,
      body: expect.stringContaining('_invalido'),
    });
  });

  test('headers: signing material dropped by name, unknown headers by value, long values shortened', () => {
    const out = JSON.parse(
      auditedHeaders({
        'x-signature': 'a'.repeat(64),
        authorization: 'x',
        'proxy-authorization': 'y',
        cookie: 'z',
        'x-api-key': 'k',
        'user-agent': 'u'.repeat(600),
        'x-outro': 'v',
      }),
    );
    expect(out).toEqual({ 'x-api-key': 'k', 'user-agent': '[omitido: 600 caracteres]', 'x-outro': '[omitido]' });
  });
});
