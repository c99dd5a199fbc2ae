import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { gatewayRows } from '../../helpers/journal.ts';
import { runCli } from '../../helpers/cli.ts';

// Issue 30 § Surfaces, the CLI: `tenants clone <from> [--slug] [--ttl] --json` and `tenants drop <slug> --json`
// against a running stack (its gateway state on SQLite, or PostgreSQL in the postgres project).
vi.setConfig({ testTimeout: 120_000 });
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
}, 120_000);
afterAll(async () => stack?.stop());

const cli = (env: Record<string, string>, ...args: string[]) => runCli({ ...stack.cliEnv, ...env }, ...args);

test('tenants clone --json answers {slug, api_key, api_secret, chave_id, expires_at}; the key signs calls on the clone; tenants drop --json removes it and journals both', async () => {
  const made = await cli({}, 'tenants', 'clone', stack.tenantSlug, '--slug', 'cli-clone', '--ttl', '2h', '--json');
  expect(made.code, made.stderr).toBe(0);
  const clone = JSON.parse(made.stdout);
  expect(clone).toMatchObject({ slug: 'cli-clone', template: stack.tenantSlug, snapshot: null });
  expect(clone.api_key).toMatch(/^ce_live_/);
  expect(clone.api_secret).toMatch(/^[0-9a-f]{64}$/);
  expect(Date.parse(clone.expires_at) - Date.now()).toBeGreaterThan(7_000_000);
  const creds = { apiKey: clone.api_key, apiSecret: clone.api_secret };
  const ping = await stack.call({ path: '/v1/pacientes?limit=1' }, creds);
  expect(ping.status, JSON.stringify(ping.body.error)).toBe(200);

  const listed = await cli({}, 'tenants', 'list', '--json');
  expect(JSON.parse(listed.stdout).find((t: any) => t.slug === 'cli-clone')).toMatchObject({
    template: stack.tenantSlug,
    expires_at: clone.expires_at,
  });

  const dropped = await cli({}, 'tenants', 'drop', 'cli-clone', '--json');
  expect(dropped.code, dropped.stderr).toBe(0);
  expect(JSON.parse(dropped.stdout)).toMatchObject({
    slug: 'cli-clone',
    dropped: true,
    keys_removed: 1,
    ephemeral: true,
  });
  expect(existsSync(path.join(stack.dataDir, 'backend', 'cli-clone.db'))).toBe(false);
  expect((await stack.call({ path: '/v1/pacientes?limit=1' }, creds)).status).toBe(401);

  const journal = await gatewayRows<{ path: string; method: string; detail: string }>(
    stack,
    "SELECT path, method, detail FROM audit_log WHERE source = 'console' AND method = 'CLI' ORDER BY id",
  );
  const actions = journal.map((e) => JSON.parse(e.detail).action);
  expect(actions).toEqual(expect.arrayContaining(['tenant.clone', 'tenant.drop']));
  expect(journal.some((e) => e.detail.includes(clone.api_secret))).toBe(false);
});

test('tenants drop of a permanent clinic without a terminal needs --yes; a bad --ttl is refused before anything', async () => {
  const refused = await cli({}, 'tenants', 'drop', stack.tenantSlug);
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toMatch(/--yes/);
  expect(existsSync(path.join(stack.dataDir, 'backend', `${stack.tenantSlug}.db`))).toBe(true);
  const ttl = await cli({}, 'tenants', 'clone', stack.tenantSlug, '--ttl', '2d');
  expect(ttl.code).not.toBe(0);
  expect(ttl.stderr).toMatch(/--ttl/);
});

test('APP_ENV=production: clone and drop refused naming ALLOW_EPHEMERAL_CLINICS; with it set, the clone is made', async () => {
  const clone = await cli({ APP_ENV: 'production' }, 'tenants', 'clone', stack.tenantSlug, '--json');
  expect(clone.code).not.toBe(0);
  expect(clone.stderr).toMatch(/ALLOW_EPHEMERAL_CLINICS=true/);
  const drop = await cli({ APP_ENV: 'production' }, 'tenants', 'drop', stack.tenantSlug, '--yes');
  expect(drop.code).not.toBe(0);
  expect(drop.stderr).toMatch(/ALLOW_EPHEMERAL_CLINICS=true/);
  const allowed = await cli(
    { APP_ENV: 'production', ALLOW_EPHEMERAL_CLINICS: 'true' },
    'tenants',
    'clone',
    stack.tenantSlug,
    '--slug',
    'prod-clone',
    '--json',
  );
  expect(allowed.code, allowed.stderr).toBe(0);
  expect((await cli({}, 'tenants', 'drop', 'prod-clone', '--json')).code).toBe(0);
});
