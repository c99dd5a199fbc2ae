import { createRequire } from 'node:module';
import { request } from 'undici';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { gatewayRows } from '../../helpers/journal.ts';
import { signedInOperator, type ConsoleClient } from '../admin/console-client.ts';
import { registerAlertMetrics } from '../../../server/alerts/alert-metrics.ts';

/**
 * Issue 31 § 5: the alerts on and off at their edges, on real signed calls (refused: a patient that does not exist,
 * 404) and on keys' expiry (api_keys.expires_at, migration 024); the console API, its automation twin filtered to the
 * token's clinics, and the Prometheus gauges computed from the same queries. SQLite and PostgreSQL.
 */

type Family = { name: string; type: string; metrics: Array<{ value: string; labels?: Record<string, string> }> };
const parsePrometheus = createRequire(import.meta.url)('parse-prometheus-text-format') as (text: string) => Family[];

const PASSWORD = 'alerts-password';
const DAY = 86_400_000;
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
  const slug = `alerts-${++seq}`;
  await stack.createTenant(slug);
  return slug;
}

/** `calls` signed calls of a fresh key of `slug`, `refused` of them answered 404. */
async function keyWith(slug: string, calls: number, refused: number) {
  const key = await stack.newKey({ tenant: slug });
  for (let i = 0; i < calls; i++) {
    const res = await stack.call({ path: i < refused ? '/v1/pacientes/999999' : '/v1/pacientes?limit=1' }, key);
    expect(res.status).toBe(i < refused ? 404 : 200);
  }
  return key.chaveId;
}

const alerts = async (client = admin) => {
  const res = await client.call('GET', '/admin/api/alerts');
  expect(res.status, res.text).toBe(200);
  return res.body.data as any[];
};
const alertOf = (list: any[], chaveId: number) => list.filter((a) => a.chave_id === chaveId);

async function expiresIn(chaveId: number, ms: number) {
  await gatewayRows(
    stack,
    'UPDATE api_keys SET expires_at = ? WHERE id = ?',
    new Date(Date.now() + ms).toISOString(),
    chaveId,
  );
}

async function automation(token: string, path: string) {
  const res = await request(`${stack.gatewayUrl}/admin/api/automation${path}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: res.statusCode, body: (await res.body.json()) as any };
}

describe('failing keys: refusals past 20 % of at least 20 calls in the last 15 minutes', () => {
  let slug: string;
  let allRefused19: number;
  let quarter: number;
  let fifth: number;
  let revoked: number;
  beforeAll(async () => {
    slug = await clinic();
    allRefused19 = await keyWith(slug, 19, 19);
    quarter = await keyWith(slug, 20, 5);
    fifth = await keyWith(slug, 20, 4);
    revoked = await keyWith(slug, 20, 10);
    expect((await admin.call('POST', `/admin/api/keys/${revoked}/revoke`, {})).status).toBe(200);
  });

  it('19 calls all refused: none; 5 of 20 (25 %): an alert; 4 of 20 (20 %, not past it): none; a revoked key: none', async () => {
    const list = await alerts(viewer);
    expect(alertOf(list, allRefused19)).toEqual([]);
    expect(alertOf(list, fifth)).toEqual([]);
    // Revoked since: the operator acted already.
    expect(alertOf(list, revoked)).toEqual([]);
    expect(alertOf(list, quarter)).toEqual([
      {
        kind: 'key_failing',
        tenant_slug: slug,
        chave_id: quarter,
        label: expect.any(String),
        calls: 20,
        refusals: 5,
        ratio: 0.25,
      },
    ]);
  });

  it('the gauge: the ratio of every key with at least 20 calls, from the same query', async () => {
    const registry = new Registry();
    registerAlertMetrics(registry, { db: stack.database.db, now: () => Date.now() });
    await stack.app.auditWriter.flush();
    const families = parsePrometheus(await registry.metrics());
    const ratio = families.find((f) => f.name === 'gateway_api_key_failure_ratio')!;
    expect(ratio.type).toBe('GAUGE');
    const of = (id: number) => ratio.metrics.find((m) => m.labels?.key_id === String(id));
    expect(of(quarter)).toEqual({ value: '0.25', labels: { tenant: slug, key_id: String(quarter) } });
    expect(of(fifth)?.value).toBe('0.2');
    expect(of(allRefused19)).toBeUndefined();
  });
});

describe('expiring keys: active, expiring within 7 days', () => {
  it('in 6 days: an alert; in 8 days, already expired, or revoked: none; the gauge counts per clinic', async () => {
    const slug = await clinic();
    const six = (await stack.newKey({ tenant: slug })).chaveId;
    const eight = (await stack.newKey({ tenant: slug })).chaveId;
    const expired = (await stack.newKey({ tenant: slug })).chaveId;
    const revoked = (await stack.newKey({ tenant: slug })).chaveId;
    await expiresIn(six, 6 * DAY);
    await expiresIn(eight, 8 * DAY);
    await expiresIn(expired, -DAY);
    await expiresIn(revoked, 2 * DAY);
    expect((await admin.call('POST', `/admin/api/keys/${revoked}/revoke`, {})).status).toBe(200);
    const list = await alerts();
    expect(alertOf(list, six)).toEqual([
      {
        kind: 'key_expiring',
        tenant_slug: slug,
        chave_id: six,
        label: expect.any(String),
        expires_at: expect.any(String),
      },
    ]);
    for (const id of [eight, expired, revoked]) expect(alertOf(list, id)).toEqual([]);

    const registry = new Registry();
    registerAlertMetrics(registry, { db: stack.database.db, now: () => Date.now() });
    const expiring = parsePrometheus(await registry.metrics()).find((f) => f.name === 'gateway_api_keys_expiring')!;
    expect(expiring.metrics.find((m) => m.labels?.tenant === slug)?.value).toBe('1');
  });

  it('the automation twin lists only the token clinics alerts', async () => {
    const mine = await clinic();
    const theirs = await clinic();
    const a = (await stack.newKey({ tenant: mine })).chaveId;
    const b = (await stack.newKey({ tenant: theirs })).chaveId;
    await expiresIn(a, DAY);
    await expiresIn(b, DAY);
    const issued = await admin.call('POST', '/admin/api/operator-tokens', { label: 'alerts', tenants: [mine] });
    expect(issued.status, issued.text).toBe(201);
    const viaToken = await automation(issued.body.data.token, '/alerts');
    expect(viaToken.status).toBe(200);
    expect(viaToken.body.data.map((x: any) => x.tenant_slug).every((s: string) => s === mine)).toBe(true);
    expect(alertOf(viaToken.body.data, a)).toHaveLength(1);
    expect(alertOf(viaToken.body.data, b)).toEqual([]);
    const all = await admin.call('POST', '/admin/api/operator-tokens', { label: 'alerts all', tenants: '*' });
    const viaAll = await automation(all.body.data.token, '/alerts');
    expect(alertOf(viaAll.body.data, b)).toHaveLength(1);
  });
});
