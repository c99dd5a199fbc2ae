import { randomBytes } from 'node:crypto';
import type { Page } from '@playwright/test';
import { expect, SignedClient, test } from './kit/index.ts';
import { e2eEnv } from './support/env.ts';

// Issue 30 § Ephemeral clinics on the console's Clinics screen: clone the e2e clinic (its first-start state),
// the key and secret shown once, the expiry in the list, the clone's own data, then the drop with the slug typed
// back. Safe with parallel workers: each test clones under a slug of its own and only reads the template.
const env = e2eEnv();

async function signIn(page: Page): Promise<void> {
  await page.goto(`${env.baseUrl}/console/`);
  await page.getByLabel('Username').fill(env.operator);
  await page.getByLabel('Password').fill(env.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText(`Signed in as ${env.operator}`)).toBeVisible();
}

const total = async (creds: { apiKey: string; apiSecret: string }) => {
  const res = await new SignedClient(env.baseUrl, creds).call('GET', '/v1/pacientes?limit=1');
  return { status: res.status, total: res.json?.meta?.total as number | undefined };
};

test('clone a clinic from the console, use its key, drop it with its slug typed back', async ({ page }) => {
  const slug = `e2e-clone-${randomBytes(3).toString('hex')}`;
  const template = { apiKey: env.apiKey, apiSecret: env.apiSecret };
  await signIn(page);
  await page.getByRole('link', { name: 'Clinics' }).click();

  const creds = { apiKey: '', apiSecret: '' };
  await test.step('clone: time to live and slug; the key and secret shown once', async () => {
    await page.getByRole('button', { name: `Clone ${env.tenant}`, exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Time to live').fill('30m');
    await dialog.getByLabel('Slug (optional)').fill(slug);
    await dialog.getByRole('button', { name: 'Clone clinic' }).click();
    await expect(page.getByTestId('cloned-slug')).toHaveText(slug);
    creds.apiKey = (await page.getByTestId('cloned-api-key').textContent()) ?? '';
    creds.apiSecret = (await page.getByTestId('cloned-api-secret').textContent()) ?? '';
    expect(creds.apiSecret).toMatch(/^[0-9a-f]{64}$/);
    const expiresAt = Date.parse((await page.getByTestId('cloned-expires-at').textContent()) ?? '');
    expect(expiresAt - Date.now()).toBeGreaterThan(25 * 60_000);
    await page.getByLabel('I have stored the secret safely').check();
    await page.getByRole('button', { name: 'Done' }).click();
    await expect(page.getByTestId(`expires-${slug}`)).not.toHaveText('—');
    await expect(page.getByTestId(`expires-${env.tenant}`)).toHaveText('—');
  });

  await test.step("the clone's key reads its copy and writes only on the clone", async () => {
    // The copy is the template's first-start state, not its rows now (other specs write on the template).
    const before = await total(creds);
    expect(before.status).toBe(200);
    const onTemplate = (await total(template)).total;
    const created = await new SignedClient(env.baseUrl, creds).call(
      'POST',
      '/v1/pacientes',
      JSON.stringify({ nome: 'Paciente Do Clone E2E', data_nascimento: '1990-05-06' }),
    );
    expect(created.status).toBe(201);
    expect((await total(creds)).total).toBe((before.total ?? 0) + 1);
    // Nothing reached the template (another spec may write on it meanwhile, never removing a patient).
    const after = (await total(template)).total ?? 0;
    expect(after).toBeGreaterThanOrEqual(onTemplate ?? 0);
    const mine = await new SignedClient(env.baseUrl, template).call('GET', `/v1/pacientes/${created.json.data.id}`);
    expect(mine.status === 404 || mine.json?.data?.nome !== 'PACIENTE DO CLONE E2E').toBe(true);
  });

  await test.step('drop: the button waits for the slug typed back', async () => {
    await page.getByRole('button', { name: `Drop ${slug}`, exact: true }).click();
    const dialog = page.getByRole('dialog');
    const drop = dialog.getByRole('button', { name: 'Drop clinic' });
    await expect(drop).toBeDisabled();
    await dialog.getByLabel(`Type ${slug} to confirm`).fill(slug);
    await drop.click();
    await expect(page.getByTestId('drop-result')).toContainText('1 key(s)');
    await page.getByRole('button', { name: 'Done' }).click();
    await expect(page.getByRole('row').filter({ has: page.getByText(slug, { exact: true }) })).toHaveCount(0);
    expect((await total(creds)).status).toBe(401);
  });
});
