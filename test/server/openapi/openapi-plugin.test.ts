import { afterAll, beforeAll, expect, test } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { operationErrorCodes } from '../../../server/openapi/document.ts';

/** Issue 9: OpenAPI 3.1 generated from the routes' own zod schemas, served without signing. */

let stack: TestStack;
let doc: any;

/** `/v1/pacientes/:id` → `/v1/pacientes/{id}` (OpenAPI path templating). */
const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

/** Follows a local `$ref` (`#/components/...`) to what it names. */
const deref = (node: any): any =>
  node?.$ref
    ? deref(
        node.$ref
          .slice(2)
          .split('/')
          .reduce((at: any, key: string) => at?.[key], doc),
      )
    : node;

beforeAll(async () => {
  stack = await startTestStack();
  const res = await stack.raw({ path: '/openapi.json' });
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(async () => stack?.stop());

test('GET /openapi.json needs no signature and is a valid OpenAPI 3.1 document', async () => {
  expect(doc.openapi).toBe('3.1.0');
  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc));
  expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)?.slice(0, 2000)).toEqual([]);
  expect(result.valid).toBe(true);
  expect(validator.version).toBe('3.1');
});

test('the HMAC scheme is described: the three headers and how the signature is computed', () => {
  const schemes = doc.components.securitySchemes;
  expect(
    Object.values(schemes)
      .map((s: any) => s.name)
      .sort(),
  ).toEqual(['X-API-Key', 'X-Signature', 'X-Timestamp']);
  expect(schemes.Signature.description).toContain('HMAC-SHA256');
  expect(schemes.Signature.description).toContain('line feed');
  expect(schemes.Signature.description).toContain('a fixed value');
});

test('GET /openapi.yaml serves the same document as YAML', async () => {
  const res = await stack.raw({ path: '/openapi.yaml' });
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toContain('yaml');
  expect(res.text).toMatch(/^openapi: 3\.1\.0/m);
  for (const path of Object.keys(doc.paths)) expect(res.text).toContain(`${path}:`);
});

test('only /v1 operations are documented (no console, admin, docs or spec routes)', () => {
  for (const path of Object.keys(doc.paths)) expect(path.startsWith('/v1/'), path).toBe(true);
  const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item as object).map((m) => `${m.toUpperCase()} ${path}`),
  );
  const registered = stack.app.operations.map(({ path, operation }) => `${operation.method} ${openApiPath(path)}`);
  expect(documented.sort()).toEqual(registered.sort());
});

test('each operation carries its scope, security, schemas, errors and example', () => {
  expect(stack.app.operations.length).toBeGreaterThanOrEqual(18);
  for (const { path, operation } of stack.app.operations) {
    const label = `${operation.method} ${path}`;
    const documented = doc.paths[openApiPath(path)]?.[operation.method.toLowerCase()];
    expect(documented, label).toBeDefined();
    expect(documented.summary, label).toBe(operation.summary);
    expect(documented['x-scope'], label).toBe(operation.public ? null : operation.scope);
    if (operation.scope) expect(documented.description, label).toContain(`\`${operation.scope}\``);
    expect(documented.security, label).toEqual([{ ApiKey: [], Timestamp: [], Signature: [] }]);
    // Request schemas: path parameters, body, Idempotency-Key on writes.
    for (const [, name] of path.matchAll(/:(\w+)/g)) {
      expect(
        documented.parameters?.some((p: any) => p.in === 'path' && p.name === name),
        `${label} param ${name}`,
      ).toBe(true);
    }
    if (operation.body) {
      expect(documented.requestBody?.content?.['application/json']?.schema, label).toBeDefined();
      if (operation.example?.body !== undefined)
        expect(documented.requestBody.content['application/json'].example, label).toEqual(operation.example.body);
    }
    const idem = documented.parameters?.map(deref).find((p: any) => p.in === 'header' && p.name === 'Idempotency-Key');
    expect(Boolean(idem?.required), `${label} Idempotency-Key`).toBe(Boolean(operation.idempotent));
    // Response: the envelope around the operation's data schema (or the 302).
    const status = String(operation.response.status);
    expect(documented.responses[status], `${label} ${status}`).toBeDefined();
    if (status !== '302') {
      const envelope = deref(documented.responses[status]).content['application/json'].schema;
      expect(envelope.properties.data, label).toBeDefined();
      expect(envelope.required).toEqual(['data', 'meta', 'error']);
    }
    // Every error code the operation can answer, listed under its HTTP status.
    const codes = operationErrorCodes(operation);
    expect(documented['x-error-codes'], label).toEqual(codes);
    for (const code of operation.errors) {
      const listed = Object.values(documented.responses).some((r: any) =>
        deref(r).content?.['application/json']?.schema?.allOf?.[1]?.properties?.error?.properties?.code?.enum?.includes(
          code,
        ),
      );
      expect(listed, `${label} lists ${code}`).toBe(true);
    }
    expect(deref(documented.responses['401']).description, label).toContain('AUTH_INVALID_SIGNATURE');
  }
});

test('docs/api/openapi.yaml is the generated document of the running routes (run `npm run openapi` after changing a route)', async () => {
  const { readFileSync } = await import('node:fs');
  const { OPENAPI_FILE } = await import('../../../appliance/openapi-export.ts');
  expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(stack.app.swagger({ yaml: true }));
});
