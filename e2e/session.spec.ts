import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { expect, test } from './kit/index.ts';
import { e2eEnv } from './support/env.ts';

const env = e2eEnv();
const SCREENSHOTS =
  process.env.E2E_SCREENSHOTS_DIR ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/screenshots');

async function shot(page: Page, name: string): Promise<void> {
  if (!process.env.E2E_SCREENSHOTS) return;
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
}

async function signIn(page: Page): Promise<void> {
  await page.getByLabel('Username').fill(env.operator);
  await page.getByLabel('Password').fill(env.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Ends the session on the server, as the idle timeout does; the browser is not told. */
async function expireSession(page: Page): Promise<void> {
  const session = await page.request.get(`${env.baseUrl}/admin/api/auth/session`);
  const csrf = (await session.json()).data.csrf_token as string;
  const res = await page.request.post(`${env.baseUrl}/admin/api/auth/logout`, { headers: { 'x-csrf-token': csrf } });
  expect(res.status()).toBe(200);
}

const expired = (page: Page) => page.getByTestId('session-expired');

test('an expired session says so on the login and returns to the page the operator was on', async ({ page }) => {
  await page.goto(`${env.baseUrl}/console/#/tenants`);
  await expect(expired(page)).toHaveCount(0);
  await signIn(page);
  await expect(page.getByRole('heading', { name: 'Clinics' })).toBeVisible();

  await test.step('noticed by the next request while working', async () => {
    await expireSession(page);
    // The next request notices: the one the click makes, or the console's own 5-second poll (the appliance clock)
    // when it comes first on a busy machine; the login then replaces the menu and the click cannot happen.
    const clicked = await page
      .getByRole('link', { name: 'Audit log' })
      .click({ timeout: 3000 })
      .then(
        () => true,
        () => false,
      );
    const [pageUrl, heading] = clicked ? [/#\/audit/, 'Audit log'] : [/#\/tenants/, 'Clinics'];
    await expect(expired(page)).toHaveText(/Your session expired — sign in again/);
    await expect(page).toHaveURL(pageUrl);
    await shot(page, 'login-session-expired');
    await signIn(page);
    await expect(page.getByRole('heading', { name: heading })).toBeVisible();
    await expect(page).toHaveURL(pageUrl);
  });

  await test.step('noticed on a reload, on a page with parameters', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Clinic').selectOption(env.tenant);
    await expect(page).toHaveURL(new RegExp(`#/keys\\?tenant=${env.tenant}`));
    await expireSession(page);
    await page.reload();
    await expect(expired(page)).toBeVisible();
    await signIn(page);
    await expect(page.getByRole('heading', { name: 'API keys' })).toBeVisible();
    await expect(page).toHaveURL(new RegExp(`#/keys\\?tenant=${env.tenant}`));
  });

  await test.step('a sign-out on purpose is not an expiry', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    await expect(expired(page)).toHaveCount(0);
    await page.reload();
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    await expect(expired(page)).toHaveCount(0);
  });
});
