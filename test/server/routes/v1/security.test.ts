import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, test } from 'vitest';
import { ALL_SCOPES } from '../../../../contracts/scopes.ts';
import { fillPath, type Operation } from '../../../../server/routes/operation.ts';
import { startTestStack } from '../../../helpers/stack.ts';
import { TenantFixtures } from '../../../helpers/fixtures.ts';
import { OTHER_ID, seedOtherTenant } from '../../../helpers/other-tenant.ts';
import { nowSeconds, sign } from '../../../helpers/signed-client.ts';

/**
 * The security suite, generated from the operations the running gateway registered: a route
 * added to /v1 gets these cases without anyone writing them. Spec 01 § Authentication, § Scopes,
 * § Sandbox, and "a key never sees records of another tenant".
 *   no key → 401 AUTH_MISSING_HEADER; bad signature → 401 AUTH_INVALID_SIGNATURE;
 *   key without the route's scope → 403 AUTH_INSUFFICIENT_SCOPE (public routes: any valid key);
 *   another tenant's id in every path parameter → 404, and that tenant's data untouched;
 *   a write on the sandbox tenant → 403 OPERATION_NOT_ALLOWED, except the agenda writes.
 */

const OTHER = 'clinica-outra';
const SANDBOX = 'sandbox-seguranca';

// Top-level await: the cases are built from the routes of a real, running gateway.
const stack = await startTestStack();
await stack.createTenant(OTHER);
await stack.createTenant(SANDBOX, { sandbox: true });
const other = new TenantFixtures(stack.dataDir, OTHER);
seedOtherTenant(other);
const otherBefore = other.snapshot();
const sandboxKey = await stack.newKey({ tenant: SANDBOX, scopes: [...ALL_SCOPES] });

const operations = stack.app.operations;
const counted = { cases: 0 };

afterAll(async () => {
  console.log(`generated security suite: ${operations.length} /v1 routes, ${counted.cases} cases`);
  other.close();
  await stack.stop();
});

const label = (op: Operation, path: string) => `${op.method} ${path}`;

/** The request target of a valid call: example params (default 1) and example query. */
function target(path: string, op: Operation, params?: Record<string, unknown>): string {
  const filled = fillPath(
    path,
    params ??
      Object.fromEntries([...path.matchAll(/:(\w+)/g)].map(([, name]) => [name, op.example?.params?.[name] ?? 1])),
  );
  const query = new URLSearchParams(op.example?.query ?? {}).toString();
  return query ? `${filled}?${query}` : filled;
}

const bodyOf = (op: Operation): string | undefined =>
  op.method === 'GET' ? undefined : JSON.stringify(op.example?.body ?? {});

const writeHeaders = (op: Operation, body: string | undefined): Record<string, string> =>
  body === undefined
    ? {}
    : { 'content-type': 'application/json', ...(op.idempotent ? { 'idempotency-key': randomUUID() } : {}) };

function expectedNotFound(op: Operation): 'RES_NOT_FOUND' | 'NOT_FOUND' {
  return op.errors.includes('NOT_FOUND') && !op.errors.includes('RES_NOT_FOUND') ? 'NOT_FOUND' : 'RES_NOT_FOUND';
}

test('every /v1 route is enrolled, each with a scope or an explicit public marker', () => {
  expect(operations.length).toBeGreaterThanOrEqual(18);
  for (const { path, operation } of operations) {
    expect(path.startsWith('/v1/'), path).toBe(true);
    expect(operation.scope !== undefined || operation.public === true, path).toBe(true);
  }
});

describe.each(operations.map(({ path, operation }) => ({ name: label(operation, path), path, operation })))(
  '$name',
  ({ path, operation: op }) => {
    test('no key: 401 AUTH_MISSING_HEADER', async () => {
      counted.cases++;
      const body = bodyOf(op);
      const res = await stack.raw({ method: op.method, path: target(path, op), headers: writeHeaders(op, body), body });
      expect(res.status, res.text).toBe(401);
      expect(res.body.error.code).toBe('AUTH_MISSING_HEADER');
      expect(res.body.data).toBeNull();
    });

    test('bad signature: 401 AUTH_INVALID_SIGNATURE', async () => {
      counted.cases++;
      const body = bodyOf(op);
      const url = target(path, op);
      const timestamp = String(nowSeconds());
      const res = await stack.raw({
        method: op.method,
        path: url,
        headers: {
          'x-api-key': stack.creds.apiKey,
          'x-timestamp': timestamp,
          // The right payload signed with another secret.
          'x-signature': sign('f'.repeat(64), timestamp, op.method, url, body ?? ''),
          ...writeHeaders(op, body),
        },
        body,
      });
      expect(res.status, res.text).toBe(401);
      expect(res.body.error.code).toBe('AUTH_INVALID_SIGNATURE');
    });

    if (op.scope) {
      const scope = op.scope;
      test(`key without ${scope}: 403 AUTH_INSUFFICIENT_SCOPE`, async () => {
        counted.cases++;
        const keyScopes = ALL_SCOPES.filter((s) => s !== scope);
        const creds = await stack.newKey({ scopes: keyScopes });
        const body = bodyOf(op);
        const res = await stack.call(
          { method: op.method, path: target(path, op), body, idempotencyKey: op.idempotent ? randomUUID() : undefined },
          creds,
        );
        expect(res.status, res.text).toBe(403);
        expect(res.body.error.code).toBe('AUTH_INSUFFICIENT_SCOPE');
        // The scope needed, and the key's own scopes so the integrator sees what to ask for (issue 21, EF1).
        expect(res.body.error.details).toEqual({ escopo_necessario: scope, escopos_da_chave: keyScopes });
      });
    } else {
      test('public: any valid key, even one with a single unrelated scope', async () => {
        counted.cases++;
        const creds = await stack.newKey({ scopes: ['catalogos:read'] });
        const res = await stack.call({ method: op.method, path: target(path, op), body: bodyOf(op) }, creds);
        expect(res.status, res.text).toBe(200);
      });
    }

    if (path.includes(':')) {
      test(`another tenant's id (${OTHER_ID}) in every path parameter: 404 ${expectedNotFound(op)}`, async () => {
        counted.cases++;
        const params = Object.fromEntries([...path.matchAll(/:(\w+)/g)].map(([, name]) => [name, OTHER_ID]));
        const res = await stack.call({
          method: op.method,
          path: target(path, op, params),
          body: bodyOf(op),
          idempotencyKey: op.idempotent ? randomUUID() : undefined,
        });
        expect(res.status, res.text).toBe(404);
        expect(res.body.error.code).toBe(expectedNotFound(op));
        expect(res.headers.location).toBeUndefined();
      });
    } else if (op.method === 'GET') {
      test("a listing never shows another tenant's rows", async () => {
        counted.cases++;
        const res = await stack.call({ path: target(path, op) });
        expect(res.status, res.text).toBe(200);
        expect(JSON.stringify(res.body.data)).not.toMatch(/OUTRA/);
      });
    }

    if (op.method !== 'GET' && op.scope) {
      if (op.scope === 'agenda:write') {
        test('sandbox tenant: agenda writes are enabled (not 403 OPERATION_NOT_ALLOWED)', async () => {
          counted.cases++;
          const res = await stack.call(
            { method: op.method, path: target(path, op), body: bodyOf(op), idempotencyKey: randomUUID() },
            sandboxKey,
          );
          expect(res.body.error?.code ?? null, res.text).not.toBe('OPERATION_NOT_ALLOWED');
          expect(res.status).not.toBe(403);
        });
      } else {
        test('sandbox tenant: 403 OPERATION_NOT_ALLOWED whatever the key scopes', async () => {
          counted.cases++;
          const res = await stack.call(
            { method: op.method, path: target(path, op), body: bodyOf(op), idempotencyKey: randomUUID() },
            sandboxKey,
          );
          expect(res.status, res.text).toBe(403);
          expect(res.body.error.code).toBe('OPERATION_NOT_ALLOWED');
        });
      }
    }
  },
);

test("the other tenant's data is untouched after every case above", () => {
  expect(other.snapshot()).toBe(otherBefore);
});
