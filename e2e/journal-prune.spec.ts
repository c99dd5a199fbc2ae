import { readFile } from 'node:fs/promises';
import type { Page } from '@playwright/test';
import { expect, SignedClient, test } from './kit/index.ts';
import { e2eEnv } from './support/env.ts';

// Issue 30 § 6: a journal QA cannot brick. The Audit screen's "Prune journal…" counts what would go (a dry run)
// and prunes exactly that; the prune is journaled. Safe beside other workers: it prunes only a clinic this spec
// created (a unique slug), whose entries no other spec reads.
const env = e2eEnv();

async function signIn(page: Page): Promise<string> {
  await page.goto(`${env.baseUrl}/console/`);
  await page.getByLabel('Username').fill(env.operator);
  await page.getByLabel('Password').fill(env.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText(`Signed in as ${env.operator}`)).toBeVisible();
  const session = await (await page.request.get(`${env.baseUrl}/admin/api/auth/session`)).json();
  return session.data.csrf_token as string;
}

test("the Audit screen prunes one clinic's journal after saying how many entries go", async ({ page }) => {
  const csrf = await signIn(page);
  const slug = `prune-e2e-${Date.now().toString(36)}`;
  const post = (path: string, data: unknown) =>
    page.request.post(`${env.baseUrl}/admin/api${path}`, { headers: { 'x-csrf-token': csrf }, data });
  const entriesOf = async () =>
    (await (await page.request.get(`${env.baseUrl}/admin/api/audit?tenant=${slug}&limit=200`)).json()).data
      .items as Array<{
      action: string | null;
      path: string;
    }>;

  await test.step('a clinic of its own, a key, three signed calls', async () => {
    expect((await post('/tenants', { slug, nome: 'Clinica Prune E2E' })).status()).toBe(201);
    const key = (await (await post(`/tenants/${slug}/keys`, { scopes: ['pacientes:read'] })).json()).data;
    const client = new SignedClient(env.baseUrl, { apiKey: key.api_key, apiSecret: key.api_secret });
    for (let i = 0; i < 3; i++) expect((await client.call('GET', '/v1/pacientes?limit=1')).status).toBe(200);
  });
  // The clinic's entries: its creation, its key, the three calls.
  const before = await entriesOf();
  expect(before.length).toBeGreaterThanOrEqual(5);

  await page.getByRole('link', { name: 'Audit' }).click();
  await page.getByRole('button', { name: 'Prune journal…' }).click();
  const dialog = page.getByRole('dialog');
  // Two minutes ahead, in the browser's zone (the field has minute precision): every entry above is older.
  const later = await page.evaluate(() => {
    const d = new Date(Date.now() + 120_000);
    return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
  });
  await dialog.getByLabel('Older than').fill(later);
  await dialog.getByLabel('Clinic').selectOption(slug);
  await dialog.getByRole('button', { name: 'Count entries' }).click();
  await expect(dialog.getByTestId('prune-count')).toContainText(`This removes ${before.length} entries of ${slug}`);
  // Export before pruning: the dialog's Export HAR gives the clinic's calls up to the same time (HAR 1.2).
  const download = page.waitForEvent('download');
  await dialog.getByRole('button', { name: 'Export HAR' }).click();
  const har = JSON.parse(await readFile((await (await download).path())!, 'utf8'));
  expect(har.log.version).toBe('1.2');
  expect(
    har.log.entries.filter((e: { request: { url: string } }) => e.request.url.includes('/v1/pacientes')),
  ).toHaveLength(3);
  // Counting removed nothing.
  expect((await entriesOf()).length).toBeGreaterThanOrEqual(before.length);

  await dialog.getByRole('button', { name: `Prune ${before.length} entries` }).click();
  // The export itself was journaled (journal.har) under the clinic before `later`: it goes too.
  await expect(page.getByTestId('prune-result')).toContainText(`Removed ${before.length + 1} entries of ${slug}`);
  await page.getByRole('button', { name: 'Done' }).click();

  // What is left of the clinic's journal: the records of the count and of the prune.
  const left = await entriesOf();
  expect(left.map((e) => e.action)).toEqual(['journal.prune', 'journal.prune']);
  await expect(page.locator(`[data-action="journal.prune"]`).first()).toBeVisible();
});
