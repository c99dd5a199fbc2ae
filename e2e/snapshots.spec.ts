import { randomUUID } from 'node:crypto';
import type { Page } from '@playwright/test';
import { expect, SignedClient, test } from './kit/index.ts';
import { e2eEnv } from './support/env.ts';

// Issue 30 § 2, the console's Snapshots panel: save, restore (slug typed back), export (download), import
// (upload) and delete, on a clinic of this test's own (safe with parallel workers).
const env = e2eEnv();
const SLUG = `snap-e2e-${randomUUID().slice(0, 8)}`;

async function signIn(page: Page): Promise<void> {
  await page.goto(`${env.baseUrl}/console/`);
  await page.getByLabel('Username').fill(env.operator);
  await page.getByLabel('Password').fill(env.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText(`Signed in as ${env.operator}`)).toBeVisible();
}

test('an operator saves, restores, exports, imports and deletes a snapshot from the Clinics screen', async ({
  page,
}) => {
  await signIn(page);
  const session = await (await page.request.get(`${env.baseUrl}/admin/api/auth/session`)).json();
  const csrf = { 'x-csrf-token': session.data.csrf_token };
  expect(
    (
      await page.request.post(`${env.baseUrl}/admin/api/tenants`, {
        headers: csrf,
        data: { slug: SLUG, nome: 'Clinica Snapshot E2E' },
      })
    ).status(),
  ).toBe(201);
  const key = (
    await (
      await page.request.post(`${env.baseUrl}/admin/api/tenants/${SLUG}/keys`, {
        headers: csrf,
        data: { scopes: ['pacientes:read', 'pacientes:write'] },
      })
    ).json()
  ).data;
  const client = new SignedClient(env.baseUrl, { apiKey: key.api_key, apiSecret: key.api_secret });
  const patients = async () => (await client.call('GET', '/v1/pacientes?limit=1')).json.meta.total;

  // Straight to this clinic on the Clinics screen (the list may be long with other workers' clinics).
  await page.goto(`${env.baseUrl}/console/#/tenants?tenant=${SLUG}`);
  const panel = page.getByTestId('snapshots-panel');
  await panel.getByLabel('Snapshot name').fill('vazio');
  await panel.getByRole('button', { name: 'Save snapshot' }).click();
  await expect(panel.getByTestId('snapshot-vazio')).toBeVisible();

  const created = await client.call(
    'POST',
    '/v1/pacientes',
    JSON.stringify({ nome: 'Paciente Do Snapshot E2E', data_nascimento: '1990-05-06' }),
  );
  expect(created.status).toBe(201);
  expect(await patients()).toBe(1);

  await panel.getByRole('button', { name: 'Restore vazio' }).click();
  const confirm = panel.getByLabel(`Type ${SLUG} to confirm`);
  await expect(panel.getByRole('button', { name: 'Restore snapshot' })).toBeDisabled();
  await confirm.fill(SLUG);
  await panel.getByRole('button', { name: 'Restore snapshot' }).click();
  await expect(panel.getByTestId('snapshot-restored')).toBeVisible();
  expect(await patients()).toBe(0);

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    panel.getByRole('link', { name: 'Export vazio' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(`${SLUG}--vazio.snapshot.tar`);
  const file = await download.path();

  await panel.getByRole('button', { name: 'Delete vazio' }).click();
  await expect(panel.getByTestId('snapshot-vazio')).toHaveCount(0);
  await panel.getByLabel('Import an archive into this clinic').setInputFiles(file);
  await panel.getByRole('button', { name: 'Import snapshot' }).click();
  await expect(panel.getByTestId('snapshot-imported')).toBeVisible();
  await expect(panel.getByTestId('snapshot-vazio')).toBeVisible();
  expect(await patients()).toBe(0);
});
