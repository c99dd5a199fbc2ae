import { execFile } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { gatewayRows, journalEntries } from '../../helpers/journal.ts';
import { ensureOperator } from '../../../server/operators/index.ts';
import { loadConfig } from '../../../server/config.ts';
import { journalPagesByComplement, journalPagesOf } from '../../../server/audit/sqlite-journal.ts';
import { JOURNAL_CLASSES } from '../../../server/audit/journal-budget.ts';
import { ConsoleClient } from '../admin/console-client.ts';

// Issue 30 § 6, a journal QA cannot brick (docs/decisions.md § P): in development mode AUDIT_RETENTION_DAYS and an
// operator's prune (console API, automation API, CLI), journaled as journal.prune and never pruning its own record;
// the budget follows what went, so a full journal takes requests again; production refuses every surface.
vi.setConfig({ testTimeout: 90_000 });
const PASSWORD = 'correct-horse-battery';
const TSX = path.resolve('node_modules/.bin/tsx');
const OTHER = 'clinica-prune-b';

function cli(stack: TestStack, env: Record<string, string>, ...args: string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      TSX,
      ['appliance/cli/main.ts', ...args],
      { env: { ...process.env, ...stack.cliEnv, ...env } },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function signedIn(stack: TestStack, username = 'operador', role: 'admin' | 'viewer' = 'admin') {
  await ensureOperator(stack.database.db, username, PASSWORD, role);
  const client = new ConsoleClient(stack.gatewayUrl);
  expect((await client.login(username, PASSWORD)).status).toBe(200);
  return client;
}

/** A stack with `env` for the enclosing describe, an admin signed in on it. */
function stackWithAdmin(env: Record<string, string>) {
  const s = {} as { stack: TestStack; admin: ConsoleClient };
  beforeAll(async () => {
    s.stack = await startTestStack(env);
    s.admin = await signedIn(s.stack);
  });
  afterAll(async () => s.stack?.stop());
  return s;
}

async function automation(stack: TestStack, token: string, body: unknown) {
  const res = await request(`${stack.gatewayUrl}/admin/api/automation/journal/prune`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  return { status: res.statusCode, body: (await res.body.json()) as any };
}

const pruneRecords = async (stack: TestStack) =>
  (await journalEntries(stack)).filter((e) => e.detail && JSON.parse(e.detail).action === 'journal.prune');

/** The budget's in-memory totals against the journal's rows, per class; on gateway.db its pages against SQLite's page map. */
async function expectBudgetMatchesRows(stack: TestStack): Promise<void> {
  const rows = await gatewayRows<{ verified: number; n: number; b: number }>(
    stack,
    'SELECT verified, count(*) AS n, coalesce(sum(bytes), 0) AS b FROM audit_log GROUP BY verified',
  );
  const groups = await gatewayRows<{ n: number; b: number }>(
    stack,
    'SELECT count(*) AS n, coalesce(sum(bytes), 0) AS b FROM audit_unattributed',
  );
  const of = (v: number) => rows.find((r) => Number(r.verified) === v);
  const status = stack.app.auditWriter.budget.status();
  expect(status.totals).toEqual({
    verified: { rows: Number(of(1)?.n ?? 0), bytes: Number(of(1)?.b ?? 0) },
    unverified: { rows: Number(of(0)?.n ?? 0), bytes: Number(of(0)?.b ?? 0) },
    unattributed: { rows: Number(groups[0].n), bytes: Number(groups[0].b) },
  });
  const stored = await gatewayRows<{ kind: string; rows: number; bytes: number }>(
    stack,
    'SELECT kind, rows, bytes FROM audit_budget',
  );
  for (const kind of JOURNAL_CLASSES) {
    const row = stored.find((r) => r.kind === kind)!;
    expect({ rows: Number(row.rows), bytes: Number(row.bytes) }).toEqual(status.totals[kind]);
  }
  if (stack.database.kind === 'sqlite') {
    // What the gateway measures after another process's prune (the other tables' pages) is the journal's page map.
    expect(journalPagesByComplement(stack.database.sqlite)).toBe(journalPagesOf(stack.database.sqlite));
    expect(status.disk.pages_bytes).toBe(
      journalPagesOf(stack.database.sqlite) * (stack.database.sqlite.pragma('page_size', { simple: true }) as number),
    );
  }
}

test('AUDIT_RETENTION_DAYS: 30 by default, 1 to 365 in development, refused at start with APP_ENV=production', () => {
  expect(loadConfig({}).audit.retentionDays).toBe(30);
  expect(loadConfig({ AUDIT_RETENTION_DAYS: '2' }).audit.retentionDays).toBe(2);
  expect(loadConfig({ AUDIT_RETENTION_DAYS: '365' }).audit.retentionDays).toBe(365);
  for (const bad of ['0', '366', '1.5', 'x'])
    expect(() => loadConfig({ AUDIT_RETENTION_DAYS: bad })).toThrow(/AUDIT_RETENTION_DAYS/);
  expect(() => loadConfig({ APP_ENV: 'production', AUDIT_RETENTION_DAYS: '7' })).toThrow(
    /AUDIT_RETENTION_DAYS is a development-mode setting.*30 days/,
  );
  expect(loadConfig({ APP_ENV: 'production', AUDIT_RETENTION_DAYS: '30' }).audit.retentionDays).toBe(30);
  expect(loadConfig({ APP_ENV: 'production' }).audit.retentionDays).toBe(30);
});

describe.each([
  ['AUDIT_RETENTION_DAYS=2', { AUDIT_RETENTION_DAYS: '2' }, false],
  ['the default 30 days', {}, true],
])('retention purge with %s, clock moved 3 days ahead', (_name, env, kept) => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack(env);
  });
  afterAll(async () => stack?.stop());

  test(kept ? 'keeps the entry' : 'purges the entry', async () => {
    const res = await stack.call({ path: '/v1/ping' });
    expect(res.status).toBe(200);
    const id = res.body.meta.request_id;
    expect((await journalEntries(stack)).some((e) => e.request_id === id)).toBe(true);
    // A moved clock purges at once (server/app.ts schedulePurges); wait for that purge to have run.
    await stack.app.applianceClock.advance(3 * 86_400_000);
    await vi.waitFor(async () => {
      await stack.app.auditWriter.purgeExpired();
      expect((await journalEntries(stack)).some((e) => e.request_id === id)).toBe(kept);
    });
    await stack.app.applianceClock.reset();
  });
});

describe('prune in development mode', () => {
  let stack: TestStack;
  let admin: ConsoleClient;
  let other: Awaited<ReturnType<TestStack['newKey']>>;
  beforeAll(async () => {
    stack = await startTestStack();
    await stack.createTenant(OTHER);
    other = await stack.newKey({ tenant: OTHER });
    admin = await signedIn(stack);
  });
  afterAll(async () => stack?.stop());

  test("before a time, for one clinic: exactly its older entries go; the rest and the prune's own entry stay", async () => {
    const old = [
      (await stack.call({ path: '/v1/ping' })).body.meta.request_id,
      (await stack.call({ path: '/v1/ping' }, other)).body.meta.request_id,
      (await stack.call({ path: '/v1/ping' }, other)).body.meta.request_id,
    ];
    await stack.app.auditWriter.flush();
    await sleep(5);
    const before = new Date().toISOString();
    await sleep(5);
    const recent = [
      (await stack.call({ path: '/v1/ping' })).body.meta.request_id,
      (await stack.call({ path: '/v1/ping' }, other)).body.meta.request_id,
    ];
    const expected = (await journalEntries(stack))
      .filter((e) => e.tenant_slug === OTHER && e.ts < before)
      .map((e) => e.request_id);
    expect(expected).toEqual(expect.arrayContaining(old.slice(1)));

    const dry = await admin.call('POST', '/admin/api/journal/prune', { before, tenant: OTHER, dry_run: true });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.data).toEqual({
      removed: expected.length,
      entries: expected.length,
      unattributed_groups: 0,
      before,
      tenant: OTHER,
      dry_run: true,
    });
    const kept = (await journalEntries(stack)).map((e) => e.request_id);
    expect(kept).toEqual(expect.arrayContaining(expected));

    const pruned = await admin.call('POST', '/admin/api/journal/prune', { before, tenant: OTHER });
    expect(pruned.status, pruned.text).toBe(200);
    expect(pruned.body.data).toMatchObject({ removed: expected.length, entries: expected.length, dry_run: false });
    const after = await journalEntries(stack);
    const ids = after.map((e) => e.request_id);
    for (const id of expected) expect(ids).not.toContain(id);
    // Everything else stayed: the other clinic's older entry, both recent ones, the console's entries.
    expect(ids).toEqual(kept.filter((id) => !expected.includes(id)).concat(ids.slice(kept.length - expected.length)));
    for (const id of [old[0], ...recent]) expect(ids).toContain(id);
    const own = after.find((e) => e.request_id === pruned.body.meta.request_id)!;
    expect(own).toMatchObject({ source: 'console', tenant_slug: OTHER, status: 200, path: '/admin/api/journal/prune' });
    expect(JSON.parse(own.detail)).toMatchObject({
      action: 'journal.prune',
      removed: expected.length,
      before,
      tenant: OTHER,
    });
    await expectBudgetMatchesRows(stack);
  });

  test('before a time in the future, every clinic: everything goes but the records of prunes', async () => {
    await stack.call({ path: '/v1/ping' });
    await stack.raw({ path: '/v1/ping' }); // unsigned: an unattributed group
    const records = (await pruneRecords(stack)).map((e) => e.request_id);
    expect(records.length).toBeGreaterThan(0);
    // Groups count per minute: a group of the minute `before` falls in is not wholly older, so step a minute past it.
    const before = new Date(Date.now() + 120_000).toISOString();
    const pruned = await admin.call('POST', '/admin/api/journal/prune', { before });
    expect(pruned.status, pruned.text).toBe(200);
    expect(pruned.body.data.unattributed_groups).toBeGreaterThan(0);
    const left = await journalEntries(stack);
    expect(left.map((e) => e.request_id)).toEqual([...records, pruned.body.meta.request_id]);
    expect(await gatewayRows(stack, 'SELECT * FROM audit_unattributed')).toEqual([]);
    await expectBudgetMatchesRows(stack);
  });

  test('the CLI: the same prune, --json, journaled as journal.prune with via cli; the running gateway follows', async () => {
    const res = await stack.call({ path: '/v1/ping' }, other);
    await stack.app.auditWriter.flush();
    const before = new Date(Date.now() + 1000).toISOString();
    const dry = await cli(stack, {}, 'journal', 'prune', '--before', before, '--tenant', OTHER, '--dry-run', '--json');
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ entries: 1, dry_run: true, tenant: OTHER });
    const run = await cli(stack, {}, 'journal', 'prune', '--before', before, '--tenant', OTHER, '--json');
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      removed: 1,
      entries: 1,
      unattributed_groups: 0,
      before,
      tenant: OTHER,
      dry_run: false,
    });
    const entries = await journalEntries(stack);
    expect(entries.some((e) => e.request_id === res.body.meta.request_id)).toBe(false);
    const cliRecords = entries.filter((e) => e.method === 'CLI' && JSON.parse(e.detail).action === 'journal.prune');
    expect(cliRecords).toHaveLength(2);
    expect(JSON.parse(cliRecords[1].detail)).toMatchObject({ via: 'cli', removed: 1, tenant: OTHER });
    // The gateway's budget reads the other process's change within a second.
    await vi.waitFor(() => expectBudgetMatchesRows(stack), { timeout: 5000, interval: 200 });
    const bad = await cli(stack, {}, 'journal', 'prune', '--before', 'yesterday');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--before must be an ISO 8601 time/);
  });

  test('refusals: a viewer (403 ADMIN_FORBIDDEN), no CSRF token (403 ADMIN_CSRF_INVALID), a bad body (400 VAL_INVALID_PARAM); nothing removed', async () => {
    const count = (await journalEntries(stack)).length;
    const body = { before: new Date(Date.now() + 60_000).toISOString() };
    const viewer = await signedIn(stack, 'ana.viewer', 'viewer');
    const asViewer = await viewer.call('POST', '/admin/api/journal/prune', body);
    expect(asViewer.status).toBe(403);
    expect(asViewer.body.error?.code).toBe('ADMIN_FORBIDDEN');
    const noCsrf = await admin.call('POST', '/admin/api/journal/prune', body, { csrf: null });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.error?.code).toBe('ADMIN_CSRF_INVALID');
    for (const bad of [{}, { before: 'yesterday' }, { ...body, tenant: '' }, { ...body, extra: 1 }]) {
      const res = await admin.call('POST', '/admin/api/journal/prune', bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.error?.code).toBe('VAL_INVALID_PARAM');
    }
    const entries = await journalEntries(stack);
    // Nothing went; each refusal added its own entry (the viewer's sign-in too).
    expect(entries.length).toBeGreaterThan(count);
    const refusals = entries.filter((e) => e.path === '/admin/api/journal/prune' && e.status >= 400);
    expect(refusals.map((e) => e.error_code)).toEqual(
      expect.arrayContaining(['ADMIN_FORBIDDEN', 'ADMIN_CSRF_INVALID', 'VAL_INVALID_PARAM']),
    );
  });

  test("automation twin: a token bound to a clinic prunes that clinic's journal only", async () => {
    const issued = await admin.call('POST', '/admin/api/operator-tokens', { label: 'qa', tenants: [OTHER] });
    expect(issued.status, issued.text).toBe(201);
    const token = issued.body.data.token as string;
    const before = new Date(Date.now() + 1000).toISOString();
    const mine = await automation(stack, token, { before, tenant: OTHER });
    expect(mine.status, JSON.stringify(mine.body)).toBe(200);
    expect(mine.body.data).toMatchObject({ tenant: OTHER, dry_run: false });
    for (const body of [{ before }, { before, tenant: stack.tenantSlug }]) {
      const refused = await automation(stack, token, body);
      expect(refused.status).toBe(403);
      expect(refused.body.error?.code).toBe('ADMIN_FORBIDDEN');
    }
  });
});

describe('a full journal (AUDIT_MAX_ROWS=40) refuses /v1; after a prune it takes requests again', () => {
  const s = stackWithAdmin({ AUDIT_MAX_ROWS: '40' });

  const fill = async () => {
    for (let i = 0; i < 60; i++) {
      const res = await s.stack.call({ path: '/v1/ping' });
      if (res.status === 503) return res;
      expect(res.status).toBe(200);
    }
    throw new Error('the journal never filled');
  };

  test('through the console API, then through the CLI (the running gateway follows within a second)', async () => {
    const { stack, admin } = s;
    const full = await fill();
    expect(full.body.error?.code).toBe('SERVICE_UNAVAILABLE');
    const storage = await admin.call('GET', '/admin/api/audit/storage');
    expect(storage.body.data.journal.state).toBe('full');
    expect(storage.body.data.journal.avisos.join(' ')).toMatch(/AUDIT_RETENTION_DAYS.*journal prune --before/);

    const pruned = await admin.call('POST', '/admin/api/journal/prune', {
      before: new Date(Date.now() + 1000).toISOString(),
    });
    expect(pruned.status, pruned.text).toBe(200);
    expect(pruned.body.data.entries).toBeGreaterThanOrEqual(39);
    expect((await stack.call({ path: '/v1/ping' })).status).toBe(200);
    await expectBudgetMatchesRows(stack);

    // On the way to full again: the 80 % warning names both remedies too.
    for (let i = 0; i < 40 && !stack.app.auditWriter.budget.status().reasons.includes('verified_near_full'); i++) {
      expect((await stack.call({ path: '/v1/ping' })).status).toBe(200);
      await stack.app.auditWriter.flush();
    }
    const warning = stack.app.auditWriter.budget.status();
    expect(warning.state).toBe('warning');
    expect(warning.avisos.join(' ')).toMatch(
      /acima de 80%.*AUDIT_RETENTION_DAYS.*journal prune --before.*Prune journal/,
    );
    await fill();
    const run = await cli(
      stack,
      {},
      'journal',
      'prune',
      '--before',
      new Date(Date.now() + 1000).toISOString(),
      '--json',
    );
    expect(run.code, run.stderr).toBe(0);
    await vi.waitFor(async () => expect((await stack.call({ path: '/v1/ping' })).status).toBe(200), {
      timeout: 5000,
      interval: 250,
    });
    // The CLI journals its prune in a transaction of its own after the deletions: a running gateway's re-read
    // may fall between the two and see that entry on its next one (every second on PostgreSQL).
    await vi.waitFor(() => expectBudgetMatchesRows(stack), { timeout: 3000, interval: 250 });
  });
});

describe('APP_ENV=production: every surface refuses the prune and the journal keeps every entry', () => {
  const s = stackWithAdmin({ APP_ENV: 'production' });

  test('console API, automation API and CLI: 403 OPERATION_NOT_ALLOWED (CLI: exit 1), each refusal journaled', async () => {
    const { stack, admin } = s;
    await stack.call({ path: '/v1/ping' });
    const ids = async () => (await journalEntries(stack)).map((e) => e.request_id);
    const before = await ids();
    const body = { before: new Date(Date.now() + 60_000).toISOString() };
    const consoleRes = await admin.call('POST', '/admin/api/journal/prune', body);
    expect(consoleRes.status).toBe(403);
    expect(consoleRes.body.error?.code).toBe('OPERATION_NOT_ALLOWED');
    const issued = await admin.call('POST', '/admin/api/operator-tokens', { label: 'ci', tenants: '*' });
    const auto = await automation(stack, issued.body.data.token, body);
    expect(auto.status).toBe(403);
    expect(auto.body.error?.code).toBe('OPERATION_NOT_ALLOWED');
    const run = await cli(stack, { APP_ENV: 'production' }, 'journal', 'prune', '--before', body.before);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/refused with APP_ENV=production/);
    const after = await journalEntries(stack);
    expect(after.map((e) => e.request_id).slice(0, before.length)).toEqual(before);
    const refusals = after.filter((e) => e.detail && JSON.parse(e.detail).action === 'journal.prune');
    expect(refusals).toHaveLength(3);
    for (const e of refusals) expect(e).toMatchObject({ status: 403, error_code: 'OPERATION_NOT_ALLOWED' });
  });
});
