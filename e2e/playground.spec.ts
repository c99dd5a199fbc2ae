import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { expect, sign, test } from './kit/index.ts';

// Writes patients: start from the e2e clinic's first-start settings (another spec may have made CPF required).
test.use({ resetBeforeEach: true });

// Issue 14 item 5: the signing playground's signature for a given input is what the gateway accepts.
const SCREENSHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/screenshots');

/** `E2E_SCREENSHOTS=1 npm run test:e2e` refreshes the pictures in docs/screenshots. */
async function shot(page: Page, name: string): Promise<void> {
  if (!process.env.E2E_SCREENSHOTS) return;
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

test('the playground signs in the browser what the gateway accepts (GET with a query, POST with a body)', async ({
  operatorPage: page,
  consoleApi,
  appliance,
}) => {
  const key = await consoleApi.issueKey(appliance.tenant, ['pacientes:read', 'pacientes:write'], {
    label: 'Playground E2E',
  });
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
    expect(signature, 'same as an integrator computes from the spec').toBe(
      sign(key.apiSecret, ts, method, target, body),
    );
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
    await expect(page.getByTestId('curl')).toContainText(
      `X-Signature: ${await page.getByTestId('signature').textContent()}`,
    );
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

// Issue 22 § 4: choosing a key fills X-API-Key; Send signs with a fresh timestamp and goes through the gateway.
test('the playground sends: the chosen key fills X-API-Key, Send gets 200 from the gateway with a fresh timestamp, the answer and a curl that repeats it', async ({
  operatorPage: page,
  consoleApi,
  appliance,
}) => {
  const key = await consoleApi.issueKey(appliance.tenant, ['pacientes:read', 'pacientes:write'], {
    label: 'Playground Send E2E',
  });
  const secretSent: string[] = [];
  /** What the page handed the gateway to send: the signed request, never the secret. */
  const sends: Array<{ method: string; path: string; headers: Record<string, string>; body?: string }> = [];
  page.on('request', (request) => {
    if (`${request.url()} ${JSON.stringify(request.headers())} ${request.postData() ?? ''}`.includes(key.apiSecret))
      secretSent.push(request.url());
    if (request.url().endsWith('/admin/api/playground/send')) sends.push(JSON.parse(request.postData()!));
  });
  const journaled = async (answerBody: string) => {
    const requestId = JSON.parse(answerBody).meta.request_id as string;
    return (
      await consoleApi.call<{
        items: Array<{ chave_id: number; path: string; status: number; method: string; source: string }>;
      }>('GET', `/audit?request_id=${requestId}`)
    ).items;
  };

  try {
    await page.getByRole('link', { name: 'Signing playground' }).click();
    await page.getByLabel('Clinic').selectOption(appliance.tenant);
    await page.getByLabel('Key', { exact: true }).selectOption(String(key.id));
    await expect(page.getByLabel('API key (X-API-Key)')).toHaveValue(key.apiKey);
    await page.getByLabel('API secret').fill(key.apiSecret);
    await page.getByLabel('Path and query').fill('/v1/pacientes?limit=1&offset=0');
    // A stale timestamp on the page: Send does not use it.
    await page.getByLabel('Timestamp (X-Timestamp)').fill(String(Math.floor(Date.now() / 1000) - 3600));

    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await expect(page.getByTestId('response-status')).toHaveAttribute('data-status', '200');
    await expect(page.getByTestId('response-headers')).toContainText('content-type');
    await expect(page.getByTestId('response-headers')).toContainText('application/json');
    await expect(page.getByTestId('response-body')).toContainText('"error": null');

    // Signed with a fresh timestamp and the chosen key; the page shows the timestamp it used.
    expect(sends).toHaveLength(1);
    const sent = sends[0];
    expect(sent).toMatchObject({ method: 'GET', path: '/v1/pacientes?limit=1&offset=0' });
    expect(sent.headers['x-api-key']).toBe(key.apiKey);
    expect(Math.abs(Number(sent.headers['x-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(sent.headers['x-signature']).toBe(
      sign(key.apiSecret, sent.headers['x-timestamp'], 'GET', '/v1/pacientes?limit=1&offset=0', ''),
    );
    await expect(page.getByLabel('Timestamp (X-Timestamp)')).toHaveValue(sent.headers['x-timestamp']);
    // The gateway answered it as the key's call: in the journal under the key, 200.
    const answer = (await page.getByTestId('response-body').textContent())!;
    expect(await journaled(answer)).toEqual([
      expect.objectContaining({
        source: 'api',
        chave_id: key.id,
        method: 'GET',
        path: '/v1/pacientes?limit=1&offset=0',
        status: 200,
      }),
    ]);

    // The curl of that request carries the same signature; sent from Node within the window, it gets 200 too.
    const curl = (await page.getByTestId('sent-curl').textContent())!;
    expect(curl).toContain(`X-Signature: ${sent.headers['x-signature']}`);
    expect(curl).toContain(`X-Timestamp: ${sent.headers['x-timestamp']}`);
    const again = await fetch(`${appliance.baseUrl}/v1/pacientes?limit=1&offset=0`, {
      headers: {
        'x-api-key': key.apiKey,
        'x-timestamp': sent.headers['x-timestamp'],
        'x-signature': sent.headers['x-signature'],
      },
    });
    expect(again.status).toBe(200);

    // A write: the raw body signed byte for byte, a new Idempotency-Key per send, 201.
    const body = JSON.stringify({
      nome: 'Paciente Enviada Pelo Playground',
      data_nascimento: '1992-04-05',
      sexo: 'FEM',
    });
    await page.getByLabel('Method').selectOption('POST');
    await page.getByLabel('Path and query').fill('/v1/pacientes');
    await page.getByLabel('Body (raw bytes)').fill(body);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await expect(page.getByTestId('response-status')).toHaveAttribute('data-status', '201');
    await expect(page.getByTestId('response-body')).toContainText('PACIENTE ENVIADA PELO PLAYGROUND');
    expect(sends).toHaveLength(2);
    expect(sends[1].body).toBe(body);
    expect(sends[1].headers['x-signature']).toBe(
      sign(key.apiSecret, sends[1].headers['x-timestamp'], 'POST', '/v1/pacientes', body),
    );
    expect(sends[1].headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    await expect(page.getByTestId('sent-curl')).toContainText(
      `Idempotency-Key: ${sends[1].headers['idempotency-key']}`,
    );
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await expect.poll(() => sends.length).toBe(3);
    expect(sends[2].headers['idempotency-key']).not.toBe(sends[1].headers['idempotency-key']);
    await shot(page, 'playground-send-1440');
    await page.setViewportSize({ width: 1024, height: 768 });
    await shot(page, 'playground-send-1024');

    expect(secretSent, 'requests carrying the secret').toEqual([]);
    // Nothing of the secret is kept by the page.
    const stored = await page.evaluate(
      () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
    );
    expect(stored).not.toContain(key.apiSecret);
  } finally {
    await consoleApi.call('POST', `/keys/${key.id}/revoke`).catch(() => undefined);
  }
});
