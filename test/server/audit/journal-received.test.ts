import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { nowSeconds, signedRequest } from '../../helpers/signed-client.ts';
import { signedInOperator, type ConsoleClient } from '../admin/console-client.ts';
import { RECEIVED_MAX_LIMIT } from '../../../contracts/admin/journal.ts';

/**
 * Issue 30 § 4: what the gateway received for one clinic, through the console API and its automation twin, on
 * real signed traffic: the filters, `since` by time and by request id, and the near misses for each refusal kind
 * the journal records (auth, validation, idempotency, rate limit, backend fault, another clinic, no clinic).
 */

const PASSWORD = 'received-password';
/** Low enough that a test can hit it with a few calls of one key; every other test uses fresh keys. */
const RATE_LIMIT = 8;
let stack: TestStack;
let admin: ConsoleClient;
let viewer: ConsoleClient;
let clinicSeq = 0;

beforeAll(async () => {
  stack = await startTestStack({ RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT) });
  admin = await signedInOperator(stack, 'operador', PASSWORD);
  viewer = await signedInOperator(stack, 'leitor', PASSWORD, 'viewer');
});
afterAll(async () => stack?.stop());

/** A clinic of the test's own, so its journal holds only the test's calls, and a key with every scope on it. */
async function clinic(prefix = 'rx') {
  const slug = `${prefix}-${++clinicSeq}`;
  await stack.createTenant(slug);
  return { slug, key: await stack.newKey({ tenant: slug }) };
}

const query = (q: Record<string, string | number | undefined>) =>
  new URLSearchParams(
    Object.entries(q)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, String(v)]),
  ).toString();

const received = (slug: string, q: Record<string, string | number | undefined> = {}, client = admin) =>
  client.call('GET', `/admin/api/tenants/${slug}/journal/received?${query(q)}`);

async function automation(token: string | null, path: string) {
  const res = await request(`${stack.gatewayUrl}/admin/api/automation${path}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { status: res.statusCode, body: (await res.body.json()) as any };
}

const newPatient = (nome: string) => ({ nome: `Paciente ${nome}`, data_nascimento: '1990-01-01', sexo: 'FEM' });
let idem = 0;
/** A signed POST /v1/pacientes as an integrator sends it (a write: an Idempotency-Key of its own). */
const postPatient = (key: Parameters<TestStack['call']>[1], body: unknown, extra: Record<string, unknown> = {}) =>
  stack.call({ method: 'POST', path: '/v1/pacientes', body, idempotencyKey: `rx-${++idem}`, ...extra }, key);

describe('filters', () => {
  it('method, path prefix and template, status, code and key: the entries oldest first, redacted as stored', async () => {
    const { slug, key } = await clinic();
    const other = await stack.newKey({ tenant: slug });
    const created = await stack.call(
      {
        method: 'POST',
        path: '/v1/pacientes',
        body: { ...newPatient('Ana Recebida'), cpf: '52998224725' },
        idempotencyKey: 'rx-filters-1',
      },
      key,
    );
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id;
    const read = await stack.call({ path: `/v1/pacientes/${id}` }, key);
    expect(read.status).toBe(200);
    const list = await stack.call({ path: '/v1/pacientes?limit=5' }, other);
    expect(list.status).toBe(200);
    const missing = await stack.call({ path: '/v1/pacientes/999999' }, key);
    expect(missing.status).toBe(404);
    const rid = (r: { body: any }) => r.body.meta.request_id;

    const post = await received(slug, { method: 'post', path: '/v1/pacientes' });
    expect(post.status).toBe(200);
    expect(post.body.data.entries.map((e: any) => e.request_id)).toEqual([rid(created)]);
    const entry = post.body.data.entries[0];
    expect(entry).toMatchObject({ method: 'POST', path: '/v1/pacientes', status: 201, chave_id: key.chaveId });
    // As the journal stores it: the CPF redacted, the name kept, no signature among the headers.
    expect(entry.body).toMatchObject({ nome: 'Paciente Ana Recebida', cpf: '[REDACTED]' });
    expect(entry.request_headers['idempotency-key']).toBe('rx-filters-1');
    expect(JSON.stringify(post.body)).not.toContain('52998224725');
    expect(post.body.data.near_misses).toEqual([]);
    expect(post.body.data.window).toMatchObject({ max_entries: 20_000, capped: false });

    // A prefix ends at a segment boundary, in arrival order.
    const prefix = await received(slug, { path: '/v1/pacientes' });
    expect(prefix.body.data.entries.map((e: any) => e.request_id)).toEqual([
      rid(created),
      rid(read),
      rid(list),
      rid(missing),
    ]);
    expect((await received(slug, { path: '/v1/pac' })).body.data.entries).toEqual([]);
    // A template: one segment per :param, the query aside.
    const template = await received(slug, { method: 'GET', path: '/v1/pacientes/:id' });
    expect(template.body.data.entries.map((e: any) => e.request_id)).toEqual([rid(read), rid(missing)]);
    expect((await received(slug, { path: '/v1/pacientes/:id', status: 200 })).body.data.entries).toHaveLength(1);
    expect((await received(slug, { status: '2xx' })).body.data.entries).toHaveLength(3);
    expect(
      (await received(slug, { status: '4xx', code: 'RES_NOT_FOUND' })).body.data.entries.map((e: any) => e.request_id),
    ).toEqual([rid(missing)]);
    expect((await received(slug, { chave_id: other.chaveId })).body.data.entries.map((e: any) => e.request_id)).toEqual(
      [rid(list)],
    );
    // The viewer reads the same answer.
    expect((await received(slug, { method: 'POST' }, viewer)).body.data.entries).toHaveLength(1);
  });

  it('since a request id (exclusive) and since a time; limit pages with since = the last entry', async () => {
    const { slug, key } = await clinic();
    const first = await stack.call({ path: '/v1/ping' }, key);
    await new Promise((r) => setTimeout(r, 20));
    const middle = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    const second = await stack.call({ path: '/v1/ping' }, key);
    const third = await stack.call({ path: '/v1/ping' }, key);
    const ids = [first, second, third].map((r) => r.body.meta.request_id);

    const afterFirst = await received(slug, { since: ids[0] });
    expect(afterFirst.body.data.entries.map((e: any) => e.request_id)).toEqual([ids[1], ids[2]]);
    const byTime = await received(slug, { since: middle });
    expect(byTime.body.data.entries.map((e: any) => e.request_id)).toEqual([ids[1], ids[2]]);
    const untilSecond = await received(slug, { until: ids[1] });
    expect(untilSecond.body.data.entries.map((e: any) => e.request_id)).toEqual([ids[0], ids[1]]);

    const page1 = await received(slug, { path: '/v1/ping', limit: 2 });
    expect(page1.body.data).toMatchObject({ truncated: true });
    expect(page1.body.data.entries.map((e: any) => e.request_id)).toEqual([ids[0], ids[1]]);
    const page2 = await received(slug, { path: '/v1/ping', limit: 2, since: ids[1] });
    expect(page2.body.data).toMatchObject({ truncated: false });
    expect(page2.body.data.entries.map((e: any) => e.request_id)).toEqual([ids[2]]);
  });

  it('refuses what it cannot answer exactly: an unknown filter, a bad since, an unknown request id, a limit past the cap', async () => {
    const { slug } = await clinic();
    const cases: Array<[Record<string, string | number>, string]> = [
      [{ metodo: 'GET' }, 'metodo'],
      [{ since: 'yesterday' }, 'since'],
      [{ since: '0190000000000000deadbeef' }, 'since'],
      [{ status: '20' }, 'status'],
      [{ path: 'v1/pacientes' }, 'path'],
      [{ limit: RECEIVED_MAX_LIMIT + 1 }, 'limit'],
    ];
    for (const [q, field] of cases) {
      const res = await received(slug, q);
      expect(res.status, JSON.stringify(q)).toBe(400);
      expect(res.body.error?.code).toBe('VAL_INVALID_PARAM');
      expect(res.body.error?.details.field).toBe(field);
    }
    const unknown = await received('no-such-clinic');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error?.code).toBe('RES_NOT_FOUND');
  });
});

/** The test's expectation: a created patient (POST /v1/pacientes answered 201). */
const EXPECTED = { method: 'POST', path: '/v1/pacientes', status: 201 };

async function nearMissesOf(slug: string, q: Record<string, string | number> = EXPECTED) {
  const res = await received(slug, q);
  expect(res.status).toBe(200);
  expect(res.body.data.entries).toEqual([]);
  return res.body.data.near_misses as Array<{
    entry: any;
    differs: string[];
    reason: string;
    count: number;
    group: { count: number } | null;
  }>;
}

describe('near misses: nothing matched, the closest entries say why', () => {
  const refusals: Array<[string, number, string, (c: Awaited<ReturnType<typeof clinic>>) => Promise<unknown>, RegExp]> =
    [
      [
        'bad signature',
        401,
        'AUTH_INVALID_SIGNATURE',
        ({ key }) => postPatient(key, newPatient('X'), { signature: 'a'.repeat(64) }),
        /signature did not match.*never verified/,
      ],
      [
        'expired timestamp',
        401,
        'AUTH_TIMESTAMP_EXPIRED',
        ({ key }) => postPatient(key, newPatient('X'), { timestamp: nowSeconds() - 301 }),
        /300 s away/,
      ],
      [
        'missing scope',
        403,
        'AUTH_INSUFFICIENT_SCOPE',
        async ({ slug }) => {
          const reader = await stack.newKey({ tenant: slug, scopes: ['pacientes:read'] });
          return postPatient(reader, newPatient('X'));
        },
        /lacks the scope/,
      ],
      [
        'revoked key',
        401,
        'AUTH_KEY_REVOKED',
        async ({ slug }) => {
          const revoked = await stack.newKey({ tenant: slug });
          await stack.keys.revoke(revoked.chaveId);
          return postPatient(revoked, newPatient('X'));
        },
        /revoked/,
      ],
      [
        'expired key',
        401,
        'AUTH_KEY_REVOKED',
        async ({ slug }) => {
          const expiring = await stack.newKey({ tenant: slug });
          // Past its expiry: set behind the service's back, as plain SQL or another instance would.
          await stack.database.db
            .updateTable('api_keys')
            .set({ expires_at: new Date(Date.now() - 60_000).toISOString() })
            .where('id', '=', expiring.chaveId)
            .execute();
          stack.keys.invalidate();
          return postPatient(expiring, newPatient('X'));
        },
        /the key expired \(at \d{4}-\d\d-\d\dT[\d:.]+Z\)/,
      ],
      [
        'validation',
        400,
        'VAL_INVALID_PARAM',
        ({ key }) => postPatient(key, { nome: '' }),
        /failed validation; the gateway said: "/,
      ],
      [
        'idempotency conflict',
        422,
        'IDEMPOTENCY_CONFLICT',
        async ({ key, slug }) => {
          const first = await stack.call(
            { method: 'POST', path: '/v1/pacientes', body: newPatient('Primeira'), idempotencyKey: `conf-${slug}` },
            key,
          );
          expect(first.status).toBe(201);
          // Answered 201 is what the test expects; the first call is moved out of the way by `since`.
          return stack.call(
            { method: 'POST', path: '/v1/pacientes', body: newPatient('Segunda'), idempotencyKey: `conf-${slug}` },
            key,
          );
        },
        /Idempotency-Key "conf-rx-\d+" was used with another body/,
      ],
      [
        'rate limit',
        429,
        'RATE_LIMIT_EXCEEDED',
        async ({ slug }) => {
          const busy = await stack.newKey({ tenant: slug });
          let last: { status: number } = { status: 0 };
          for (let i = 0; i <= RATE_LIMIT && last.status !== 429; i++) last = await postPatient(busy, { nome: '' });
          expect(last.status).toBe(429);
          return last;
        },
        /rate limit was exceeded/,
      ],
      [
        'backend fault',
        503,
        'SERVICE_UNAVAILABLE',
        async ({ slug, key }) => {
          const fault = await admin.call('POST', '/admin/api/faults', {
            tenant: slug,
            method: 'POST',
            path: '/v1/pacientes',
            kind: 'http500',
          });
          expect(fault.status, fault.text).toBe(201);
          try {
            return await postPatient(key, newPatient('X'));
          } finally {
            expect((await admin.call('DELETE', `/admin/api/faults/${fault.body.data.id}`)).status).toBe(200);
          }
        },
        /backend .*unavailable/,
      ],
    ];

  for (const [name, status, code, send, meaning] of refusals) {
    it(`${name}: the same call, answered ${status} ${code}, with what it means and the gateway's message`, async () => {
      const c = await clinic();
      const before = (await stack.call({ path: '/v1/ping' }, c.key)).body.meta.request_id;
      if (code === 'IDEMPOTENCY_CONFLICT') {
        await send(c);
        // The first (201) call matches: look after it.
        const rows = (await received(c.slug, { method: 'POST', status: 201 })).body.data.entries;
        const misses = await nearMissesOf(c.slug, { ...EXPECTED, since: rows[0].request_id });
        expect(misses[0]).toMatchObject({ differs: ['status'], entry: { status, error_code: code } });
        expect(misses[0].reason).toMatch(meaning);
        return;
      }
      const res = (await send(c)) as { status: number; body: any };
      expect(res.status).toBe(status);
      expect(res.body.error.code).toBe(code);
      const misses = await nearMissesOf(c.slug, { ...EXPECTED, since: before });
      expect(misses.length).toBeGreaterThan(0);
      expect(misses[0]).toMatchObject({
        differs: ['status'],
        entry: {
          method: 'POST',
          path: '/v1/pacientes',
          status,
          error_code: code,
          request_id: res.body.meta.request_id,
        },
        group: null,
      });
      expect(misses[0].reason).toContain(`answered ${status} ${code}`);
      expect(misses[0].reason).toMatch(meaning);
      expect(misses[0].reason).toContain('(expected 201)');
      // The journal's message as the integrator got it.
      expect(misses[0].reason).toContain(res.body.error.message);
    });
  }

  it('the same path with another verb, and the same verb on a path a typo away', async () => {
    const c = await clinic();
    const list = await stack.call({ path: '/v1/pacientes' }, c.key);
    expect(list.status).toBe(200);
    const typo = await stack.call(
      { method: 'POST', path: '/v1/paciente', body: newPatient('X'), idempotencyKey: 'rx-typo' },
      c.key,
    );
    expect(typo.status).toBe(404);
    await stack.call({ path: '/v1/ping' }, c.key);
    const misses = await nearMissesOf(c.slug);
    const byRequest = Object.fromEntries(misses.map((m) => [m.entry.request_id, m]));
    expect(byRequest[list.body.meta.request_id]).toMatchObject({ differs: ['method', 'status'] });
    expect(byRequest[list.body.meta.request_id].reason).toContain('received as GET, not POST');
    expect(byRequest[typo.body.meta.request_id]).toMatchObject({ differs: ['path', 'status'] });
    expect(byRequest[typo.body.meta.request_id].reason).toContain('sent to /v1/paciente, not /v1/pacientes');
    // /v1/ping is another call: not a near miss.
    expect(misses.map((m) => m.entry.path)).not.toContain('/v1/ping');
    // Closest first: the typo (same verb) costs less than another verb.
    expect(misses[0].entry.request_id, JSON.stringify(misses, null, 1)).toBe(typo.body.meta.request_id);
  });

  it('another key of the clinic, and alike entries counted as one', async () => {
    const c = await clinic();
    const other = await stack.newKey({ tenant: c.slug });
    for (let i = 0; i < 3; i++) expect((await postPatient(other, newPatient(`K${i}`))).status).toBe(201);
    const all = await nearMissesOf(c.slug, { ...EXPECTED, chave_id: c.key.chaveId });
    // Besides the clinic's own, at most one of another clinic (other tests' calls here).
    const misses = all.filter((m) => !m.differs.includes('clinic'));
    expect(all.length - misses.length).toBeLessThanOrEqual(1);
    expect(misses).toHaveLength(1);
    expect(misses[0]).toMatchObject({ differs: ['key'], count: 3, entry: { chave_id: other.chaveId } });
    expect(misses[0].reason).toContain(`under key ${other.chaveId}, not ${c.key.chaveId}`);
  });

  it("the same call under another clinic's key: a near miss for an operator and for a token allowed on both, not for a token of this clinic alone", async () => {
    const a = await clinic();
    const b = await clinic();
    const sent = await postPatient(b.key, newPatient('Outra'));
    expect(sent.status).toBe(201);
    const misses = await nearMissesOf(a.slug);
    expect(misses[0]).toMatchObject({
      differs: ['clinic'],
      entry: { tenant_slug: b.slug, request_id: sent.body.meta.request_id },
    });
    expect(misses[0].reason).toContain(`received by clinic "${b.slug}" (key ${b.key.chaveId}), not "${a.slug}"`);

    const both = await tokenFor([a.slug, b.slug]);
    const own = await tokenFor([a.slug]);
    const q = `/tenants/${a.slug}/journal/received?${query(EXPECTED)}`;
    const viaBoth = await automation(both, q);
    expect(viaBoth.status).toBe(200);
    expect(viaBoth.body.data.near_misses.map((m: any) => m.entry.request_id)).toContain(sent.body.meta.request_id);
    const viaOwn = await automation(own, q);
    expect(viaOwn.status).toBe(200);
    expect(viaOwn.body.data.near_misses).toEqual([]);
  });

  it('an unknown key: the unattributed group of the same call, for an operator and for a token on the same address only', async () => {
    const c = await clinic();
    const ghost = { apiKey: `ce_live_${'9'.repeat(32)}`, apiSecret: 'x'.repeat(64) };
    const sent = await postPatient(ghost, newPatient('Fantasma'));
    expect(sent.status).toBe(401);
    const code = sent.body.error.code;
    expect(['AUTH_KEY_NOT_FOUND', 'AUTH_INVALID_API_KEY_FORMAT']).toContain(code);
    const misses = await nearMissesOf(c.slug);
    const miss = misses.find((m) => m.group !== null);
    expect(miss).toMatchObject({
      differs: ['status', 'clinic'],
      entry: { status: 401, error_code: code, chave_id: null },
    });
    expect(miss!.reason).toMatch(/reached no clinic/);

    const token = await tokenFor([c.slug]);
    const q = `/tenants/${c.slug}/journal/received?${query(EXPECTED)}`;
    const same = await automation(token, q);
    expect(same.body.data.near_misses.some((m: any) => m.group !== null)).toBe(true);
    // From another address, the token's answer holds no group of this one's.
    const elsewhere = await request(`${stack.gatewayUrl}/admin/api/automation${q}`, {
      headers: { authorization: `Bearer ${token}` },
      dispatcher: new (await import('undici')).Agent({ localAddress: '127.0.0.2' }),
    });
    const body = (await elsewhere.body.json()) as any;
    expect(elsewhere.statusCode).toBe(200);
    expect(body.data.near_misses.some((m: any) => m.group !== null)).toBe(false);
  });
});

async function tokenFor(tenants: string[] | '*'): Promise<string> {
  const res = await admin.call('POST', '/admin/api/operator-tokens', { label: `received ${tenants}`, tenants });
  expect(res.status, res.text).toBe(201);
  return res.body.data.token;
}

describe('who may ask', () => {
  it('a token allowed on the clinic reads it; one bound to another clinic is refused 403 whether it exists or not; sessions do not open the twin', async () => {
    const a = await clinic();
    const b = await clinic();
    const sent = await stack.call({ path: '/v1/ping' }, a.key);
    const token = await tokenFor([b.slug]);
    const allowed = await tokenFor([a.slug]);
    const ok = await automation(allowed, `/tenants/${a.slug}/journal/received?path=/v1/ping`);
    expect(ok.status).toBe(200);
    expect(ok.body.data.entries.map((e: any) => e.request_id)).toEqual([sent.body.meta.request_id]);
    for (const slug of [a.slug, 'no-such-clinic']) {
      const refused = await automation(token, `/tenants/${slug}/journal/received`);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('ADMIN_FORBIDDEN');
      const har = await automation(token, `/tenants/${slug}/journal/har`);
      expect(har.status).toBe(403);
    }
    expect((await automation(null, `/tenants/${a.slug}/journal/received`)).status).toBe(401);
    const session = await admin.call('GET', `/admin/api/automation/tenants/${a.slug}/journal/received`);
    expect(session.status).toBe(401);
    // A token does not open the console's route.
    const viaConsole = await request(`${stack.gatewayUrl}/admin/api/tenants/${a.slug}/journal/received`, {
      headers: { authorization: `Bearer ${allowed}` },
    });
    expect(viaConsole.statusCode).toBe(401);
    await viaConsole.body.dump();
    // Signed API traffic on another clinic's key is not this clinic's.
    const signed = await signedRequest(stack.gatewayUrl, b.key, { path: '/v1/ping' });
    expect(signed.status).toBe(200);
    expect((await received(a.slug, { path: '/v1/ping' })).body.data.entries).toHaveLength(1);
  });
});
