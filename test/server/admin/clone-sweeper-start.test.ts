import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { gatewayRows } from '../../helpers/journal.ts';
import { cloneTenant } from '../../../server/tenants/clones.ts';

// Issue 30 § a crashed worker leaves nothing behind: a clone whose time to live ended while the appliance was
// down is dropped by the sweep every gateway runs at start (on SQLite, and on PostgreSQL in the postgres project).
vi.setConfig({ testTimeout: 120_000 });
const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-clone-sweep-'));
let stack: TestStack | undefined;
afterAll(async () => {
  await stack?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

it('a clone expired while the appliance was stopped is gone after the next start, its journal kept', async () => {
  stack = await startTestStack({}, { dataDir });
  const clone = await cloneTenant(
    { db: stack.database.db, backend: stack.backend, keys: stack.keys, now: Date.now, onChange: () => undefined },
    { template: stack.tenantSlug, ttl: '10s', medicoId: 0, max: 20 },
  );
  const creds = { apiKey: clone.api_key, apiSecret: clone.api_secret };
  expect((await stack.call({ path: '/v1/pacientes?limit=1' }, creds)).status).toBe(200);
  await stack.stop();
  stack = undefined;
  await new Promise((r) => setTimeout(r, 11_000));
  expect(existsSync(path.join(dataDir, 'backend', `${clone.slug}.db`))).toBe(true);

  stack = await startTestStack({}, { dataDir });
  const running = stack;
  await vi.waitFor(
    async () => expect(await gatewayRows(running, 'SELECT id FROM tenants WHERE slug = ?', clone.slug)).toEqual([]),
    { timeout: 15_000, interval: 100 },
  );
  expect(existsSync(path.join(dataDir, 'backend', `${clone.slug}.db`))).toBe(false);
  expect(existsSync(path.join(dataDir, 'backend', 'pristine', `${clone.slug}.db`))).toBe(false);
  const journal = await gatewayRows<{ detail: string | null; source: string }>(
    running,
    'SELECT detail, source FROM audit_log WHERE tenant_slug = ? ORDER BY id',
    clone.slug,
  );
  expect(journal.some((e) => e.source === 'api')).toBe(true);
  expect(JSON.parse(journal.at(-1)!.detail!)).toMatchObject({ action: 'tenant.drop', via: 'sweeper' });
});
