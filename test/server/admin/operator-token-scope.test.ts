import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { ensureOperator } from '../../../server/operators/index.ts';
import { migrations } from '../../../server/db/migrations/index.ts';
import { migrateToLatest } from '../../../server/db/database.ts';
import { ConsoleClient } from './console-client.ts';

// Issue 19 § 6, operator tokens: issued for named clinics (or "*" when asked for), with an expiry
// (default 30 days, at most 365); another clinic answers 403 ADMIN_FORBIDDEN, an expired token 401.
const DAY = 86_400;
const PASSWORD = 'correct-horse-battery';
let stack: TestStack;
let client: ConsoleClient;

beforeAll(async () => {
  stack = await startTestStack();
  await stack.createTenant('clinica-a');
  await stack.createTenant('clinica-b');
  await ensureOperator(stack.gatewayDb.db, 'operador', PASSWORD);
  client = new ConsoleClient(stack.gatewayUrl);
  expect((await client.login('operador', PASSWORD)).status).toBe(200);
});

afterAll(async () => {
  await stack?.stop();
});

const issue = (body: Record<string, unknown>) => client.call('POST', '/admin/api/operator-tokens', body);

async function issued(body: Record<string, unknown>): Promise<{ id: number; token: string; view: any }> {
  const res = await issue(body);
  expect(res.status, res.text).toBe(201);
  const { token, ...view } = res.body.data;
  return { id: view.id, token, view };
}

async function automationReset(token: string, slug: string) {
  const res = await request(`${stack.gatewayUrl}/admin/api/automation/tenants/${slug}/reset`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: '{}',
  });
  return { status: res.statusCode, body: (await res.body.json()) as any };
}

const listed = async (id: number) =>
  (await client.call('GET', '/admin/api/operator-tokens')).body.data.find((t: any) => t.id === id);

describe('issuing: clinics named or "*", validity in days', () => {
  it('a token needs its clinics: missing, empty, unknown or a bare string other than "*" → 400 naming tenants', async () => {
    for (const tenants of [undefined, [], 'all', ['clinica-a', 'nao-existe']]) {
      const res = await issue({ label: 'x', ...(tenants === undefined ? {} : { tenants }) });
      expect(res.status, JSON.stringify(tenants)).toBe(400);
      expect(res.body.error!.code).toBe('VAL_INVALID_PARAM');
      expect(res.body.error!.details.field).toBe('tenants');
    }
    const unknown = await issue({ label: 'x', tenants: ['clinica-a', 'nao-existe'] });
    expect(unknown.body.error!.message).toMatch(/nao-existe/);
    expect(unknown.body.error!.message).not.toMatch(/clinica-a/);
    expect(await stack.gatewayDb.db.selectFrom('operator_tokens').selectAll().execute()).toHaveLength(0);
  });

  it('expires_in_days defaults to 30 and accepts 1 to 365; 0, 366 and 1.5 → 400', async () => {
    const byDefault = await issued({ label: 'default', tenants: ['clinica-a'] });
    expect(Date.parse(byDefault.view.expires_at) - Date.parse(byDefault.view.created_at)).toBe(30 * DAY * 1000);
    const longest = await issued({ label: 'max', tenants: ['clinica-a'], expires_in_days: 365 });
    expect(Date.parse(longest.view.expires_at) - Date.parse(longest.view.created_at)).toBe(365 * DAY * 1000);
    const shortest = await issued({ label: 'min', tenants: ['clinica-a'], expires_in_days: 1 });
    expect(Date.parse(shortest.view.expires_at) - Date.parse(shortest.view.created_at)).toBe(DAY * 1000);
    for (const days of [0, 366, 1.5, '30']) {
      const res = await issue({ label: 'bad', tenants: ['clinica-a'], expires_in_days: days });
      expect(res.status, String(days)).toBe(400);
      expect(res.body.error!.details.field).toBe('expires_in_days');
    }
  });

  it('the answer and the list show the clinics, the expiry and the status; duplicates are kept once', async () => {
    const { id, view } = await issued({ label: 'two clinics', tenants: ['clinica-b', 'clinica-a', 'clinica-b'] });
    expect(view).toMatchObject({ tenants: ['clinica-b', 'clinica-a'], status: 'active', revoked_at: null });
    expect(await listed(id)).toMatchObject({
      label: 'two clinics',
      tenants: ['clinica-b', 'clinica-a'],
      expires_at: view.expires_at,
      status: 'active',
    });
    const all = await issued({ label: 'all', tenants: '*' });
    expect(all.view.tenants).toBe('*');
  });
});

describe('using: a token acts only on its clinics', () => {
  it('bound to clinica-a: resets clinica-a; clinica-b and an unknown clinic → 403 ADMIN_FORBIDDEN, journaled under clinica-b', async () => {
    const { id, token } = await issued({ label: 'only a', tenants: ['clinica-a'] });
    expect((await automationReset(token, 'clinica-a')).status).toBe(200);
    const other = await automationReset(token, 'clinica-b');
    expect(other.status).toBe(403);
    expect(other.body.error!.code).toBe('ADMIN_FORBIDDEN');
    expect(other.body.error!.message).toMatch(/clinica-b/);
    expect(other.body.data).toBeNull();
    const unknown = await automationReset(token, 'nao-existe');
    expect(unknown.status).toBe(403);
    expect(unknown.body.error!.code).toBe('ADMIN_FORBIDDEN');

    stack.app.auditWriter.flush();
    const refusal = await stack.gatewayDb.db
      .selectFrom('audit_log')
      .selectAll()
      .where('tenant_slug', '=', 'clinica-b')
      .where('error_code', '=', 'ADMIN_FORBIDDEN')
      .executeTakeFirstOrThrow();
    expect(refusal.status).toBe(403);
    expect(JSON.parse(refusal.detail!)).toMatchObject({
      action: 'tenant.reset',
      via: 'operator_token',
      token_id: id,
      token_tenants: ['clinica-a'],
    });
  });

  it('bound to two clinics: both; "*": every clinic, one created after it too, and an unknown one is a plain 404', async () => {
    const two = await issued({ label: 'a and b', tenants: ['clinica-a', 'clinica-b'] });
    expect((await automationReset(two.token, 'clinica-a')).status).toBe(200);
    expect((await automationReset(two.token, 'clinica-b')).status).toBe(200);
    expect((await automationReset(two.token, stack.tenantSlug)).status).toBe(403);

    const all = await issued({ label: 'every clinic', tenants: '*' });
    await stack.createTenant('clinica-nova');
    for (const slug of ['clinica-a', 'clinica-b', stack.tenantSlug, 'clinica-nova']) {
      expect((await automationReset(all.token, slug)).status, slug).toBe(200);
    }
    const unknown = await automationReset(all.token, 'nao-existe');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error!.code).toBe('RES_NOT_FOUND');
  });
});

describe('expiry follows the appliance clock', () => {
  it('a 1-day token is refused (401, "expirado") once the clock is 2 days ahead, a 30-day one at 31 days; the list says expired', async () => {
    const day = await issued({ label: 'one day', tenants: ['clinica-a'], expires_in_days: 1 });
    const month = await issued({ label: 'thirty days', tenants: ['clinica-a'] });
    const revoked = await issued({ label: 'revoked then expired', tenants: ['clinica-a'], expires_in_days: 1 });
    expect((await client.call('POST', `/admin/api/operator-tokens/${revoked.id}/revoke`)).status).toBe(200);
    expect((await automationReset(day.token, 'clinica-a')).status).toBe(200);

    try {
      expect((await client.call('PUT', '/admin/api/clock', { advance_seconds: 2 * DAY })).status).toBe(200);
      const expired = await automationReset(day.token, 'clinica-a');
      expect(expired.status).toBe(401);
      expect(expired.body.error!.code).toBe('ADMIN_UNAUTHENTICATED');
      expect(expired.body.error!.message).toMatch(/expirado/);
      expect(expired.body.error!.message).toContain(day.view.expires_at);
      expect((await automationReset(month.token, 'clinica-a')).status).toBe(200);
      expect(await listed(day.id)).toMatchObject({ status: 'expired' });
      expect(await listed(month.id)).toMatchObject({ status: 'active' });
      expect(await listed(revoked.id)).toMatchObject({ status: 'revoked' });

      expect((await client.call('PUT', '/admin/api/clock', { offset_seconds: 31 * DAY })).status).toBe(200);
      const late = await automationReset(month.token, 'clinica-a');
      expect(late.status).toBe(401);
      expect(late.body.error!.message).toMatch(/expirado/);
      expect(await listed(month.id)).toMatchObject({ status: 'expired' });
    } finally {
      await client.call('DELETE', '/admin/api/clock');
    }
    // Back at real time the 30-day token is valid again: the expiry is a time, not a state.
    expect((await automationReset(month.token, 'clinica-a')).status).toBe(200);
  });
});

describe('migration 017: tokens issued before it', () => {
  it('keep every clinic for 30 days from the migration, then expire; revoked ones stay revoked', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gw-token-migration-'));
    const sqlite = new SQLite(path.join(dir, 'gateway.db'));
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: sqlite }) });
    try {
      const names = Object.keys(migrations).sort();
      const mine = names.indexOf('2026-11-25-017-operator-token-scope');
      expect(mine).toBeGreaterThan(0);
      const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
      const before = await migrator.migrateTo(names[mine - 1]);
      expect(before.error).toBeUndefined();
      await db
        .insertInto('operators')
        .values({ id: 1, username: 'admin', password_hash: 'x', created_at: '2026-01-01T00:00:00.000Z' })
        .execute();
      await db
        .insertInto('operator_tokens')
        .values([
          {
            id: 1,
            label: 'old active',
            token_hash: 'a'.repeat(64),
            token_prefix: 'ce_op_aaaa',
            operator_id: 1,
            created_at: '2026-01-01T00:00:00.000Z',
          },
          {
            id: 2,
            label: 'old revoked',
            token_hash: 'b'.repeat(64),
            token_prefix: 'ce_op_bbbb',
            operator_id: 1,
            created_at: '2026-01-01T00:00:00.000Z',
            revoked_at: '2026-02-01T00:00:00.000Z',
          },
        ])
        .execute();
      const t0 = Date.now();
      await migrateToLatest(db);
      const rows = await db.selectFrom('operator_tokens').selectAll().orderBy('id').execute();
      for (const row of rows) {
        expect(row.all_tenants).toBe(1);
        expect(row.tenants).toBe('[]');
        const expires = Date.parse(row.expires_at);
        expect(expires).toBeGreaterThanOrEqual(t0 + 30 * DAY * 1000);
        expect(expires).toBeLessThanOrEqual(Date.now() + 30 * DAY * 1000);
      }
      expect(rows[1].revoked_at).toBe('2026-02-01T00:00:00.000Z');
      // A row written without an expiry (no code does) is expired, not eternal.
      await db
        .insertInto('operator_tokens')
        .values({
          label: 'raw',
          token_hash: 'c'.repeat(64),
          token_prefix: 'ce_op_cccc',
          operator_id: 1,
          created_at: '2026-01-01T00:00:00.000Z',
        })
        .execute();
      const raw = await db
        .selectFrom('operator_tokens')
        .select(['expires_at', 'all_tenants'])
        .where('label', '=', 'raw')
        .executeTakeFirstOrThrow();
      expect(raw).toEqual({ expires_at: '1970-01-01T00:00:00.000Z', all_tenants: 0 });
    } finally {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
