import { describe, expect, test } from 'vitest';
import { V1_OPERATIONS } from '../../../server/routes/v1/index.ts';
import { checkAnswer, checkRequest, describeValue } from '../../../server/proxy/contract-checks.ts';
import type { Operation } from '../../../server/routes/operation.ts';

// The contract guard's checks alone (issue 33): an operation's definition against a request or an answer.
const op = (method: string, url: string): Operation => {
  const found = V1_OPERATIONS.find((o) => o.method === method && o.url === url);
  if (!found) throw new Error(`${method} ${url}`);
  return found;
};
const JSON_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'x-api-version': 'v1',
  'cache-control': 'no-store',
};
const meta = { request_id: 'ab12', duracao_ms: 3 };
const rules = (violations: Array<{ rule: string }>) => violations.map((v) => v.rule).sort();

describe('answers', () => {
  const getPaciente = op('GET', '/pacientes/:id');
  const postPaciente = op('POST', '/pacientes');
  const paciente = { id: 7, nome: 'Maria' };

  test('a conforming error answer of the operation has no violation', () => {
    const body = {
      data: null,
      meta,
      error: { code: 'RES_NOT_FOUND', message: 'Recurso nao encontrado.', details: null },
    };
    expect(checkAnswer(getPaciente, { status: 404, headers: JSON_HEADERS, body })).toEqual([]);
  });

  test('a known code with another status, and a code the operation never answers', () => {
    const wrongStatus = { data: null, meta, error: { code: 'RES_NOT_FOUND', message: 'x', details: null } };
    expect(checkAnswer(getPaciente, { status: 409, headers: JSON_HEADERS, body: wrongStatus })).toEqual(
      expect.arrayContaining([
        { operation: 'getPacientesById', rule: 'responses.status', seen: '409' },
        { operation: 'getPacientesById', rule: 'responses.409.error.code', seen: 'RES_NOT_FOUND with status 409' },
      ]),
    );
    const notHis = { data: null, meta, error: { code: 'IDEMPOTENCY_CONFLICT', message: 'x', details: null } };
    expect(rules(checkAnswer(getPaciente, { status: 422, headers: JSON_HEADERS, body: notHis }))).toContain(
      'responses.422.error.code',
    );
  });

  test("a write's headers: X-Request-Id, Idempotency-Replay, Location on its 201; meta.idempotent_replay", () => {
    const body = { data: paciente, meta, error: null };
    const headersAndMeta = rules(checkAnswer(postPaciente, { status: 201, headers: JSON_HEADERS, body })).filter(
      (rule) => !rule.startsWith('responses.201.data'),
    );
    expect(headersAndMeta).toEqual([
      'responses.201.headers.Idempotency-Replay',
      'responses.201.headers.Location',
      'responses.201.headers.X-Request-Id',
      'responses.201.meta.idempotent_replay',
    ]);
  });

  test('a success with the wrong Cache-Control, an error object, and a meta without its parts', () => {
    const catalog = op('GET', '/convenios');
    const body = { data: [], meta: { request_id: 'zz', duracao_ms: -1 }, error: { code: 'X' } };
    expect(rules(checkAnswer(catalog, { status: 200, headers: JSON_HEADERS, body }))).toEqual([
      'responses.200.error',
      'responses.200.headers.Cache-Control',
      'responses.200.meta.duracao_ms',
      'responses.200.meta.has_more',
      'responses.200.meta.limit',
      'responses.200.meta.offset',
      'responses.200.meta.request_id',
      'responses.200.meta.timestamp',
      'responses.200.meta.total',
      'responses.200.meta.version',
    ]);
  });

  test('an envelope that is not one; array items as []; extra fields pass', () => {
    expect(rules(checkAnswer(getPaciente, { status: 200, headers: JSON_HEADERS, body: [1, 2] }))).toEqual([
      'responses.200.envelope',
    ]);
    const list = op('GET', '/unidades');
    const catalogMeta = { ...meta, version: '1.6.0', timestamp: '2026-12-02T00:00:00Z', total: 1 };
    const valid = checkAnswer(list, {
      status: 200,
      headers: { ...JSON_HEADERS, 'cache-control': 'private, max-age=300' },
      body: { data: [], meta: catalogMeta, error: null },
    });
    expect(valid).toEqual([]);
    const items = { data: [{ id: 'x' }], meta: catalogMeta, error: null };
    const found = checkAnswer(list, {
      status: 200,
      headers: { ...JSON_HEADERS, 'cache-control': 'private, max-age=300' },
      body: items,
    });
    expect(found).toContainEqual({
      operation: 'getUnidades',
      rule: 'responses.200.data[].id',
      seen: expect.stringMatching(/^string of 1 characters: /),
    });
  });

  test('a 302 needs its Location and no-store', () => {
    const file = op('GET', '/exames/:id/arquivo');
    expect(rules(checkAnswer(file, { status: 302, headers: { 'x-api-version': 'v1' }, body: undefined }))).toEqual([
      'responses.302.headers.Cache-Control',
      'responses.302.headers.Location',
    ]);
  });
});

describe('requests', () => {
  test('an unknown body field is counted under additionalProperties, never named; a value never quoted', () => {
    const violations = checkRequest(op('POST', '/pacientes'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'k' },
      params: {},
      query: {},
      rawBody: Buffer.from('{}'),
      body: { nome: 12345, cpf_do_paciente_secreto: '52998224725' },
      bodyNotJson: false,
      signingHeaders: false,
    });
    expect(rules(violations)).toEqual(
      expect.arrayContaining(['request.body.additionalProperties', 'request.body.nome']),
    );
    const text = JSON.stringify(violations);
    expect(text).not.toContain('cpf_do_paciente_secreto');
    expect(text).not.toContain('52998224725');
    expect(text).not.toContain('12345');
  });

  test('a body over the operation limit, without Content-Type, not JSON', () => {
    const ping = op('POST', '/ping');
    const big = Buffer.alloc(4096, 'a');
    expect(
      rules(
        checkRequest(ping, {
          method: 'POST',
          headers: {},
          params: {},
          query: {},
          rawBody: big,
          body: undefined,
          bodyNotJson: true,
          signingHeaders: true,
        }),
      ),
    ).toEqual([
      'request.body',
      'request.body.x-max-body-bytes',
      'request.headers.Content-Type',
      'request.headers.X-API-Key',
      'request.headers.X-Signature',
      'request.headers.X-Timestamp',
    ]);
  });
});

test('describeValue names a kind and a size, never the value', () => {
  expect(describeValue('segredo')).toBe('string of 7 characters');
  expect(describeValue([1, 2])).toBe('array of 2');
  expect(describeValue({ a: 1 })).toBe('object of 1 keys');
  expect(describeValue(undefined)).toBe('absent');
  expect(describeValue(3)).toBe('number');
});
