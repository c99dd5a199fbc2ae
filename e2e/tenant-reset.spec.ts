import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { expect, SignedClient, test } from './kit/index.ts';
import { e2eEnv } from './support/env.ts';
import { ephemeralConfig } from '../server/config.ts';
import { startStack } from '../appliance/stack.ts';
import { ensureOperator } from '../server/operators/index.ts';

// Issue 13 § Reset a tenant: the QA loop end to end. An operator issues a token (shown once) for one
// clinic with an expiry (issue 19), a test's beforeEach resets that clinic with it (no cookie, no CSRF;
// another clinic is refused), the console resets with a confirmation, and a revoked token is refused.
const env = e2eEnv();
const SLUG = 'reset-e2e';
const SCREENSHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/screenshots');

/** `E2E_SCREENSHOTS=1 npm run test:e2e` refreshes the pictures in docs/screenshots. */
async function shot(page: Page, name: string): Promise<void> {
  if (!process.env.E2E_SCREENSHOTS) return;
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
}

/** A signed /v1 call (the QA kit's client: an Idempotency-Key on writes). */
const v1 = (creds: { apiKey: string; apiSecret: string }, method: string, target: string, body = '') =>
  new SignedClient(env.baseUrl, creds).call(method, target, body || undefined);

/** What the beforeEach of docs/testing.md § Resetting a clinic between tests does. */
const automationReset = (token: string, slug = SLUG) =>
  fetch(`${env.baseUrl}/admin/api/automation/tenants/${slug}/reset`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{}',
  });

async function signIn(page: Page, baseUrl = env.baseUrl, password = env.password): Promise<void> {
  await page.goto(`${baseUrl}/console/`);
  await page.getByLabel('Username').fill(env.operator);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText(`Signed in as ${env.operator}`)).toBeVisible();
}

test('QA resets a clinic with an operator token and from the console; a revoked token is refused', async ({ page }) => {
  await signIn(page);
  const patients = async (creds: { apiKey: string; apiSecret: string }) =>
    (await v1(creds, 'GET', '/v1/pacientes?limit=1')).json.meta.total;
  const addPatient = async (creds: { apiKey: string; apiSecret: string }) =>
    expect(
      (
        await v1(
          creds,
          'POST',
          '/v1/pacientes',
          JSON.stringify({ nome: 'Paciente Do Teste E2E', data_nascimento: '1990-05-06' }),
        )
      ).status,
    ).toBe(201);

  let creds = { apiKey: '', apiSecret: '' };
  await test.step('a new clinic and a key for it', async () => {
    await page.getByRole('link', { name: 'Clinics' }).click();
    await page.getByRole('button', { name: '+ New clinic' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Slug').fill(SLUG);
    await dialog.getByLabel('Name', { exact: true }).fill('Clinica Reset E2E');
    await page.getByRole('button', { name: 'Create clinic' }).click();
    await expect(page.getByRole('row').filter({ has: page.getByText(SLUG, { exact: true }) })).toBeVisible();
    const session = await (await page.request.get(`${env.baseUrl}/admin/api/auth/session`)).json();
    const issued = await page.request.post(`${env.baseUrl}/admin/api/tenants/${SLUG}/keys`, {
      headers: { 'x-csrf-token': session.data.csrf_token },
      data: { scopes: ['pacientes:read', 'pacientes:write'] },
    });
    const key = (await issued.json()).data;
    creds = { apiKey: key.api_key, apiSecret: key.api_secret };
    expect(await patients(creds)).toBe(0);
  });

  let token = '';
  await test.step('issue an operator token for this clinic, with an expiry: shown once', async () => {
    await page.getByRole('link', { name: 'Operator tokens' }).click();
    await page.getByRole('button', { name: '+ New token' }).click();
    const form = page.getByRole('dialog');
    await form.getByLabel('Label').fill('Playwright beforeEach');
    // No clinic chosen: the form says so instead of issuing an all-clinics token.
    await page.getByRole('button', { name: 'Issue token' }).click();
    await expect(form.getByText('Choose at least one clinic')).toBeVisible();
    await form.getByLabel(SLUG, { exact: true }).check();
    await expect(form.getByLabel('Expires in (days)')).toHaveValue('30');
    await form.getByLabel('Expires in (days)').fill('400');
    await page.getByRole('button', { name: 'Issue token' }).click();
    await expect(form.getByText('from 1 to 365')).toBeVisible();
    await form.getByLabel('Expires in (days)').fill('7');
    await page.getByRole('button', { name: 'Issue token' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByText('it will not be shown again')).toBeVisible();
    await expect(dialog).toContainText(SLUG);
    token = (await dialog.getByTestId('issued-operator-token').textContent())!.trim();
    expect(token).toMatch(/^ce_op_[A-Za-z0-9_-]{43}$/);
    await expect(dialog.getByRole('button', { name: 'Done' })).toBeDisabled();
    await shot(page, 'operator-token-issued');
    await dialog.getByLabel('I have stored the token safely').check();
    await dialog.getByRole('button', { name: 'Done' }).click();
    const row = page.getByRole('row', { name: /Playwright beforeEach/ });
    await expect(row).toContainText(token.slice(0, 10));
    await expect(row).toContainText(SLUG);
    await expect(row).toContainText('Active');
    await expect(page.locator('body')).not.toContainText(token);
    const listed = await (await page.request.get(`${env.baseUrl}/admin/api/operator-tokens`)).json();
    const view = listed.data.find((t: { label: string }) => t.label === 'Playwright beforeEach');
    expect(view.tenants).toEqual([SLUG]);
    expect(Date.parse(view.expires_at) - Date.parse(view.created_at)).toBe(7 * 86_400_000);
    // The list shows that expiry: its day, month and time as the browser words them ("9 Mar, 14:05"), a week after today.
    const expiry = await page.evaluate((iso) => {
      const d = new Date(iso);
      return {
        day: d.toLocaleString('en-GB', { day: 'numeric', month: 'short' }),
        time: d.toLocaleString('en-GB', { hour: '2-digit', minute: '2-digit', hour12: false }),
      };
    }, view.expires_at as string);
    await expect(row).toContainText(new RegExp(`Expires ${expiry.day}( \\d{4})?, ${expiry.time}`));
  });

  await test.step("a test's beforeEach resets the clinic with the token", async () => {
    await addPatient(creds);
    expect(await patients(creds)).toBe(1);
    const res = await automationReset(token);
    expect(res.status).toBe(200);
    expect((await res.json()).data).toMatchObject({ slug: SLUG, nome: 'Clinica Reset E2E' });
    expect(await patients(creds)).toBe(0);
    // Bound to this clinic: any other clinic is refused.
    const other = await automationReset(token, env.tenant);
    expect(other.status).toBe(403);
    expect((await other.json()).error.code).toBe('ADMIN_FORBIDDEN');
  });

  await test.step('the console resets after a typed confirmation; the journal is kept', async () => {
    await addPatient(creds);
    await page.getByRole('link', { name: 'Clinics' }).click();
    await page.getByRole('button', { name: `Reset ${SLUG}` }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog).toContainText('Everything written to this clinic since its first start is lost');
    await expect(dialog).toContainText('The journal is kept');
    await expect(dialog.getByText(/audit entries/)).toHaveCount(0);
    const confirm = dialog.getByRole('button', { name: 'Reset clinic' });
    await expect(confirm).toBeDisabled();
    await dialog.getByLabel(`Type ${SLUG} to confirm`).fill(SLUG);
    await shot(page, 'tenant-reset');
    await confirm.click();
    await expect(dialog.getByTestId('reset-result')).toContainText('is back to its first-start state');
    await shot(page, 'tenant-reset-done');
    await dialog.getByRole('button', { name: 'Done' }).click();
    expect(await patients(creds)).toBe(0);
  });

  await test.step('a revoked token is refused at once', async () => {
    await page.getByRole('link', { name: 'Operator tokens' }).click();
    const row = page.getByRole('row', { name: /Playwright beforeEach/ });
    await row.getByRole('button', { name: /Revoke token/ }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke token' }).click();
    await expect(row).toContainText('Revoked');
    await shot(page, 'operator-tokens');
    expect((await automationReset(token)).status).toBe(401);
  });
});

// Issue 19 § 6: on an appliance in production mode (a stack of its own here) the dialog says reset is
// disabled and how to allow it, and offers nothing to confirm; the route refuses it as well.
test('in production the reset dialog says reset is disabled unless ALLOW_TENANT_RESET is set', async ({ page }) => {
  test.skip(Boolean(env.external), 'starts a production-mode stack of its own');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-e2e-prod-'));
  const stack = await startStack(ephemeralConfig(dataDir, { APP_ENV: 'production' }));
  try {
    await stack.tenants.create({ slug: 'clinica-prod', nome: 'Clinica Producao' });
    const password = 'e2e-production-password';
    await ensureOperator(stack.gatewayDb.db, env.operator, password);
    await signIn(page, stack.gatewayUrl, password);
    await page.getByRole('link', { name: 'Clinics' }).click();
    await page.getByRole('button', { name: 'Reset clinica-prod' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByTestId('reset-disabled')).toContainText('Reset is disabled on this appliance');
    await expect(dialog.getByTestId('reset-disabled')).toContainText('APP_ENV=production');
    await expect(dialog.getByTestId('reset-disabled')).toContainText('ALLOW_TENANT_RESET=true');
    await expect(dialog.getByLabel('Type clinica-prod to confirm')).toBeDisabled();
    await expect(dialog.getByRole('button', { name: 'Reset clinic' })).toBeDisabled();
    const session = await (await page.request.get(`${stack.gatewayUrl}/admin/api/auth/session`)).json();
    const refused = await page.request.post(`${stack.gatewayUrl}/admin/api/tenants/clinica-prod/reset`, {
      headers: { 'x-csrf-token': session.data.csrf_token },
      data: {},
    });
    expect(refused.status()).toBe(403);
    expect((await refused.json()).error.code).toBe('OPERATION_NOT_ALLOWED');
  } finally {
    await stack.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
