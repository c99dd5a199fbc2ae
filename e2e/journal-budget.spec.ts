import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { expect, test } from './kit/index.ts';
import { ephemeralConfig } from '../server/config.ts';
import { startStack } from '../appliance/stack.ts';
import { ensureOperator } from '../server/operators/index.ts';

// Issue 19: the console shows which refusals only named a key (unverified), the requests that named no
// key (unattributed groups), and a banner on every page when the journal warns (still serving) or refuses requests.

test('journal: a refusal under an existing key is marked unverified; requests without a key are counted in groups', async ({
  api,
  appliance,
  operatorPage: page,
}) => {
  const bad = await api.get('/v1/ping', { headers: { 'x-signature': 'f'.repeat(64) } });
  expect(bad.status).toBe(401);
  const requestId = bad.json.meta.request_id as string;
  // From an address of its own (Linux loopback is 127/8): its group's sample is this request, whatever else the
  // suite sent unsigned in the same minute.
  const unsigned = await request(`${appliance.baseUrl}/v1/ping?e2e=unattributed`, {
    dispatcher: new Agent({ localAddress: '127.0.0.77' }),
  });
  await unsigned.body.dump();
  expect(unsigned.statusCode).toBe(401);

  await page.goto(`${appliance.baseUrl}/console/#/audit?request_id=${requestId}`);
  const row = page.locator(`tr[data-request-id="${requestId}"]`);
  await expect(row).toBeVisible();
  await expect(row).toContainText('AUTH_INVALID_SIGNATURE');
  await expect(row.getByText('Unverified', { exact: true })).toBeVisible();
  await row.getByRole('link').click();
  await expect(page.getByTestId('detail-key')).toContainText('did not prove it holds its secret');

  await page.goto(`${appliance.baseUrl}/console/#/audit`);
  const groups = page.getByTestId('unattributed-groups');
  await expect(groups).toBeVisible();
  const group = groups.locator('tr', { hasText: '127.0.0.77' }).first();
  await expect(group).toContainText('/v1/ping?e2e=unattributed');
  await expect(group).toContainText('AUTH_MISSING_HEADER');
  await expect(page.getByTestId('audit-storage')).toContainText('verified entries');
});

test('journal banner: with DATA_DIR below AUDIT_MIN_FREE_BYTES, every page says the API refuses requests and why', async ({
  page,
}) => {
  test.skip(Boolean(process.env.E2E_BASE_URL), 'starts a private stack of its own');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'e2e-journal-'));
  const stack = await startStack(ephemeralConfig(dataDir, { AUDIT_MIN_FREE_BYTES: String(2 ** 53 - 1) }));
  try {
    await ensureOperator(stack.gatewayDb.db, 'operador', 'journal-banner-password');
    const login = await page.request.post(`${stack.gatewayUrl}/admin/api/auth/login`, {
      data: { username: 'operador', password: 'journal-banner-password' },
    });
    expect(login.status()).toBe(200);
    for (const screen of ['keys', 'audit']) {
      await page.goto(`${stack.gatewayUrl}/console/#/${screen}`);
      const banner = page.getByRole('alert', { name: 'Audit journal' });
      await expect(banner).toContainText('The audit journal cannot record requests: the API refuses them.');
      await expect(banner).toContainText('below AUDIT_MIN_FREE_BYTES');
    }
  } finally {
    await stack.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('journal banner, needs attention: unauthenticated noise shed, the API still serving; every page says what happened', async ({
  page,
}) => {
  test.skip(Boolean(process.env.E2E_BASE_URL), 'starts a private stack of its own');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'e2e-journal-warn-'));
  // Noise takes at most 10 % of AUDIT_MAX_ROWS: 10 of 100 rows.
  const stack = await startStack(ephemeralConfig(dataDir, { AUDIT_MAX_ROWS: '100' }));
  try {
    // 15 addresses without a key: one unattributed group each, past the noise's share.
    for (let i = 0; i < 15; i++) {
      const res = await request(`${stack.gatewayUrl}/v1/ping`, {
        dispatcher: new Agent({ localAddress: `127.0.0.${140 + i}` }),
      });
      await res.body.dump();
      expect(res.statusCode).toBe(401);
    }
    stack.app.auditWriter.flush();
    await stack.app.auditWriter.budget.shed();
    expect(stack.app.auditWriter.budget.status()).toMatchObject({ state: 'warning', accepting: true });
    // Still serving: ready, the journal up with its warning.
    const ready = await request(`${stack.gatewayUrl}/readyz`);
    expect(ready.statusCode).toBe(200);
    expect(JSON.stringify(await ready.body.json())).toContain('Ruido nao autenticado descartado');

    await ensureOperator(stack.gatewayDb.db, 'operador', 'journal-warning-password');
    const login = await page.request.post(`${stack.gatewayUrl}/admin/api/auth/login`, {
      data: { username: 'operador', password: 'journal-warning-password' },
    });
    expect(login.status()).toBe(200);
    for (const screen of ['keys', 'audit']) {
      await page.goto(`${stack.gatewayUrl}/console/#/${screen}`);
      const banner = page.getByRole('alert', { name: 'Audit journal' });
      await expect(banner).toContainText('The audit journal needs attention.');
      await expect(banner).toContainText(
        'Unauthenticated noise was dropped in the last 10 minutes to keep the journal within its budget.',
      );
      await expect(banner).not.toContainText('the API refuses them');
    }
  } finally {
    await stack.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
