import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { expect, test } from './kit/index.ts';

const SCREENSHOTS =
  process.env.E2E_SCREENSHOTS_DIR ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/screenshots');

/** `E2E_SCREENSHOTS=1` writes docs/screenshots/<name>.png. */
async function shot(page: Page, name: string): Promise<void> {
  if (!process.env.E2E_SCREENSHOTS) return;
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

// Issue 31 § 3 and § 5: the Traffic screen's charts drawn with data at both sizes, the keys list's sparkline and
// Traffic link, and the alerts banner linking a failing key to its calls. Each worker works in its own clinic.

const SIZES = [
  { width: 1440, height: 900 },
  { width: 1024, height: 768 },
] as const;

/** The chart's canvas has pixels drawn (not a blank surface) and fits the page's width. */
async function drawn(page: Page, testId: string) {
  const canvas = page.getByTestId(testId).locator('canvas').first();
  await expect(canvas).toBeVisible();
  return canvas.evaluate((c: HTMLCanvasElement) => {
    const data = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    let painted = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) painted++;
    return { painted: painted > 0, fits: c.getBoundingClientRect().right <= document.documentElement.clientWidth };
  });
}

test('traffic: requests by status class, latency and refusals by code drawn with data at 1440×900 and 1024×768', async ({
  api,
  appliance,
  operatorPage: page,
}) => {
  for (let i = 0; i < 6; i++) expect((await api.call('GET', '/v1/pacientes?limit=1')).status).toBe(200);
  for (let i = 0; i < 3; i++) expect((await api.call('GET', '/v1/pacientes/999999')).status).toBe(404);
  for (const size of SIZES) {
    await test.step(`${size.width}×${size.height}`, async () => {
      await page.setViewportSize(size);
      await page.goto(`${appliance.baseUrl}/console/#/traffic?tenant=${appliance.tenant}`);
      await expect(page.getByRole('heading', { name: 'Traffic', exact: true })).toBeVisible();
      const totals = page.getByTestId('traffic-totals');
      await expect(totals).toContainText('Calls');
      for (const chart of ['chart-requests', 'chart-latency'])
        expect(await drawn(page, chart), chart).toEqual({ painted: true, fits: true });
      // The series' names in the charts' legends; the axes are labelled on the canvas (uPlot).
      const requests = page.getByTestId('chart-requests');
      for (const name of ['2xx', '3xx', '4xx', '5xx']) await expect(requests.locator('.u-legend')).toContainText(name);
      await expect(page.getByTestId('chart-latency').locator('.u-legend')).toContainText('p95');
      // The 404s' code, with its bar.
      await expect(page.getByTestId('refusals').locator('.bar').first()).toBeVisible();
      const sideways = await page.evaluate(
        () => document.documentElement.scrollWidth > document.documentElement.clientWidth,
      );
      expect(sideways).toBe(false);
      await shot(page, `traffic-${size.width}`);
    });
  }
  await test.step('the 24 h window', async () => {
    await page.getByLabel('Window').selectOption('24h');
    await expect(page).toHaveURL(/window=24h/);
    expect(await drawn(page, 'chart-requests')).toEqual({ painted: true, fits: true });
  });
});

test('keys list: each key has a sparkline of its last hour and a link to its Traffic', async ({
  api,
  appliance,
  operatorPage: page,
}) => {
  expect((await api.call('GET', '/v1/pacientes?limit=1')).status).toBe(200);
  await page.goto(`${appliance.baseUrl}/console/#/keys?tenant=${appliance.tenant}`);
  const row = page.locator('tr[data-key-id]').first();
  await expect(row.getByTestId('sparkline')).toBeVisible();
  const id = await row.getAttribute('data-key-id');
  await row.getByRole('link', { name: 'Traffic' }).click();
  await expect(page).toHaveURL(new RegExp(`#/traffic\\?tenant=${appliance.tenant}&chave_id=${id}`));
  await expect(page.getByLabel('Key', { exact: true })).toHaveValue(String(id));
});

test("alerts: a key refused on 5 of its 20 calls shows in the banner, linking to the key's calls", async ({
  api,
  appliance,
  consoleApi,
  operatorPage: page,
}) => {
  const key = await consoleApi.issueKey(appliance.tenant, ['pacientes:read'], { label: 'e2e alerts' });
  const failing = api.as(key);
  try {
    for (let i = 0; i < 20; i++)
      expect((await failing.call('GET', i < 5 ? '/v1/pacientes/999999' : '/v1/pacientes?limit=1')).status).toBe(
        i < 5 ? 404 : 200,
      );
    // A fresh load: the banner asks for the alerts at once (then every 30 s).
    await page.goto(`${appliance.baseUrl}/console/#/keys?tenant=${appliance.tenant}`);
    await page.reload();
    const banner = page.getByRole('alert', { name: 'Key alerts' });
    const alert = banner.locator(`li[data-alert="key_failing"][data-key-id="${key.id}"]`);
    await expect(alert).toContainText('refused on 5 of its 20 calls');
    await alert.getByRole('link', { name: 'Calls' }).click();
    await expect(page).toHaveURL(new RegExp(`#/audit\\?chave_id=${key.id}$`));
    await expect(page.locator('tr[data-request-id]').first()).toBeVisible();
  } finally {
    // Revoked: its alert leaves the other workers' banners.
    await consoleApi.revokeKey(key.id);
  }
});
