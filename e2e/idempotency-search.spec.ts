import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { expect, test } from './kit/index.ts';

// Writes patients: start from the e2e clinic's first-start settings (another spec may have made CPF required).
test.use({ resetBeforeEach: true });

// Issue 22 § 5: search a clinic by Idempotency-Key value across its keys; 422 conflicts with both bodies' fingerprints.
const SCREENSHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/screenshots');

async function shot(page: Page, name: string): Promise<void> {
  if (!process.env.E2E_SCREENSHOTS) return;
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

test('idempotency: a value is found under every key of the clinic that used it; its 422 conflict shows both fingerprints', async ({
  api,
  appliance,
  consoleApi,
  operatorPage: page,
}) => {
  const lab = await consoleApi.issueKey(appliance.tenant, ['pacientes:read', 'pacientes:write'], {
    label: 'Laboratório (busca e2e)',
  });
  const portal = await consoleApi.issueKey(appliance.tenant, ['pacientes:read', 'pacientes:write'], {
    label: 'Portal (busca e2e)',
  });
  const idem = `pedido-${Date.now()}`;
  const body = { nome: 'Paciente Da Busca', data_nascimento: '1975-08-09', sexo: 'FEM' };
  const first = await api.as(lab).post('/v1/pacientes', body, { headers: { 'idempotency-key': idem } });
  expect(first.status).toBe(201);
  // The same value under another key of the clinic is another entry (scope: per API key).
  expect(
    (
      await api
        .as(portal)
        .post('/v1/pacientes', { ...body, nome: 'Paciente Do Portal' }, { headers: { 'idempotency-key': idem } })
    ).status,
  ).toBe(201);
  // The lab retries with another body: 422.
  const conflict = await api
    .as(lab)
    .post('/v1/pacientes', { ...body, nome: 'Paciente Trocada' }, { headers: { 'idempotency-key': idem } });
  expect(conflict.status).toBe(422);
  expect(conflict.json.error.code).toBe('IDEMPOTENCY_CONFLICT');

  try {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Idempotency' }).click();
    const search = page.getByRole('search', { name: 'Idempotency search' });
    await search.getByLabel('Clinic').selectOption(appliance.tenant);
    await search.getByLabel('Idempotency-Key').fill(idem);
    await search.getByRole('button', { name: 'Search' }).click();
    await expect(page).toHaveURL(new RegExp(`idem_key=${idem}`));

    const entries = page.getByTestId('idem-search-entries').locator('tbody tr');
    await expect(entries).toHaveCount(2);
    expect(
      (await entries.evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-key-id'))))).sort(),
    ).toEqual([lab.id, portal.id].sort());
    for (const row of await entries.all()) await expect(row).toContainText('Completed');

    const conflicts = page.getByTestId('idem-conflicts').locator('tbody tr');
    await expect(conflicts).toHaveCount(1);
    const row = conflicts.first();
    await expect(row).toHaveAttribute('data-request-id', conflict.json.meta.request_id);
    await expect(row).toContainText('Another body');
    await expect(row).toContainText(`#${lab.id}`);
    const firstPrint = await row
      .getByTestId('conflict-first')
      .locator('[data-fingerprint]')
      .getAttribute('data-fingerprint');
    const sentPrint = await row
      .getByTestId('conflict-sent')
      .locator('[data-fingerprint]')
      .getAttribute('data-fingerprint');
    expect(firstPrint).toMatch(/^[0-9a-f]{64}$/);
    expect(sentPrint).toMatch(/^[0-9a-f]{64}$/);
    expect(sentPrint).not.toBe(firstPrint);
    // The first body's fingerprint is the lab's stored entry's.
    const labRow = page.getByTestId('idem-search-entries').locator(`tr[data-key-id="${lab.id}"]`);
    await expect(labRow.locator('[data-fingerprint]')).toHaveAttribute('data-fingerprint', firstPrint!);
    for (const width of [1440, 1024]) {
      await page.setViewportSize({ width, height: width === 1440 ? 900 : 768 });
      await shot(page, `idempotency-search-${width}`);
    }
    await page.setViewportSize({ width: 1440, height: 900 });

    // The conflict's journal entry shows both fingerprints too.
    await row.locator('td').first().getByRole('link').click();
    await expect(page.getByTestId('detail-error-code')).toHaveText('IDEMPOTENCY_CONFLICT');
    await expect(page.getByTestId('conflict-first-fingerprint')).toHaveText(firstPrint!);
    await expect(page.getByTestId('conflict-sent-fingerprint')).toHaveText(sentPrint!);
    await page.goBack();

    // A value nobody used: nothing found, and no conflict listed for it.
    await search.getByLabel('Idempotency-Key').fill(`${idem}-nunca`);
    await search.getByRole('button', { name: 'Search' }).click();
    await expect(page.getByText('No live entry with this value')).toBeVisible();
    await expect(page.getByText('No conflicts')).toBeVisible();
  } finally {
    for (const key of [lab, portal]) await consoleApi.call('POST', `/keys/${key.id}/revoke`).catch(() => undefined);
  }
});
