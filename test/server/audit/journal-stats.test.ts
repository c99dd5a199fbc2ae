import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { gatewayRows } from '../../helpers/journal.ts';
import { signedInOperator, type ConsoleClient } from '../admin/console-client.ts';
import { quantileMs, windowOf } from '../../../server/audit/journal-stats.ts';
import { LATENCY_COLUMNS, latencyBucket, rollupOf } from '../../../server/audit/journal-rollup.ts';

/**
 * Issue 31 § 3: the traffic charts' answers on real signed traffic, through the console API and its automation twin;
 * the rollup (migration 026) written with the journal's batches equals a GROUP BY over the journal itself; the prune
 * of a clinic's journal takes its rollup with it. SQLite and PostgreSQL (vitest.config.ts ON_POSTGRES).
 */

const PASSWORD = 'stats-password';
let stack: TestStack;
let admin: ConsoleClient;
let viewer: ConsoleClient;
let seq = 0;

beforeAll(async () => {
  stack = await startTestStack();
  admin = await signedInOperator(stack, 'operador', PASSWORD);
  viewer = await signedInOperator(stack, 'leitor', PASSWORD, 'viewer');
});
afterAll(async () => stack?.stop());

async function clinic() {
  const slug = `stats-${++seq}`;
  await stack.createTenant(slug);
  return { slug, a: await stack.newKey({ tenant: slug }), b: await stack.newKey({ tenant: slug }) };
}

async function tokenFor(tenants: string[] | '*'): Promise<string> {
  const res = await admin.call('POST', '/admin/api/operator-tokens', { label: `stats ${tenants}`, tenants });
  expect(res.status, res.text).toBe(201);
  return res.body.data.token;
}

async function automation(token: string, path: string) {
  const res = await request(`${stack.gatewayUrl}/admin/api/automation${path}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: res.statusCode, body: (await res.body.json()) as any };
}

/** The journal's own count of the clinic's API calls per status class and per refusal code. */
async function journalCounts(slug: string, chaveId?: number) {
  const key = chaveId === undefined ? '' : ' AND chave_id = ?';
  const params = chaveId === undefined ? [slug] : [slug, chaveId];
  const classes = await gatewayRows<{ c: number; n: number }>(
    stack,
    `SELECT status / 100 AS c, count(*) AS n FROM audit_log WHERE source = 'api' AND tenant_slug = ?${key} GROUP BY status / 100`,
    ...params,
  );
  const codes = await gatewayRows<{ code: string; n: number }>(
    stack,
    `SELECT coalesce(error_code, '') AS code, count(*) AS n FROM audit_log WHERE source = 'api' AND tenant_slug = ?${key} AND status >= 400 GROUP BY coalesce(error_code, '')`,
    ...params,
  );
  const of = (c: number) => Number(classes.find((r) => Number(r.c) === c)?.n ?? 0);
  return {
    s2xx: of(2),
    s3xx: of(3),
    s4xx: of(4),
    s5xx: of(5),
    codes: Object.fromEntries(codes.map((r) => [r.code, Number(r.n)])),
  };
}

const sum = (series: any[], field: string) => series.reduce((n, p) => n + p[field], 0);

/** Calls of each kind, with the codes their answers carried. */
async function traffic(keys: Awaited<ReturnType<typeof clinic>>) {
  const codes: string[] = [];
  for (let i = 0; i < 3; i++) expect((await stack.call({ path: '/v1/pacientes?limit=1' }, keys.a)).status).toBe(200);
  for (let i = 0; i < 2; i++) {
    const missing = await stack.call({ path: '/v1/pacientes/999999' }, keys.a);
    expect(missing.status).toBe(404);
    codes.push(missing.body.error.code);
  }
  const invalid = await stack.call({ path: '/v1/pacientes?limit=abc' }, keys.b);
  expect(invalid.status).toBe(400);
  codes.push(invalid.body.error.code);
  // A bad signature under key b: unverified, journaled under the key, counted.
  const forged = await stack.call({ path: '/v1/pacientes?limit=1' }, { ...keys.b, apiSecret: 'x'.repeat(64) });
  expect(forged.status).toBe(401);
  codes.push(forged.body.error.code);
  expect((await stack.call({ path: '/v1/pacientes?limit=1' }, keys.b)).status).toBe(200);
  return codes;
}

describe('stats of a clinic and of a key', () => {
  it('the 1h and 24h answers count exactly the signed calls by status class and refusal code', async () => {
    const c = await clinic();
    const codes = await traffic(c);
    const expectedCodes: Record<string, number> = {};
    for (const code of codes) expectedCodes[code] = (expectedCodes[code] ?? 0) + 1;
    expect(await journalCounts(c.slug)).toEqual({ s2xx: 4, s3xx: 0, s4xx: 4, s5xx: 0, codes: expectedCodes });

    for (const window of ['1h', '24h'] as const) {
      const res = await admin.call('GET', `/admin/api/tenants/${c.slug}/stats?window=${window}`);
      expect(res.status, res.text).toBe(200);
      const a = res.body.data;
      expect(a.window).toBe(window);
      expect(a.bucket_seconds).toBe(window === '1h' ? 60 : 900);
      expect(a.series).toHaveLength(window === '1h' ? 60 : 96);
      expect({ s2xx: sum(a.series, 's2xx'), s4xx: sum(a.series, 's4xx'), s5xx: sum(a.series, 's5xx') }).toEqual({
        s2xx: 4,
        s4xx: 4,
        s5xx: 0,
      });
      expect(a.totals.calls).toBe(8);
      expect(a.totals.refusals).toBe(4);
      expect(Object.fromEntries(a.refusals.map((r: any) => [r.code, r.count]))).toEqual(expectedCodes);
      expect(a.totals.p50_ms).toBeGreaterThanOrEqual(0);
      expect(a.totals.p95_ms).toBeGreaterThanOrEqual(a.totals.p50_ms);
      const busy = a.series.filter((p: any) => p.s2xx + p.s4xx > 0);
      for (const p of busy) expect(p.p50_ms).not.toBeNull();
      for (const p of a.series.filter((p: any) => p.s2xx + p.s3xx + p.s4xx + p.s5xx === 0)) expect(p.p50_ms).toBeNull();
    }

    // One key: only its calls.
    const ofA = await viewer.call('GET', `/admin/api/tenants/${c.slug}/stats?window=1h&chave_id=${c.a.chaveId}`);
    expect(ofA.status, ofA.text).toBe(200);
    const journalA = await journalCounts(c.slug, c.a.chaveId);
    expect(journalA.s2xx).toBe(3);
    expect(sum(ofA.body.data.series, 's2xx')).toBe(journalA.s2xx);
    expect(sum(ofA.body.data.series, 's4xx')).toBe(journalA.s4xx);
    expect(Object.fromEntries(ofA.body.data.refusals.map((r: any) => [r.code, r.count]))).toEqual(journalA.codes);
    expect(ofA.body.data.chave_id).toBe(c.a.chaveId);

    // Sparklines: per key, its calls per minute.
    const keys = await viewer.call('GET', `/admin/api/tenants/${c.slug}/stats/keys?window=1h`);
    expect(keys.status, keys.text).toBe(200);
    const byId = Object.fromEntries(keys.body.data.map((k: any) => [k.chave_id, k]));
    expect(byId[c.a.chaveId]).toMatchObject({ calls: 5, refusals: 2 });
    expect(byId[c.b.chaveId]).toMatchObject({ calls: 3, refusals: 2 });
    expect(byId[c.a.chaveId].points).toHaveLength(60);
    expect(byId[c.a.chaveId].points.reduce((n: number, v: number) => n + v, 0)).toBe(5);
  });

  it('another clinic, a key of another clinic, a mistyped window: 404, 404, 400', async () => {
    const c = await clinic();
    const other = await clinic();
    expect((await admin.call('GET', '/admin/api/tenants/nao-existe/stats')).status).toBe(404);
    expect((await admin.call('GET', `/admin/api/tenants/${c.slug}/stats?chave_id=${other.a.chaveId}`)).status).toBe(
      404,
    );
    const bad = await admin.call('GET', `/admin/api/tenants/${c.slug}/stats?window=7d`);
    expect(bad.status).toBe(400);
    expect((await admin.call('GET', `/admin/api/tenants/${c.slug}/stats?janela=1h`)).status).toBe(400);
  });

  it('the automation twins answer the same to a token on the clinic, 403 to a token of another clinic', async () => {
    const c = await clinic();
    const other = await clinic();
    await traffic(c);
    const own = await tokenFor([c.slug]);
    const foreign = await tokenFor([other.slug]);
    const viaToken = await automation(own, `/tenants/${c.slug}/stats?window=1h`);
    expect(viaToken.status).toBe(200);
    const viaSession = await admin.call('GET', `/admin/api/tenants/${c.slug}/stats?window=1h`);
    expect(viaToken.body.data.totals).toEqual(viaSession.body.data.totals);
    expect(viaToken.body.data.refusals).toEqual(viaSession.body.data.refusals);
    expect((await automation(own, `/tenants/${c.slug}/stats/keys`)).status).toBe(200);
    expect((await automation(foreign, `/tenants/${c.slug}/stats`)).status).toBe(403);
    expect((await automation(foreign, `/tenants/${c.slug}/stats/keys`)).status).toBe(403);
    // A session does not open the twin.
    expect((await admin.call('GET', `/admin/api/automation/tenants/${c.slug}/stats`)).status).toBe(401);
  });
});

describe('the rollup', () => {
  it('equals a GROUP BY over audit_log per clinic, key and minute (status classes, latency buckets, codes)', async () => {
    const c = await clinic();
    await traffic(c);
    // A write: its answer is a companion of the batch (PostgreSQL's transaction path, not the one-statement one).
    const created = await stack.call(
      {
        method: 'POST',
        path: '/v1/pacientes',
        body: { nome: 'Paciente Rollup', data_nascimento: '1990-01-01', sexo: 'FEM' },
        idempotencyKey: `stats-rollup-${seq}`,
      },
      c.a,
    );
    expect(created.status, created.text).toBe(201);
    const entries = await gatewayRows(
      stack,
      `SELECT source, tenant_id, chave_id, ts, status, error_code, duracao_ms FROM audit_log WHERE source = 'api' AND tenant_id IS NOT NULL`,
    );
    const expected = rollupOf(entries.map((e) => ({ ...e, tenant_id: Number(e.tenant_id) }) as any));
    const minutes = await gatewayRows(stack, `SELECT * FROM journal_minutes ORDER BY tenant_id, chave_id, minute`);
    expect(
      minutes.map((r) => [
        Number(r.tenant_id),
        Number(r.chave_id),
        r.minute,
        ...['calls', 's2xx', 's3xx', 's4xx', 's5xx', ...LATENCY_COLUMNS].map((k) => Number(r[k])),
      ]),
    ).toEqual(expected.minutes);
    // Sorted here: PostgreSQL's default collation orders codes unlike SQLite's bytes.
    const codes = await gatewayRows(stack, 'SELECT * FROM journal_minute_codes');
    const byKey = (a: unknown[], b: unknown[]) => (a.join('|') < b.join('|') ? -1 : 1);
    expect(
      codes.map((r) => [Number(r.tenant_id), Number(r.chave_id), r.minute, r.code, Number(r.count)]).sort(byKey),
    ).toEqual([...expected.codes].sort(byKey));
    // The same by SQL alone: calls per clinic, key and minute, and per clinic and minute (its own row, chave_id -1).
    const clinicRows = await gatewayRows<{ t: number; m: string; n: number }>(
      stack,
      `SELECT tenant_id AS t, substr(ts, 1, 16) AS m, count(*) AS n FROM audit_log
       WHERE source = 'api' AND tenant_id IS NOT NULL GROUP BY tenant_id, substr(ts, 1, 16) ORDER BY tenant_id, substr(ts, 1, 16)`,
    );
    expect(clinicRows.map((g) => [Number(g.t), g.m, Number(g.n)])).toEqual(
      minutes.filter((r) => Number(r.chave_id) === -1).map((r) => [Number(r.tenant_id), r.minute, Number(r.calls)]),
    );
    const grouped = await gatewayRows<{ t: number; k: number; m: string; n: number }>(
      stack,
      `SELECT tenant_id AS t, coalesce(chave_id, 0) AS k, substr(ts, 1, 16) AS m, count(*) AS n FROM audit_log
       WHERE source = 'api' AND tenant_id IS NOT NULL GROUP BY tenant_id, coalesce(chave_id, 0), substr(ts, 1, 16)
       ORDER BY tenant_id, coalesce(chave_id, 0), substr(ts, 1, 16)`,
    );
    expect(grouped.map((g) => [Number(g.t), Number(g.k), g.m, Number(g.n)])).toEqual(
      minutes
        .filter((r) => Number(r.chave_id) !== -1)
        .map((r) => [Number(r.tenant_id), Number(r.chave_id), r.minute, Number(r.calls)]),
    );
  });

  it("a clinic's journal prune takes that clinic's rollup with it, not another's", async () => {
    const c = await clinic();
    const other = await clinic();
    await traffic(c);
    await traffic(other);
    const before = new Date(Date.now() + 120_000).toISOString();
    const pruned = await admin.call('POST', '/admin/api/journal/prune', { before, tenant: c.slug });
    expect(pruned.status, pruned.text).toBe(200);
    const stats = async (slug: string) => (await admin.call('GET', `/admin/api/tenants/${slug}/stats`)).body.data;
    expect((await stats(c.slug)).totals.calls).toBe(0);
    expect((await stats(c.slug)).refusals).toEqual([]);
    expect((await stats(other.slug)).totals.calls).toBe(8);
  });
});

describe('percentiles and windows', () => {
  it('p50/p95 are interpolated inside the histogram bucket that holds them', () => {
    const h = new Array(LATENCY_COLUMNS.length).fill(0);
    expect(quantileMs(h, 0.5)).toBeNull();
    h[latencyBucket(3)] = 10; // 0–5 ms
    expect(quantileMs(h, 0.5)).toBe(2.5);
    expect(quantileMs(h, 1)).toBe(5);
    h[latencyBucket(30)] = 10; // 25–50 ms
    expect(quantileMs(h, 0.5)).toBe(5);
    expect(quantileMs(h, 0.95)).toBe(47.5);
    expect(latencyBucket(20_000)).toBe(LATENCY_COLUMNS.length - 1);
  });

  it('the window ends with the bucket holding now, aligned on the bucket size', () => {
    const now = Date.parse('2026-12-02T10:07:30Z');
    expect(windowOf('1h', now)).toEqual({
      from: Date.parse('2026-12-02T09:08:00Z'),
      to: Date.parse('2026-12-02T10:08:00Z'),
      bucketMs: 60_000,
    });
    expect(windowOf('24h', now)).toEqual({
      from: Date.parse('2026-12-01T10:15:00Z'),
      to: Date.parse('2026-12-02T10:15:00Z'),
      bucketMs: 900_000,
    });
  });
});
