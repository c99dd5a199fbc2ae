import { createRequire } from 'node:module';
import { request } from 'undici';
import { Ajv } from 'ajv';
import formatsPlugin from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { gatewayRows } from '../../helpers/journal.ts';
import { nowSeconds, sign } from '../../helpers/signed-client.ts';
import { signedInOperator, type ConsoleClient } from '../admin/console-client.ts';

/**
 * Issue 30 § 5: a clinic's journal as HAR 1.2, validated against the HAR schema (har-schema, with ajv), made of
 * what the journal stores: a byte search finds no API secret, no signature, no personal data the journal redacts.
 */

const require = createRequire(import.meta.url);
const harSchemas = require('har-schema') as Record<string, { $id: string }>;
const draft06 = require('ajv/dist/refs/json-schema-draft-06.json');

// ajv-formats is CommonJS: its default export is the plugin itself at runtime.
const addFormats = ((formatsPlugin as unknown as { default?: unknown }).default ?? formatsPlugin) as (ajv: Ajv) => void;

/** The HAR 1.2 schema (draft-06, with its own `min`/`optional` words: not strict). */
function harValidator() {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addMetaSchema(draft06);
  for (const schema of Object.values(harSchemas)) ajv.addSchema(schema);
  return ajv.getSchema('har.json#')!;
}

const PASSWORD = 'har-password';
const CPF = '52998224725';
const EMAIL = 'maria.har@example.test';
const CELULAR = '11987654321';
let stack: TestStack;
let admin: ConsoleClient;
let viewer: ConsoleClient;
const slug = 'clinica-har';
let key: Awaited<ReturnType<TestStack['newKey']>>;
const signatures: string[] = [];
const requestIds: string[] = [];

/** A signed call whose signature the test keeps, to search the HAR for it. */
async function signedCall(method: string, path: string, body?: unknown, idempotencyKey?: string) {
  const raw = body === undefined ? '' : JSON.stringify(body);
  const timestamp = String(nowSeconds());
  const signature = sign(key.apiSecret, timestamp, method, path, raw);
  signatures.push(signature);
  const res = await stack.call({ method, path, body, timestamp, signature, idempotencyKey }, key);
  requestIds.push(res.body.meta.request_id);
  return res;
}

beforeAll(async () => {
  stack = await startTestStack();
  admin = await signedInOperator(stack, 'operador', PASSWORD);
  viewer = await signedInOperator(stack, 'leitor', PASSWORD, 'viewer');
  await stack.createTenant(slug);
  key = await stack.newKey({ tenant: slug });
  const created = await signedCall(
    'POST',
    '/v1/pacientes',
    { nome: 'Maria Exportada', data_nascimento: '1985-03-04', sexo: 'FEM', cpf: CPF, email: EMAIL, celular: CELULAR },
    'har-create',
  );
  expect(created.status, created.text).toBe(201);
  expect((await signedCall('GET', `/v1/pacientes?cpf=${CPF}&limit=5`)).status).toBe(200);
  expect((await signedCall('GET', `/v1/pacientes/${created.body.data.id}`)).status).toBe(200);
  // A refusal: wrong signature (its value is the test's, still never in the HAR).
  const forged = 'b'.repeat(64);
  signatures.push(forged);
  const refused = await stack.call({ path: '/v1/pacientes', signature: forged }, key);
  expect(refused.status).toBe(401);
  requestIds.push(refused.body.meta.request_id);
});
afterAll(async () => stack?.stop());

async function exportHar(path: string, client: ConsoleClient = admin) {
  const res = await request(`${stack.gatewayUrl}/admin/api${path}`, {
    headers: client.cookie ? { cookie: client.cookie } : {},
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text };
}

describe('HAR export', () => {
  it('validates against the HAR 1.2 schema: every journaled call of the clinic, oldest first, as stored', async () => {
    const res = await exportHar(`/tenants/${slug}/journal/har`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="journal-clinica-har-.+\.har"$/);
    const har = JSON.parse(res.text);
    const validate = harValidator();
    expect(validate(har), JSON.stringify(validate.errors)).toBe(true);
    expect(har.log.version).toBe('1.2');
    expect(har.log._tenant).toBe(slug);
    const entries = har.log.entries;
    expect(entries.map((e: any) => e._requestId)).toEqual(requestIds);
    const [post, list, , refused] = entries;
    expect(post.request).toMatchObject({ method: 'POST', httpVersion: 'HTTP/1.1' });
    expect(post.request.url).toBe(`${stack.gatewayUrl}/v1/pacientes`.replace('localhost', '127.0.0.1'));
    expect(JSON.parse(post.request.postData.text)).toMatchObject({
      nome: 'Maria Exportada',
      cpf: '[REDACTED]',
      email: '[REDACTED]',
      celular: '[REDACTED]',
    });
    expect(post.response.status).toBe(201);
    expect(post.response.statusText).toBe('Created');
    // The write's answer as journaled (redacted); a read keeps none.
    expect(JSON.parse(post.response.content.text).data.cpf).toBe('[REDACTED]');
    expect(list.response.content.text).toBeUndefined();
    expect(list.request.queryString).toEqual([
      { name: 'cpf', value: '[REDACTED]' },
      { name: 'limit', value: '5' },
    ]);
    const headerNames = (e: any) => e.request.headers.map((h: any) => h.name);
    expect(headerNames(post)).toEqual(expect.arrayContaining(['x-api-key', 'x-timestamp', 'idempotency-key']));
    // A verified call was signed: its signature shown masked; a refused one names nothing it never proved.
    expect(post.request.headers).toContainEqual(expect.objectContaining({ name: 'x-signature', value: '[REDACTED]' }));
    expect(headerNames(refused)).not.toContain('x-signature');
    expect(refused).toMatchObject({
      _errorCode: 'AUTH_INVALID_SIGNATURE',
      _verified: false,
      _chaveId: key.chaveId,
      response: { status: 401 },
    });
    expect(post.timings.wait).toBe(post.time);
  });

  it('holds no API secret, no signature value and no personal data the journal redacts (byte search)', async () => {
    const { text } = await exportHar(`/tenants/${slug}/journal/har`);
    const bytes = Buffer.from(text);
    for (const secret of [key.apiSecret, ...signatures, CPF, EMAIL, CELULAR, '1985-03-04'])
      expect(bytes.includes(Buffer.from(secret)), secret).toBe(false);
    // The gateway's own JSON escapes aside, the journal's values are there: the export is not empty of meaning.
    expect(text).toContain('Maria Exportada');
  });

  it('exports a filter: since a request id, a method, a path template; the export is journaled as journal.har', async () => {
    const res = await exportHar(
      `/tenants/${slug}/journal/har?since=${requestIds[0]}&method=GET&path=/v1/pacientes/:id`,
      viewer,
    );
    expect(res.status).toBe(200);
    const har = JSON.parse(res.text);
    expect(har.log.entries.map((e: any) => e._requestId)).toEqual([requestIds[2]]);
    expect(har.log._filter).toEqual({ since: requestIds[0], method: 'GET', path: '/v1/pacientes/:id' });
    const [row] = await gatewayRows(
      stack,
      "SELECT * FROM audit_log WHERE source = 'console' AND path LIKE ? ORDER BY id DESC LIMIT 1",
      `/admin/api/tenants/${slug}/journal/har%`,
    );
    expect(row).toMatchObject({ status: 200, tenant_slug: slug });
    expect(JSON.parse(row.detail)).toMatchObject({ action: 'journal.har', entries: 1, truncated: false });
  });

  it('the automation twin answers the same HAR for a token allowed on the clinic, 403 for another', async () => {
    const issue = async (tenants: string[]) =>
      (await admin.call('POST', '/admin/api/operator-tokens', { label: `har ${tenants}`, tenants })).body.data.token;
    const allowed = await issue([slug]);
    const other = await issue([stack.tenantSlug]);
    const get = (token: string) =>
      request(`${stack.gatewayUrl}/admin/api/automation/tenants/${slug}/journal/har?limit=2`, {
        headers: { authorization: `Bearer ${token}` },
      });
    const ok = await get(allowed);
    expect(ok.statusCode).toBe(200);
    const har = (await ok.body.json()) as any;
    expect(har.log.entries.map((e: any) => e._requestId)).toEqual(requestIds.slice(0, 2));
    expect(har.log._truncated).toBe(true);
    const refused = await get(other);
    expect(refused.statusCode).toBe(403);
    expect(((await refused.body.json()) as any).error.code).toBe('ADMIN_FORBIDDEN');
  });
});
