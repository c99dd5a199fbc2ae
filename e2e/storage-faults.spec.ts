import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { expect, test } from './kit/index.ts';

// Writes patients in the worker's clinic, from its first-start state. The panel lists (and its clean-up turns
// off) the storage faults of every clinic: it runs alone.
test.use({ resetBeforeEach: true, applianceWide: true });

// Issue 22 § 5: storage faults have a panel like the backend faults, and it really breaks downloads.
const SCREENSHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/screenshots');

async function shot(page: Page, name: string): Promise<void> {
  if (!process.env.E2E_SCREENSHOTS) return;
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

const PDF = Buffer.from('%PDF-1.7\n% anexo do prontuario (e2e)\n%%EOF').toString('base64');

test('storage faults panel: a fault turned on for the clinic makes its file downloads answer 500 RES_ARQUIVO_S3_FALHA; off again, they redirect', async ({
  api,
  appliance,
  consoleApi,
  operatorPage: page,
}) => {
  // A patient record with an attachment: its download is a presigned redirect.
  const patient = await api.post('/v1/pacientes', {
    nome: 'Paciente Do Anexo',
    data_nascimento: '1980-03-04',
    sexo: 'MAS',
  });
  expect(patient.status, JSON.stringify(patient.json?.error)).toBe(201);
  const record = await api.post(`/v1/pacientes/${patient.json.data.id}/prontuarios`, {
    anexos: [{ nome: 'exame.pdf', base64: PDF }],
  });
  expect(record.status, JSON.stringify(record.json?.error)).toBe(201);
  const download = `/v1/pacientes/${patient.json.data.id}/prontuarios/anexos/${record.json.data.anexos[0].id}/url`;
  expect((await api.get(download)).status).toBe(302);

  try {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Storage faults' }).click();
    await expect(page.getByRole('heading', { name: 'Storage faults', exact: true })).toBeVisible();
    await expect(page.getByText('No storage faults — files download normally')).toBeVisible();
    const form = page.getByRole('form', { name: 'New storage fault' });
    await form.getByLabel('Clinic').selectOption(appliance.tenant);
    await form.getByLabel('Rate 0–1').fill('1');
    await form.getByRole('button', { name: 'Turn storage fault on' }).click();

    const row = page.getByTestId('storage-faults').locator('tbody tr');
    await expect(row).toHaveCount(1);
    await expect(row).toContainText('100%');
    const faultId = await row.getAttribute('data-fault-id');

    const failed = await api.get(download);
    expect(failed.status).toBe(500);
    expect(failed.json.error.code).toBe('RES_ARQUIVO_S3_FALHA');
    expect(failed.headers.get('location')).toBeNull();
    // The panel counts the download it failed (refreshed every 5 s).
    await expect(row.locator('td').nth(4)).toHaveText('1', { timeout: 15_000 });
    for (const width of [1440, 1024]) {
      await page.setViewportSize({ width, height: width === 1440 ? 900 : 768 });
      await shot(page, `storage-faults-${width}`);
    }

    await page.getByRole('button', { name: `Turn storage fault ${faultId} off` }).click();
    await expect(page.getByText('No storage faults — files download normally')).toBeVisible();
    expect((await api.get(download)).status).toBe(302);

    // The switch is journaled as console actions, in words.
    const actions = (
      await consoleApi.call<{ items: Array<{ action: string | null }> }>('GET', '/audit?source=console&limit=10')
    ).items.map((i) => i.action);
    expect(actions).toEqual(expect.arrayContaining(['storage_fault.create', 'storage_fault.delete']));
    await page.goto(`${appliance.baseUrl}/console/#/audit?source=console`);
    await expect(page.locator('[data-action="storage_fault.create"]').first()).toHaveText('Storage fault on');
  } finally {
    await consoleApi.call('DELETE', '/storage-faults');
  }
});
