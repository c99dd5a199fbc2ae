import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { expect, sign, test } from './kit/index.ts';

// Issue 14 item 5: the signing playground's signature for a given input is what the gateway accepts.
const SCREENSHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/screenshots');

/** `E2E_SCREENSHOTS=1 npm run test:e2e` refreshes the pictures in docs/screenshots. */
async function shot(page: Page, name: string): Promise<void> {
  if (!process.env.E2E_SCREENSHOTS) return;
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

test('the playground signs in the browser what the gateway accepts (GET with a query, POST with a body)', async ({ operatorPage: page, consoleApi, appliance }) => {
  const key = await consoleApi.issueKey(appliance.tenant, ['pacientes:read', 'pacientes:write'], { label: 'Playground E2E' });
  const secretSent: string[] = [];
  page.on('request', (request) => {
    if (`${request.url()} ${request.postData() ?? ''}`.includes(key.apiSecret)) secretSent.push(request.url());
  });

  await page.getByRole('link', { name: 'Signing playground' }).click();
  await expect(page.getByRole('heading', { name: 'Signing playground' })).toBeVisible();
  await page.getByLabel('Clinic').selectOption(appliance.tenant);
  await page.getByLabel('Key', { exact: true }).selectOption(String(key.id));
  await page.getByLabel('API key (X-API-Key)').fill(key.apiKey);
  await page.getByLabel('API secret').fill(key.apiSecret);

  /** Reads timestamp and signature off the page and sends the request from Node, with nothing else signed. */
  const send = async (method: string, target: string, body = '') => {
    const ts = await page.getByLabel('Timestamp (X-Timestamp)').inputValue();
    const signature = (await page.getByTestId('signature').textContent())!.trim();
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    expect(signature, 'same as an integrator computes from the spec').toBe(sign(key.apiSecret, ts, method, target, body));
    const res = await fetch(appliance.baseUrl + target, {
      method,
      headers: {
        'x-api-key': key.apiKey,
        'x-timestamp': ts,
        'x-signature': signature,
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...(method !== 'GET' ? { 'idempotency-key': randomUUID() } : {}),
      },
      body: body || undefined,
    });
    return { status: res.status, json: await res.json() };
  };

  await test.step('GET with a query string', async () => {
    const target = '/v1/pacientes?limit=2&offset=0';
    await page.getByLabel('Path and query').fill(target);
    const ts = await page.getByLabel('Timestamp (X-Timestamp)').inputValue();
    await expect(page.getByTestId('string-to-sign')).toHaveText(`${ts}.GET ${target}\\n\n`);
    const res = await send('GET', target);
    expect(res.status, JSON.stringify(res.json.error)).toBe(200);
    await expect(page.getByTestId('curl')).toContainText(`X-Signature: ${await page.getByTestId('signature').textContent()}`);
    await shot(page, 'playground-1440');
  });

  await test.step('POST with a body, signed byte for byte', async () => {
    const body = JSON.stringify({ nome: 'Paciente Playground E2E', data_nascimento: '1991-02-03' });
    await page.getByLabel('Method').selectOption('POST');
    await page.getByLabel('Path and query').fill('/v1/pacientes');
    await page.getByLabel('Body (raw bytes)').fill(body);
    await page.getByRole('button', { name: 'Now' }).click();
    await expect(page.getByTestId('curl')).toContainText('Idempotency-Key');
    const res = await send('POST', '/v1/pacientes', body);
    expect(res.status, JSON.stringify(res.json.error)).toBe(201);
    await page.setViewportSize({ width: 1024, height: 900 });
    await shot(page, 'playground-1024');
  });

  expect(secretSent, 'requests carrying the secret').toEqual([]);
});
