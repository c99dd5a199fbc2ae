import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, test } from 'vitest';
import { CONTROL_CHARACTER_MESSAGE } from '../../../contracts/schemas/params.ts';
import { fillPath, type Operation } from '../../../server/routes/operation.ts';
import { backendAdmin } from '../../helpers/fixtures.ts';
import { startTestStack } from '../../helpers/stack.ts';

/**
 * Issue 20 § 4: a control character in a query or path value is a 400 `VAL_INVALID_PARAM` naming the
 * parameter, before the backend. Spec 02: "400 `VAL_INVALID_PARAM` for an invalid path id (not a positive
 * integer) or whitelist violation"; spec 01 § Errors: 400 is a format error of the request. Generated from
 * the operations the running gateway registered, like the security suite: every path parameter and every
 * query parameter of every /v1 route.
 */

const stack = await startTestStack();
const admin = backendAdmin(stack);
afterAll(async () => stack.stop());

const operations = stack.app.operations;

/** The query parameters an operation names (its strict query object's keys), or its example's. */
function queryNames(op: Operation): string[] {
  const shape = (op.query as { shape?: Record<string, unknown> } | undefined)?.shape;
  return Object.keys(shape ?? op.example?.query ?? {});
}

const paramNames = (path: string): string[] => [...path.matchAll(/:(\w+)/g)].map(([, name]) => name);

function call(op: Operation, target: string) {
  const body = op.method === 'GET' ? undefined : JSON.stringify(op.example?.body ?? {});
  return stack.call({
    method: op.method,
    path: target,
    body,
    idempotencyKey: op.idempotent ? randomUUID() : undefined,
  });
}

function expectControlCharacterError(res: { status: number; body: any }, field: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.data).toBeNull();
  expect(res.body.error.code).toBe('VAL_INVALID_PARAM');
  expect(res.body.error.details.field).toBe(field);
  expect(res.body.error.details.lista).toEqual([{ field, msg: CONTROL_CHARACTER_MESSAGE }]);
  expect(res.body.error.message).toContain(field);
}

test("the finding: GET /v1/pacientes?nome=a%00b answers 400 naming nome (it answered 503: backend-sim's FTS5 query failed)", async () => {
  const res = await stack.call({ path: '/v1/pacientes?nome=a%00b' });
  expectControlCharacterError(res, 'nome');
});

test('refused before the backend: with backend-sim failing every patient list, the answer is still the 400', async () => {
  const fault = await admin('POST', '/admin/faults', {
    tenant: stack.tenantSlug,
    route: 'GET /tenants/*/pacientes',
    kind: 'http500',
    failure_rate: 1,
  });
  expect(fault.status).toBe(201);
  try {
    expectControlCharacterError(await stack.call({ path: '/v1/pacientes?nome=SIL%00VA' }), 'nome');
    // The same list without the control character does reach the (failing) backend.
    expect((await stack.call({ path: '/v1/pacientes?nome=SILVA' })).status).toBe(503);
  } finally {
    await admin('DELETE', `/admin/faults/${fault.body.data.id}`);
  }
});

describe('which characters: C0 (tab and line breaks included), DEL and C1; text around them does not matter', () => {
  for (const [label, encoded] of [
    ['NUL', '%00'],
    ['tab', '%09'],
    ['line feed', '%0A'],
    ['carriage return', '%0D'],
    ['unit separator', '%1F'],
    ['DEL', '%7F'],
    ['NEL (C1)', '%C2%85'],
    ['C1 CSI', '%C2%9B'],
  ]) {
    test(`${label} in a value`, async () => {
      expectControlCharacterError(await stack.call({ path: `/v1/pacientes?nome=SIL${encoded}VA` }), 'nome');
      expectControlCharacterError(await stack.call({ path: `/v1/pacientes?cpf=${encoded}52998224725` }), 'cpf');
    });
  }

  test('in a repeated parameter, and in a parameter name (shown with the character escaped)', async () => {
    expectControlCharacterError(await stack.call({ path: '/v1/pacientes?nome=SILVA&nome=SIL%00VA' }), 'nome');
    expectControlCharacterError(await stack.call({ path: '/v1/pacientes?no%00me=SILVA' }), 'no\\u0000me');
  });

  test('letters with accents, spaces and punctuation are not control characters', async () => {
    for (const nome of ['JO%C3%83O', 'MARIA%20DA', 'D%27%C3%81VILA', 'ANA-PAULA']) {
      const res = await stack.call({ path: `/v1/pacientes?nome=${nome}` });
      expect(res.status, nome).toBe(200);
    }
  });
});

describe.each(operations.map(({ path, operation }) => ({ name: `${operation.method} ${path}`, path, operation })))(
  '$name',
  ({ path, operation: op }) => {
    const params = paramNames(path);
    const valid = Object.fromEntries(params.map((name) => [name, op.example?.params?.[name] ?? 1]));

    for (const name of params) {
      test(`path parameter ${name} with a NUL → 400 naming ${name}`, async () => {
        // fillPath encodes: the NUL travels as %00 and the router decodes it into the value.
        const target = fillPath(path, { ...valid, [name]: `${valid[name]}\u0000` });
        expectControlCharacterError(await call(op, target), name);
      });
    }

    test('a query parameter the route does not name, carrying a control character → 400 naming it (before the whitelist)', async () => {
      const query = new URLSearchParams({ ...(op.example?.query ?? {}), extra: 'a\u007fb' }).toString();
      expectControlCharacterError(await call(op, `${fillPath(path, valid)}?${query}`), 'extra');
    });

    for (const name of queryNames(op)) {
      test(`query parameter ${name} with a control character → 400 naming ${name}`, async () => {
        const query = new URLSearchParams({ ...(op.example?.query ?? {}), [name]: 'ab\u0001c' }).toString();
        expectControlCharacterError(await call(op, `${fillPath(path, valid)}?${query}`), name);
      });
    }
  },
);
