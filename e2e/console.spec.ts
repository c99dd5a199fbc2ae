import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { expect, SignedClient, test } from './kit/index.ts';
import { e2eEnv } from './support/env.ts';

const env = e2eEnv();
const SCREENSHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/screenshots');

/** `E2E_SCREENSHOTS=1 npm run test:e2e` refreshes the pictures in docs/screenshots. */
async function shot(page: Page, name: string): Promise<void> {
  if (!process.env.E2E_SCREENSHOTS) return;
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
}

async function signIn(page: Page, username = env.operator, password = env.password): Promise<void> {
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

const v1 = new SignedClient(env.baseUrl, { apiKey: env.apiKey, apiSecret: env.apiSecret });
const ping = (creds: { apiKey: string; apiSecret: string }) => v1.as(creds).get('/v1/ping');

/** Reads the one-time secret dialog and closes it the way an operator must (acknowledge, then Done). */
async function takeSecret(page: Page, screenshot?: string): Promise<{ apiKey: string; apiSecret: string }> {
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByText('it will not be shown again')).toBeVisible();
  const apiKey = (await dialog.getByTestId('issued-api-key').textContent())!.trim();
  const apiSecret = (await dialog.getByTestId('issued-api-secret').textContent())!.trim();
  expect(apiKey).toMatch(/^ce_live_[0-9a-f]{32}$/);
  expect(apiSecret).toMatch(/^[0-9a-f]{64}$/);
  await expect(dialog.getByRole('button', { name: 'Copy secret' })).toBeVisible();
  if (screenshot) await shot(page, screenshot);
  const done = dialog.getByRole('button', { name: 'Done' });
  await expect(done).toBeDisabled();
  await dialog.getByLabel('I have stored the secret safely').check();
  await done.click();
  await expect(page.getByRole('dialog')).toHaveCount(0);
  return { apiKey, apiSecret };
}

// The faults screen lists (and "Turn all faults off" clears) every clinic's faults: the test runs alone.
test.describe('the whole appliance', () => {
  test.use({ applianceWide: true });

  test('operator issues, uses, audits, rotates, binds and revokes a key', async ({ page }) => {
    await page.goto(`${env.baseUrl}/`);
    await expect(page).toHaveURL(/\/console\/$/);
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    await shot(page, 'login');

    await test.step('a wrong password is refused', async () => {
      await signIn(page, env.operator, 'not-the-password');
      await expect(page.getByRole('alert')).toContainText('Wrong username or password');
      // Nothing that would tell a real username from an unknown one (issue 12).
      await expect(page.getByRole('alert')).not.toContainText('attempt');
    });

    await test.step('sign in', async () => {
      await signIn(page);
      await expect(page.getByRole('heading', { name: 'API keys' })).toBeVisible();
      await expect(page.getByText(`Signed in as ${env.operator}`)).toBeVisible();
    });

    let creds = { apiKey: '', apiSecret: '' };
    let keyId = 0;
    await test.step('issue a key: the secret is shown once', async () => {
      await page.getByRole('button', { name: '+ New key' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Label').fill('Laboratorio parceiro (E2E)');
      await dialog.getByRole('button', { name: 'Full access' }).click();
      await dialog.getByRole('button', { name: 'Issue key' }).click();
      creds = await takeSecret(page, 'new-key-secret');
      const row = page.locator('tr', { hasText: 'Laboratorio parceiro (E2E)' });
      await expect(row).toBeVisible();
      keyId = Number(await row.getAttribute('data-key-id'));
      // The list shows a masked key and never the secret.
      await expect(row).toContainText('ce_live_');
      await expect(page.locator('body')).not.toContainText(creds.apiSecret);
      await expect(page.locator('body')).not.toContainText(creds.apiKey);
    });

    let requestId = '';
    await test.step('a signed API call with the new key succeeds', async () => {
      const res = await ping(creds);
      expect(res.status).toBe(200);
      expect(res.json.data.auth.chave_id).toBe(keyId);
      expect(res.json.data.auth.medico_id).toBe(0);
      requestId = res.json.meta.request_id;
    });

    await test.step('keys screen', async () => {
      await page.reload();
      await expect(page.locator(`tr[data-key-id="${keyId}"]`)).toContainText(/just now|min ago/);
      await shot(page, 'keys');
    });

    await test.step('the call appears in the audit log', async () => {
      await page.getByRole('link', { name: 'Audit log' }).click();
      await page.getByRole('form', { name: 'Audit filters' }).getByLabel('Key id').fill(String(keyId));
      await page.getByRole('button', { name: 'Apply filters' }).click();
      const row = page.locator(`tr[data-request-id="${requestId}"]`);
      // The audit writer batches; refresh until the entry lands (bounded).
      await expect(async () => {
        await page.getByRole('button', { name: /Refresh/ }).click();
        await expect(row).toBeVisible({ timeout: 1000 });
      }).toPass({ timeout: 15_000 });
      await expect(row).toContainText('/v1/ping');
      await expect(row).toContainText('200');
      // The journal's budget: bytes against AUDIT_MAX_BYTES (default 2 GiB), rows against AUDIT_MAX_ROWS (5,000,000), the oldest entry.
      await expect(page.getByTestId('audit-storage')).toContainText(/[\d.]+ MB \/ 2048\.0 MB/);
      await expect(page.getByTestId('audit-storage')).toContainText(/[1-9][\d,]* \/ 5,000,000 rows/);
      await expect(page.getByTestId('audit-storage')).toContainText('Oldest entry');
      // …and its files on DATA_DIR against the same budget (its pages in gateway.db, the WAL's share of 8 MiB and its 32 KiB index).
      await expect(page.getByTestId('audit-storage')).toContainText(
        /On disk the journal takes [\d.]+ MB of its 2048\.0 MB \(its pages in\s+gateway\.db, 8\.0 MB for the WAL\)/,
      );
      await page.getByRole('form', { name: 'Audit filters' }).getByLabel('Key id').fill('');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await expect(page.locator('tbody tr').first()).toBeVisible();
      await shot(page, 'audit-log');
      await page.locator(`tr[data-request-id="${requestId}"]`).click();
      await expect(page.getByTestId('detail-request-id')).toHaveText(requestId);
      await shot(page, 'audit-detail-api');
    });

    await test.step('rotate: the old secret fails at once, the new one works', async () => {
      await page.getByRole('link', { name: 'API keys' }).click();
      await page.getByRole('button', { name: `Rotate key ${keyId}` }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Rotate secret' }).click();
      const rotated = await takeSecret(page);
      expect(rotated.apiKey).toBe(creds.apiKey);
      expect(rotated.apiSecret).not.toBe(creds.apiSecret);
      const old = await ping(creds);
      expect(old.status).toBe(401);
      expect(old.json.error.code).toBe('AUTH_INVALID_SIGNATURE');
      const fresh = await ping(rotated);
      expect(fresh.status).toBe(200);
      creds = rotated;
    });

    await test.step('bind a doctor: ping shows its medico_id', async () => {
      await page.getByRole('button', { name: `Edit key ${keyId}` }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Bound doctor').selectOption(String(env.medicoId));
      await dialog.getByRole('button', { name: 'Save changes' }).click();
      await expect(page.getByRole('dialog')).toHaveCount(0);
      await expect(page.locator(`tr[data-key-id="${keyId}"]`).getByTestId('bound-doctor')).toContainText(
        env.medicoName,
      );
      const res = await ping(creds);
      expect(res.status).toBe(200);
      expect(res.json.data.auth.medico_id).toBe(env.medicoId);
    });

    await test.step('revoke: the key gets AUTH_KEY_REVOKED', async () => {
      await page.getByRole('button', { name: `Revoke key ${keyId}` }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
      await expect(page.getByRole('dialog')).toHaveCount(0);
      await expect(page.locator(`tr[data-key-id="${keyId}"]`)).toHaveCount(0);
      const res = await ping(creds);
      expect(res.status).toBe(401);
      expect(res.json.error.code).toBe('AUTH_KEY_REVOKED');
    });

    await test.step('every console action is in the audit log with its operator', async () => {
      await page.goto(`${env.baseUrl}/console/#/audit?source=console&chave_id=${keyId}`);
      // Each action in words, its code in data-action (and in the entry's detail).
      const actionRow = (action: string) =>
        page
          .locator('tbody tr')
          .filter({ has: page.locator(`[data-action="${action}"]`) })
          .first();
      for (const [action, words] of [
        ['key.create', 'Key issued'],
        ['key.rotate', 'Secret rotated'],
        ['key.update', 'Key edited'],
        ['key.revoke', 'Key revoked'],
      ]) {
        await expect(actionRow(action)).toContainText(words);
      }
      await actionRow('key.update').click();
      await expect(page.getByTestId('detail-action')).toHaveText('Key edited (key.update)');
      await expect(page.getByText('Operator', { exact: true })).toBeVisible();
      await expect(page.locator('dd', { hasText: env.operator })).toBeVisible();
      await shot(page, 'audit-detail');
    });

    await test.step('a console API call without the CSRF token is refused', async () => {
      // page.request shares the browser's cookies: a valid session, but no X-CSRF-Token header.
      const res = await page.request.post(`${env.baseUrl}/admin/api/tenants/${env.tenant}/keys`, {
        data: { scopes: ['exames:read'] },
      });
      expect(res.status()).toBe(403);
      expect((await res.json()).error.code).toBe('ADMIN_CSRF_INVALID');
      const without = await page.request.get(`${env.baseUrl}/admin/api/tenants`, { headers: { cookie: '' } });
      expect([200, 401]).toContain(without.status());
    });

    await test.step('backend faults: switch one on, watch the API fail, switch it off', async () => {
      await page.getByRole('link', { name: 'Backend faults' }).click();
      await expect(page.getByText('No faults — the backend behaves normally')).toBeVisible();
      await page.getByLabel('Clinic').selectOption(env.tenant);
      await page.getByLabel('Method').selectOption('GET');
      await page.getByLabel('API path (glob)').fill('/v1/pacientes*');
      await page.getByLabel('Fault', { exact: true }).selectOption('http500');
      await page.getByRole('button', { name: 'Turn fault on' }).click();
      const row = page.locator('tbody tr', { hasText: '/v1/pacientes*' });
      await expect(row).toBeVisible();
      const watcher = { apiKey: env.apiKey, apiSecret: env.apiSecret };
      const failed = await v1.as(watcher).get('/v1/pacientes');
      expect(failed.status).toBe(503);
      expect(failed.json.error.code).toBe('SERVICE_UNAVAILABLE');
      await page.getByLabel('Fault', { exact: true }).selectOption('latency');
      await page.getByLabel('Latency ms').fill('1500');
      await page.getByLabel('API path (glob)').fill('/v1/exames*');
      await page.getByRole('button', { name: 'Turn fault on' }).click();
      await expect(page.locator('tbody tr', { hasText: '/v1/exames*' })).toBeVisible();
      await shot(page, 'faults');
      await page.getByRole('button', { name: 'Turn all faults off' }).click();
      await expect(page.getByText('No faults — the backend behaves normally')).toBeVisible();
      const healed = await v1.as(watcher).get('/v1/pacientes');
      expect(healed.status).toBe(200);
    });

    await test.step('clinics and settings', async () => {
      await page.getByRole('link', { name: 'Clinics' }).click();
      const form = page.getByRole('form', { name: `Settings of ${env.tenant}` });
      await expect(form.getByLabel('Clinic name')).toHaveValue(/Clinica/);
      await form.getByLabel('CPF required').check();
      await form.getByRole('button', { name: 'Save settings' }).click();
      await expect(form.getByText('Settings saved.')).toBeVisible();
      await shot(page, 'clinics');
    });

    await test.step('sign out', async () => {
      await page.getByRole('button', { name: 'Sign out' }).click();
      await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
      const res = await page.request.get(`${env.baseUrl}/admin/api/tenants`);
      expect(res.status()).toBe(401);
    });
  });
});

test('five wrong passwords from one address pause sign-in there, even with the right password', async ({ page }) => {
  await page.goto(`${env.baseUrl}/console/`);
  for (let attempt = 1; attempt <= 4; attempt++) {
    await signIn(page, env.lockUser, `wrong-${attempt}`);
    await expect(page.getByRole('alert')).toContainText('Wrong username or password');
  }
  await signIn(page, env.lockUser, 'wrong-5');
  await expect(page.getByRole('alert')).toContainText('Too many failed sign-ins');
  await signIn(page, env.lockUser, env.password);
  await expect(page.getByRole('alert')).toContainText('Too many failed sign-ins');
  await expect(page.getByRole('heading', { name: 'API keys' })).toHaveCount(0);
});
