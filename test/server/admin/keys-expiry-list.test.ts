import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { ensureOperator } from '../../../server/operators/index.ts';
import { ConsoleClient } from './console-client.ts';
import { checkAdminAnswer } from './admin-contract.ts';

/**
 * Issue 31 on the console API and its automation twins: keys created with `expires_at` or `expires_in_days`, changed
 * or cleared with PATCH, rotation keeping it, views carrying `expires_at` and `expired`, validation naming the field;
 * the keys list's search, filters and paging (`meta.total`). SQLite and PostgreSQL (test/server/admin/**).
 */
const DAY_MS = 86_400_000;
const PASSWORD = 'keys-expiry-password';
const SLUG = 'clinica-chaves';
let stack: TestStack;
let client: ConsoleClient;

beforeAll(async () => {
  stack = await startTestStack();
  await stack.createTenant(SLUG);
  await stack.createTenant('clinica-outra');
  await ensureOperator(stack.gatewayDb.db, 'operador', PASSWORD);
  client = new ConsoleClient(stack.gatewayUrl);
  expect((await client.login('operador', PASSWORD)).status).toBe(200);
});
afterAll(async () => stack?.stop());

const issue = (body: Record<string, unknown>, slug = SLUG) =>
  client.call('POST', `/admin/api/tenants/${slug}/keys`, { scopes: ['pacientes:read'], ...body });

describe('expiry on the console API', () => {
  it('expires_in_days and expires_at set it (appliance clock); none: null; the view says expired or not', async () => {
    const before = stack.clock.now();
    const inDays = await issue({ label: 'piloto', expires_in_days: 14 });
    expect(inDays.status, inDays.text).toBe(201);
    const at = Date.parse(inDays.body.data.key.expires_at);
    expect(at).toBeGreaterThanOrEqual(before + 14 * DAY_MS);
    expect(at).toBeLessThanOrEqual(stack.clock.now() + 14 * DAY_MS);
    expect(inDays.body.data.key.expired).toBe(false);

    const exact = new Date(stack.clock.now() + 60 * DAY_MS).toISOString();
    const onDate = await issue({ expires_at: exact });
    expect(onDate.status).toBe(201);
    expect(onDate.body.data.key.expires_at).toBe(exact);

    const never = await issue({});
    expect(never.body.data.key).toMatchObject({ expires_at: null, expired: false });
    const fetched = await client.call('GET', `/admin/api/keys/${onDate.body.data.chave_id}`);
    expect(fetched.body.data.expires_at).toBe(exact);
  });

  it('400 VAL_INVALID_PARAM naming the field: past, > 5 years, not ISO 8601, both, days out of range', async () => {
    const now = stack.clock.now();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ expires_at: new Date(now - 60_000).toISOString() }, 'expires_at'],
      [{ expires_at: new Date(now + 1830 * DAY_MS).toISOString() }, 'expires_at'],
      [{ expires_at: '31/01/2030' }, 'expires_at'],
      [{ expires_at: '2030-01-31T18:00:00' }, 'expires_at'],
      [{ expires_at: new Date(now + DAY_MS).toISOString(), expires_in_days: 3 }, 'expires_in_days'],
      [{ expires_in_days: 0 }, 'expires_in_days'],
      [{ expires_in_days: 1826 }, 'expires_in_days'],
      [{ expires_in_days: 1.5 }, 'expires_in_days'],
      [{ expires_in_days: '7' }, 'expires_in_days'],
    ];
    const count = async () => (await client.call('GET', `/admin/api/tenants/${SLUG}/keys`)).body.data.length;
    const keysBefore = await count();
    for (const [body, field] of cases) {
      const res = await issue(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error?.code).toBe('VAL_INVALID_PARAM');
      expect(res.body.error?.details.field, JSON.stringify(body)).toBe(field);
    }
    expect(await count()).toBe(keysBefore);
  });

  it('PATCH changes and clears it (null), or sets it in days; rotation keeps it', async () => {
    const created = await issue({ expires_in_days: 10 });
    const id = created.body.data.chave_id;
    const later = new Date(stack.clock.now() + 100 * DAY_MS).toISOString();
    const changed = await client.call('PATCH', `/admin/api/keys/${id}`, { expires_at: later });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.data.expires_at).toBe(later);
    const rotated = await client.call('POST', `/admin/api/keys/${id}/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.key.expires_at).toBe(later);
    const works = await stack.call(
      { path: '/v1/ping' },
      { apiKey: rotated.body.data.api_key, apiSecret: rotated.body.data.api_secret },
    );
    expect(works.status).toBe(200);
    const cleared = await client.call('PATCH', `/admin/api/keys/${id}`, { expires_at: null });
    expect(cleared.body.data).toMatchObject({ expires_at: null, expired: false });
    const past = await client.call('PATCH', `/admin/api/keys/${id}`, { expires_at: '2001-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    expect(past.body.error?.details.field).toBe('expires_at');
    const inDays = await client.call('PATCH', `/admin/api/keys/${id}`, { expires_in_days: 5 });
    expect(Date.parse(inDays.body.data.expires_at)).toBeGreaterThan(stack.clock.now() + 4 * DAY_MS);
  });
});

describe('the keys list: search, filters, paging', () => {
  const slug = 'clinica-muitas';
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    await stack.createTenant(slug);
    const make = async (name: string, body: Record<string, unknown>) => {
      const res = await issue({ label: name, ...body }, slug);
      expect(res.status, res.text).toBe(201);
      ids[name] = res.body.data.chave_id;
    };
    for (let i = 1; i <= 40; i++)
      await make(`Integrador ${String(i).padStart(2, '0')}`, { scopes: ['pacientes:read'] });
    await make('Laboratorio Norte', { scopes: ['exames:read', 'laudos:read'] });
    await make('Piloto curto', { scopes: ['exames:read'], expires_in_days: 3 });
    await make('Contrato anual', { scopes: ['exames:read'], expires_in_days: 300 });
    await make('Antiga', { scopes: ['exames:read'] });
    expect((await client.call('POST', `/admin/api/keys/${ids.Antiga}/revoke`)).status).toBe(200);
  });

  const list = async (query: string) => {
    const res = await client.call('GET', `/admin/api/tenants/${slug}/keys${query}`);
    expect(res.status, res.text).toBe(200);
    return { ids: (res.body.data as Array<{ id: number }>).map((k) => k.id), meta: res.body.meta };
  };

  it('without parameters: every key, as before (the array), meta.total counting them', async () => {
    const all = await list('');
    expect(all.ids).toHaveLength(44);
    expect(all.meta).toMatchObject({ total: 44, limit: null, offset: 0 });
  });

  it('limit and offset page by id; meta.total counts every match', async () => {
    const first = await list('?limit=20');
    const second = await list('?limit=20&offset=20');
    const third = await list('?limit=20&offset=40');
    expect(first.ids).toHaveLength(20);
    expect(second.ids).toHaveLength(20);
    expect(third.ids).toHaveLength(4);
    expect([...first.ids, ...second.ids, ...third.ids]).toEqual((await list('')).ids);
    expect(second.meta).toMatchObject({ total: 44, limit: 20, offset: 20 });
    const bad = await client.call('GET', `/admin/api/tenants/${slug}/keys?limit=0`);
    expect(bad.status).toBe(400);
    expect(bad.body.error?.details.field).toBe('limit');
  });

  it('q: label (any case), key prefix, #id', async () => {
    expect((await list('?q=NORTE')).ids).toEqual([ids['Laboratorio Norte']]);
    const full = (await client.call('GET', `/admin/api/keys/${ids['Piloto curto']}/api-key`)).body.data.api_key;
    expect((await list(`?q=${encodeURIComponent(full.slice(0, 14))}`)).ids).toEqual([ids['Piloto curto']]);
    expect((await list(`?q=%23${ids['Contrato anual']}`)).ids).toEqual([ids['Contrato anual']]);
    const page = await list('?q=integrador&limit=5&offset=35');
    expect(page.ids).toHaveLength(5);
    expect(page.meta.total).toBe(40);
    // `%` and `_` are searched as themselves.
    expect((await list('?q=%25')).ids).toEqual([]);
  });

  it("q: the bound doctor's name (any case, any accents) or id", async () => {
    const writer = await stack.newKey({ tenant: slug });
    const doctor = await stack.call(
      {
        method: 'POST',
        path: '/v1/medicos',
        body: { nome: 'Doutora Conceição Ribeiro', usuario: 'dra.conceicao', senha: 'Senha@123' },
        idempotencyKey: `medico-${Date.now()}`,
      },
      writer,
    );
    expect(doctor.status, JSON.stringify(doctor.body)).toBe(201);
    const bound = await issue({ label: 'consultorio', medico_id: doctor.body.data.id }, slug);
    expect(bound.status, bound.text).toBe(201);
    expect((await list('?q=conceicao')).ids).toEqual([bound.body.data.chave_id]);
    expect((await list(`?q=${doctor.body.data.id}`)).ids).toContain(bound.body.data.chave_id);
    expect((await client.call('POST', `/admin/api/keys/${bound.body.data.chave_id}/revoke`)).status).toBe(200);
    expect((await client.call('POST', `/admin/api/keys/${writer.chaveId}/revoke`)).status).toBe(200);
  });

  it('scope, status (active, expired, revoked, current), expiring', async () => {
    expect((await list('?scope=laudos:read&status=current')).ids).toEqual([ids['Laboratorio Norte']]);
    expect((await list('?status=revoked')).ids[0]).toBe(ids.Antiga);
    expect((await list('?status=current')).meta.total).toBe(43);
    expect((await list('?expiring=7')).ids).toEqual([ids['Piloto curto']]);
    expect((await list('?scope=exames:read&expiring=365')).ids).toEqual([ids['Piloto curto'], ids['Contrato anual']]);
    expect((await list('?status=expired')).ids).toEqual([]);
    const bad = await client.call('GET', `/admin/api/tenants/${slug}/keys?status=vencida`);
    expect(bad.status).toBe(400);
    expect(bad.body.error?.details.field).toBe('status');
  });

  it('the automation twins: an operator token on the clinic lists, issues with an expiry and changes it', async () => {
    const tokenRes = await client.call('POST', '/admin/api/operator-tokens', { label: 'ci', tenants: [slug] });
    expect(tokenRes.status, tokenRes.text).toBe(201);
    const token = tokenRes.body.data.token as string;
    const automation = async (method: string, path: string, body?: unknown) => {
      const res = await request(`${stack.gatewayUrl}/admin/api/automation${path}`, {
        method: method as 'GET',
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const parsed = (await res.body.json()) as any;
      if (res.statusCode < 300) checkAdminAnswer(method, `/automation${path}`, parsed.data);
      return { status: res.statusCode, body: parsed };
    };
    const listed = await automation('GET', `/tenants/${slug}/keys?expiring=7`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((k: { id: number }) => k.id)).toEqual([ids['Piloto curto']]);
    expect(listed.body.meta.total).toBe(1);
    const created = await automation('POST', `/tenants/${slug}/keys`, { scopes: ['exames:read'], expires_in_days: 2 });
    expect(created.status).toBe(201);
    expect(created.body.data.key.expires_at).not.toBeNull();
    const cleared = await automation('PATCH', `/keys/${created.body.data.chave_id}`, { expires_at: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data.expires_at).toBeNull();
    // Another clinic's keys: refused, like every automation route outside the token's clinics.
    expect((await automation('GET', '/tenants/clinica-outra/keys')).status).toBe(403);
    const other = await stack.keys.create({ tenantSlug: 'clinica-outra', scopes: ['exames:read'] });
    expect((await automation('PATCH', `/keys/${other.chave_id}`, { expires_in_days: 1 })).status).toBe(403);
    expect((await stack.keys.get(other.chave_id)).expires_at).toBeNull();
    // A key that does not exist answers the same 403: the token learns nothing of other clinics' key ids.
    expect((await automation('PATCH', '/keys/999999', { expires_in_days: 1 })).status).toBe(403);
  });

  it('the automation twins of rotate and revoke: a new secret that signs, the old one refused, the key revoked; other clinics 403; journaled via the token', async () => {
    const tokenRes = await client.call('POST', '/admin/api/operator-tokens', { label: 'ci-rotate', tenants: [slug] });
    expect(tokenRes.status, tokenRes.text).toBe(201);
    const automation = async (path: string) => {
      const res = await request(`${stack.gatewayUrl}/admin/api/automation${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokenRes.body.data.token}` },
      });
      const parsed = (await res.body.json()) as any;
      if (res.statusCode < 300) checkAdminAnswer('POST', `/automation${path}`, parsed.data);
      return { status: res.statusCode, body: parsed };
    };
    const issued = await stack.keys.create({ tenantSlug: slug, scopes: ['pacientes:read'] });
    const rotated = await automation(`/keys/${issued.chave_id}/rotate`);
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expect(rotated.body.data.api_secret).not.toBe(issued.api_secret);
    expect(rotated.body.data.key.id).toBe(issued.chave_id);
    const creds = (apiSecret: string) => ({ apiKey: issued.api_key, apiSecret });
    expect((await stack.call({ path: '/v1/ping' }, creds(issued.api_secret))).body.error?.code).toBe(
      'AUTH_INVALID_SIGNATURE',
    );
    expect((await stack.call({ path: '/v1/ping' }, creds(rotated.body.data.api_secret))).status).toBe(200);

    const revoked = await automation(`/keys/${issued.chave_id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.status).toBe('revoked');
    expect((await stack.call({ path: '/v1/ping' }, creds(rotated.body.data.api_secret))).body.error?.code).toBe(
      'AUTH_KEY_REVOKED',
    );

    // Another clinic's key, and one that does not exist: 403, and the other clinic's key is untouched.
    const other = await stack.keys.create({ tenantSlug: 'clinica-outra', scopes: ['exames:read'] });
    expect((await automation(`/keys/${other.chave_id}/rotate`)).status).toBe(403);
    expect((await automation(`/keys/${other.chave_id}/revoke`)).status).toBe(403);
    expect((await automation('/keys/999999/revoke')).status).toBe(403);
    expect((await stack.keys.get(other.chave_id)).status).toBe('active');
    expect(
      (await stack.call({ path: '/v1/ping' }, { apiKey: other.api_key, apiSecret: other.api_secret })).status,
    ).toBe(200);

    (stack.app as any).auditWriter.flush();
    const rows = await stack.gatewayDb.db
      .selectFrom('audit_log')
      .selectAll()
      .where('source', '=', 'console')
      .where('chave_id', '=', issued.chave_id)
      .orderBy('id')
      .execute();
    const details = rows.map((r) => JSON.parse(r.detail!));
    expect(details.map((d) => d.action)).toEqual(['key.rotate', 'key.revoke']);
    for (const d of details) expect(d).toMatchObject({ via: 'operator_token', token_id: tokenRes.body.data.id });
    for (const row of rows) expect(JSON.stringify(row)).not.toContain(rotated.body.data.api_secret);
  });
});
