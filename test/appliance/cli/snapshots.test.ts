import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { NEW_PATIENT } from '../../helpers/first-start.ts';
import { journalEntries } from '../../helpers/journal.ts';
import { logicalDump } from '../../helpers/snapshots.ts';

// Issue 30 § 7, the CLI's snapshot commands against a running stack, with --json, journaled as the console's
// tenant.snapshot.* actions (via "cli").
vi.setConfig({ testTimeout: 120_000 });
const TSX = path.resolve('node_modules/.bin/tsx');
let stack: TestStack;
let dir: string;
beforeAll(async () => {
  stack = await startTestStack();
  dir = mkdtempSync(path.join(tmpdir(), 'snap-cli-'));
});
afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      TSX,
      ['appliance/cli/main.ts', ...args],
      { env: { ...process.env, ...stack.cliEnv } },
      (e, stdout, stderr) => resolve({ code: e ? Number((e as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const total = async (creds = stack.creds) =>
  (await stack.call({ path: '/v1/pacientes?limit=1' }, creds)).body.meta.total;

test('snapshot, snapshots, restore, export, import, snapshot-delete: same names and answers as the API', async () => {
  const slug = stack.tenantSlug;
  const saved = await cli('tenants', 'snapshot', slug, 'base', '--json');
  expect(saved.code, saved.stderr).toBe(0);
  expect(JSON.parse(saved.stdout)).toMatchObject({ name: 'base', slug, files: 0 });
  const before = logicalDump(stack.dataDir, slug);
  const count = await total();

  const created = await stack.call({
    method: 'POST',
    path: '/v1/pacientes',
    body: NEW_PATIENT,
    idempotencyKey: randomUUID(),
  });
  expect(created.status).toBe(201);
  expect(await total()).toBe(count + 1);

  const unconfirmed = await cli('tenants', 'restore', slug, 'base');
  expect(unconfirmed.code).not.toBe(0);
  expect(unconfirmed.stderr).toMatch(/--yes/);
  const restored = await cli('tenants', 'restore', slug, 'base', '--yes', '--json');
  expect(restored.code, restored.stderr).toBe(0);
  expect(JSON.parse(restored.stdout)).toMatchObject({ slug, name: 'base', idempotency_keys_removed: 1 });
  expect(logicalDump(stack.dataDir, slug)).toEqual(before);

  const list = await cli('tenants', 'snapshots', slug, '--json');
  expect(JSON.parse(list.stdout).map((s: any) => s.name)).toEqual(['base']);

  const file = path.join(dir, 'base.tar');
  const exported = await cli('tenants', 'export', slug, 'base', '--out', file, '--json');
  expect(exported.code, exported.stderr).toBe(0);
  expect(existsSync(file)).toBe(true);
  const imported = await cli('tenants', 'import', file, '--slug', 'copia-cli', '--json');
  expect(imported.code, imported.stderr).toBe(0);
  expect(JSON.parse(imported.stdout)).toMatchObject({ slug: 'copia-cli', created: true, source_slug: slug });
  expect(logicalDump(stack.dataDir, 'copia-cli')).toEqual(before);
  expect(await total(await stack.newKey({ tenant: 'copia-cli' }))).toBe(count);

  const deleted = await cli('tenants', 'snapshot-delete', slug, 'base', '--json');
  expect(JSON.parse(deleted.stdout)).toEqual({ slug, name: 'base', deleted: true });
  const missing = await cli('tenants', 'restore', slug, 'base', '--yes');
  expect(missing.code).toBe(1);
  expect(missing.stderr).toMatch(/nao existe/);

  const actions = (await journalEntries(stack))
    .filter((e) => e.method === 'CLI')
    .map((e) => [JSON.parse(e.detail ?? '{}').action, JSON.parse(e.detail ?? '{}').via, e.status]);
  expect(actions).toEqual([
    ['tenant.snapshot.save', 'cli', 200],
    ['tenant.snapshot.restore', 'cli', 200],
    ['tenant.snapshot.export', 'cli', 200],
    ['tenant.snapshot.import', 'cli', 200],
    ['tenant.snapshot.delete', 'cli', 200],
    ['tenant.snapshot.restore', 'cli', 404],
  ]);
});
