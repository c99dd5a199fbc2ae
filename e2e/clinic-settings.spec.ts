import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { expect, test } from './kit/index.ts';

// Issue 14 item 6: clinic defaults chosen by name from the clinic's units, doctors and insurers; the external
// report center setting. What the pickers set is what an integrator reads in GET /v1/config.
const SCREENSHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/screenshots');

/** `E2E_SCREENSHOTS=1 npm run test:e2e` refreshes the pictures in docs/screenshots. */
async function shot(page: Page, name: string): Promise<void> {
  if (!process.env.E2E_SCREENSHOTS) return;
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

// The clinic goes back to its first-start settings for the specs after this one.
test.afterEach(async ({ resetTenant }) => {
  await resetTenant();
});

test('defaults picked by name reach GET /v1/config; the external report center can be switched off', async ({
  operatorPage: page,
  appliance,
  api,
  consoleApi,
}) => {
  await page.getByRole('link', { name: 'Clinics' }).click();
  await page.getByRole('button', { name: `Settings of ${appliance.tenant}` }).click();
  const form = page.getByRole('form', { name: `Settings of ${appliance.tenant}` });

  const unit = form.getByLabel('Default unit');
  const insurer = form.getByLabel('Default insurer');
  const examDoctor = form.getByLabel('Default exam doctor');
  const reportDoctor = form.getByLabel('Default reporting doctor');
  // Names, not ids: the pickers list the clinic's rows.
  await expect(unit.locator('option', { hasText: 'Unidade Centro — Sao Paulo/SP' })).toHaveCount(1);
  await expect(insurer.locator('option', { hasText: 'Saude Mais E2E — ANS 412345' })).toHaveCount(1);
  await expect(examDoctor.locator('option', { hasText: appliance.medicoName })).toHaveCount(1);

  await unit.selectOption({ label: 'Unidade Campinas — Campinas/SP' });
  await insurer.selectOption({ label: 'Saude Mais E2E — ANS 412345' });
  const doctorLabel = (await examDoctor.locator('option', { hasText: appliance.medicoName }).textContent())!;
  await examDoctor.selectOption({ label: doctorLabel });
  await reportDoctor.selectOption({ label: doctorLabel });
  const central = form.getByLabel('External report center available');
  await expect(central).toBeChecked();
  await central.uncheck();
  await form.getByRole('button', { name: 'Save settings' }).click();
  await expect(form.getByText('Settings saved.')).toBeVisible();
  await shot(page, 'clinic-settings-1440');
  await page.setViewportSize({ width: 1024, height: 900 });
  await shot(page, 'clinic-settings-1024');

  const unidades = await consoleApi.call<Array<{ id: number; nome: string }>>(
    'GET',
    `/tenants/${appliance.tenant}/unidades`,
  );
  const convenios = await consoleApi.call<Array<{ id: number; nome: string }>>(
    'GET',
    `/tenants/${appliance.tenant}/convenios`,
  );
  const config = await api.get('/v1/config');
  expect(config.status).toBe(200);
  expect(config.json.data.defaults).toMatchObject({
    unidade_id: unidades.find((u) => u.nome === 'Unidade Campinas')!.id,
    convenio_id: convenios.find((c) => c.nome === 'Saude Mais E2E')!.id,
    medico_exame_id: appliance.medicoId,
    medico_laudo_id: appliance.medicoId,
  });
  const settings = await consoleApi.call<{ central_laudos_disponivel: boolean }>(
    'GET',
    `/tenants/${appliance.tenant}/settings`,
  );
  expect(settings.central_laudos_disponivel).toBe(false);

  // After a reload the pickers show the saved choices by name.
  await page.reload();
  await expect(form.getByLabel('Default unit').locator('option:checked')).toHaveText('Unidade Campinas — Campinas/SP');
  await expect(form.getByLabel('External report center available')).not.toBeChecked();
});
