import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page, Request } from '@playwright/test';
import { startStack } from '../appliance/stack.ts';
import { ephemeralConfig } from '../server/config.ts';
import { expect, sign, test } from './kit/index.ts';
import { e2eEnv } from './support/env.ts';

const env = e2eEnv();
const SCREENSHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/screenshots');

/**
 * Issue 9: the API reference at /docs renders entirely offline. Every request that does not go to
 * the gateway itself is aborted and recorded; the page must render with none attempted.
 */
test('/docs renders the generated reference with the network cut off', async ({ page }, testInfo) => {
  const gateway = new URL(env.baseUrl).origin;
  const outside: string[] = [];
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(gateway) || url.startsWith('data:')) return route.continue();
    outside.push(url);
    return route.abort('internetdisconnected');
  });

  await page.goto(`${env.baseUrl}/docs`);
  await expect(page.getByRole('heading', { name: /Clinic Exams Gateway API/ })).toBeVisible();
  // Operations of several families, with their paths, are listed from /openapi.json.
  for (const p of ['/v1/ping', '/v1/pacientes/{id}', '/v1/medicos']) {
    await expect(
      page.locator('.opblock-summary-path', { hasText: new RegExp(`^${p.replace(/[{}]/g, '\\$&')}$`) }).first(),
    ).toBeVisible();
  }
  // An operation opens and shows its scope line, generated from the definition.
  await page
    .locator('.opblock-summary-path', { hasText: /^\/v1\/pacientes\/\{id\}$/ })
    .first()
    .click();
  await expect(page.getByText('Scope: pacientes:read').first()).toBeVisible();

  const file = testInfo.outputPath('api-docs.png');
  await page.screenshot({ path: file, fullPage: false });
  await testInfo.attach('api-docs', { path: file, contentType: 'image/png' });
  if (process.env.E2E_SCREENSHOTS) await page.screenshot({ path: path.join(SCREENSHOTS, 'api-docs.png') });
  expect(outside, 'requests that left the machine').toEqual([]);
});

test('/openapi.json is served unsigned to the browser as well', async ({ request }) => {
  const res = await request.get(`${env.baseUrl}/openapi.json`);
  expect(res.status()).toBe(200);
  expect((await res.json()).openapi).toBe('3.1.0');
});

// ---------------------------------------------------------------- issue 21 § 2: /docs that signs

/** The request Swagger UI's "Execute" sends to `path` (and its answer), after clicking it. */
async function execute(page: Page, path: string) {
  const [response] = await Promise.all([
    page.waitForResponse((r) => new URL(r.url()).pathname === path && r.request().method() !== 'OPTIONS'),
    page.getByRole('button', { name: 'Execute' }).click(),
  ]);
  const request = response.request();
  return { request, response, headers: await request.allHeaders(), url: new URL(request.url()) };
}

/** The status shown in the operation's live response (what the integrator reads on the page). */
const shownStatus = (page: Page) => page.locator('.live-responses-table tbody .response-col_status').first();

async function useKey(page: Page, apiKey: string, apiSecret: string) {
  await page.getByLabel('API key').fill(apiKey);
  await page.getByLabel('API secret').fill(apiSecret);
  await page.getByRole('button', { name: 'Sign with this key' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Signing "Try it out" requests as' })).toBeVisible();
}

test('/docs "Try it out" signs in the page (development): a signed list returns 200, a fresh timestamp per request, the secret never leaves the page', async ({
  page,
  appliance,
}) => {
  const sent: Request[] = [];
  page.on('request', (request) => sent.push(request));
  await page.goto(`${appliance.baseUrl}/docs#/Pacientes/getPacientes`);
  const panel = page.getByRole('region', { name: 'Request signing' });
  await expect(panel.getByRole('heading', { name: /signed in this page \(development mode\)/ })).toBeVisible();
  // The Authorize dialog (static header values) is hidden: a fixed X-Signature can never work.
  await expect(page.getByRole('button', { name: 'Authorize' })).toBeHidden();

  const operation = page.locator('#operations-Pacientes-getPacientes');
  await expect(operation.getByRole('button', { name: 'Try it out' })).toBeVisible();
  await operation.getByRole('button', { name: 'Try it out' }).click();
  await operation.locator('tr[data-param-name="limit"] input').fill('5');
  await operation.locator('tr[data-param-name="nome"] input').fill('JOSÉ');

  // Without a key the page sends the request unsigned, and the gateway says so.
  const unsigned = await execute(page, '/v1/pacientes');
  expect(unsigned.response.status()).toBe(401);
  expect(unsigned.headers['x-signature']).toBeUndefined();
  await expect(shownStatus(page)).toHaveText('401');

  await useKey(page, appliance.apiKey, appliance.apiSecret);
  await expect(page.getByLabel('API secret'), 'the field is emptied once the key is imported').toHaveValue('');

  const first = await execute(page, '/v1/pacientes');
  expect(first.response.status()).toBe(200);
  await expect(shownStatus(page)).toHaveText('200');
  expect((await first.response.json()).meta.limit).toBe(5);
  // Signed as the spec says, over the path and query exactly as sent (nome percent-encoded by the browser).
  expect(first.url.search).toMatch(/^\?nome=JOS%C3%89&limit=5(&offset=0)?$/);
  const ts = Number(first.headers['x-timestamp']);
  expect(Math.abs(ts - Date.now() / 1000)).toBeLessThan(10);
  expect(first.headers['x-api-key']).toBe(appliance.apiKey);
  expect(first.headers['x-signature']).toBe(
    sign(appliance.apiSecret, String(ts), 'GET', `${first.url.pathname}${first.url.search}`, ''),
  );

  // A fresh timestamp (and signature) per request.
  await page.waitForTimeout(1100);
  const second = await execute(page, '/v1/pacientes');
  expect(second.response.status()).toBe(200);
  expect(Number(second.headers['x-timestamp'])).toBeGreaterThan(ts);
  expect(second.headers['x-signature']).not.toBe(first.headers['x-signature']);

  // The secret is in no request (URL, headers, body) and in no storage of the page.
  for (const request of sent) {
    const everything = [request.url(), JSON.stringify(await request.allHeaders()), request.postData() ?? ''].join('\n');
    expect(everything, request.url()).not.toContain(appliance.apiSecret);
  }
  const stored = await page.evaluate(() =>
    JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, cookie: document.cookie }),
  );
  expect(stored).not.toContain(appliance.apiSecret);

  // "Forget" drops the key: the next request goes unsigned.
  await page.getByRole('button', { name: 'Forget the key' }).click();
  expect((await execute(page, '/v1/pacientes')).response.status()).toBe(401);
});

test('/docs signs a body byte for byte as Swagger UI sends it: POST /v1/ping with spacing and non-ASCII text', async ({
  page,
  appliance,
}) => {
  await page.goto(`${appliance.baseUrl}/docs#/Saude/postPing`);
  await useKey(page, appliance.apiKey, appliance.apiSecret);
  const operation = page.locator('#operations-Saude-postPing');
  await operation.getByRole('button', { name: 'Try it out' }).click();
  // Not what JSON.stringify would give: a client that re-serializes before signing would fail.
  const body = '{ "nome" : "José da Conceição",\n  "itens": [1,  2] }';
  await operation.locator('textarea.body-param__text').fill(body);
  const call = await execute(page, '/v1/ping');
  expect(call.request.postData()).toBe(body);
  expect(call.response.status()).toBe(200);
  expect((await call.response.json()).data.echo).toEqual({
    method: 'POST',
    body: { nome: 'José da Conceição', itens: [1, 2] },
  });
  expect(call.headers['x-signature']).toBe(
    sign(appliance.apiSecret, call.headers['x-timestamp'], 'POST', '/v1/ping', body),
  );
});

test('/docs signs without WebCrypto too (a page over plain HTTP from another machine): the in-page HMAC gets a 200', async ({
  page,
  appliance,
}) => {
  // Browsers offer no crypto.subtle outside a secure context (http://<lan address>); the page falls back.
  await page.addInitScript(() => Object.defineProperty(window.crypto, 'subtle', { get: () => undefined }));
  await page.goto(`${appliance.baseUrl}/docs#/Saude/postPing`);
  await useKey(page, appliance.apiKey, appliance.apiSecret);
  await expect(page.getByRole('status')).toContainText('in-page JavaScript, no WebCrypto');
  const operation = page.locator('#operations-Saude-postPing');
  await operation.getByRole('button', { name: 'Try it out' }).click();
  // Over 55 bytes of payload: SHA-256 needs a second block (the padding edge).
  const body = JSON.stringify({ texto: 'ação, coração, informação: '.repeat(4) });
  await operation.locator('textarea.body-param__text').fill(body);
  const call = await execute(page, '/v1/ping');
  expect(call.response.status()).toBe(200);
  expect(call.headers['x-signature']).toBe(
    sign(appliance.apiSecret, call.headers['x-timestamp'], 'POST', '/v1/ping', body),
  );
});

test.describe('the clock is the whole appliance’s', () => {
  // Moves the appliance clock: runs while no other worker runs a test.
  test.use({ applianceWide: true });

  test('/docs after a clock move (development): a refused timestamp teaches the page the appliance time, the next Execute is 200', async ({
    page,
    appliance,
    consoleApi,
  }) => {
    await page.goto(`${appliance.baseUrl}/docs#/Saude/getPing`);
    // The e2e clinic's own key, not the worker's: moving the clock 25 h ends every clone's time to live.
    await useKey(page, env.apiKey, env.apiSecret);
    const operation = page.locator('#operations-Saude-getPing');
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await consoleApi.call('PUT', '/clock', { advance_seconds: 25 * 3600 });
    try {
      const expired = await execute(page, '/v1/ping');
      expect(expired.response.status()).toBe(401);
      expect((await expired.response.json()).error.code).toBe('AUTH_TIMESTAMP_EXPIRED');
      await expect(page.getByRole('status')).toContainText('appliance_offset_seconds: 90000');
      const retried = await execute(page, '/v1/ping');
      expect(retried.response.status()).toBe(200);
      expect(Number(retried.headers['x-timestamp']) - Date.now() / 1000).toBeGreaterThan(25 * 3600 - 10);
    } finally {
      await consoleApi.call('DELETE', '/clock');
    }
  });
});

test('/docs links the signing and clients guides, served by the gateway', async ({ page, appliance }) => {
  await page.goto(`${appliance.baseUrl}/docs`);
  const panel = page.getByRole('region', { name: 'Request signing' });
  await panel.getByRole('link', { name: 'the signing guide' }).click();
  await expect(page).toHaveURL(/\/docs\/signing$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Signed calls from the shell' })).toBeVisible();
  await expect(page.locator('pre code.language-bash').first()).toContainText('call() {');
  // In-page anchors and the link to the other guide work on the served copy.
  await page.getByRole('link', { name: 'clients.md' }).click();
  await expect(page).toHaveURL(/\/docs\/clients$/);
  await expect(
    page.getByRole('heading', { level: 1, name: 'Typed clients and signing in other languages' }),
  ).toBeVisible();
  await page.getByRole('link', { name: 'API reference (/docs)' }).click();
  await expect(page.getByRole('region', { name: 'Request signing' })).toBeVisible();
  // The document's own description links the served guides too.
  const description = page.locator('.information-container .description');
  await expect(description.getByRole('link', { name: 'typed clients' })).toHaveAttribute('href', '/docs/clients');
  // Swagger UI opens a description's links in a new tab.
  const [guide] = await Promise.all([
    page.waitForEvent('popup'),
    description.getByRole('link', { name: 'signing', exact: true }).click(),
  ]);
  await expect(guide).toHaveURL(/\/docs\/signing$/);
  await expect(guide.getByRole('heading', { level: 1, name: 'Signed calls from the shell' })).toBeVisible();
});

// The real gateway in production mode: a stack of its own (the shared e2e stack runs in development mode).
test('/docs in production mode (the real gateway) explains signing and links the guides; no signing panel, no "Try it out"', async ({
  page,
}) => {
  test.skip(Boolean(env.external), 'starts a production-mode stack of its own');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-e2e-docs-prod-'));
  const stack = await startStack(ephemeralConfig(dataDir, { APP_ENV: 'production' }));
  try {
    await page.goto(`${stack.gatewayUrl}/docs`);
    const panel = page.getByRole('region', { name: 'Request signing' });
    await expect(panel.getByRole('heading', { name: 'Calling the API' })).toBeVisible();
    // How a call is signed, in words and the string to sign.
    await expect(panel).toContainText('Every /v1 call is signed: X-API-Key, X-Timestamp');
    await expect(panel).toContainText('HMAC-SHA256, keyed by the API secret');
    await expect(panel.locator('code')).toHaveText('<timestamp>.<METHOD> <path and query as sent>\\n<raw body>');
    await expect(panel).toContainText('"Try it out" is off here');
    // No signing panel: nothing takes a key or a secret, nothing offers to sign.
    await expect(panel.getByLabel('API key')).toHaveCount(0);
    await expect(panel.getByLabel('API secret')).toHaveCount(0);
    await expect(page.locator('input[type="password"]')).toHaveCount(0);
    await expect(panel.getByRole('button')).toHaveCount(0);
    // The real document's operations, read-only: a list and a write, opened.
    await page.locator('.opblock-get .opblock-summary-path', { hasText: /^\/v1\/pacientes$/ }).click();
    await page.locator('.opblock-post .opblock-summary-path', { hasText: /^\/v1\/pacientes$/ }).click();
    await expect(page.locator('.opblock-body')).toHaveCount(2);
    await expect(page.getByRole('button', { name: 'Try it out' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Authorize' })).toHaveCount(0);
    // The guides it links are served by this gateway, in production too.
    await expect(panel.getByRole('link', { name: 'clients' })).toHaveAttribute('href', '/docs/clients');
    await panel.getByRole('link', { name: 'the signing guide' }).click();
    await expect(page).toHaveURL(`${stack.gatewayUrl}/docs/signing`);
    await expect(page.getByRole('heading', { level: 1, name: 'Signed calls from the shell' })).toBeVisible();
  } finally {
    await stack.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

// ---------------------------------------------------------------- issue 29: a write from "Try it out"

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('/docs "Try it out" fills a fresh Idempotency-Key for a write: POST /v1/pacientes is sent with it and answered 201; a key the reader types is kept', async ({
  page,
  appliance,
}) => {
  await page.goto(`${appliance.baseUrl}/docs#/Pacientes/postPacientes`);
  await useKey(page, appliance.apiKey, appliance.apiSecret);
  const operation = page.locator('#operations-Pacientes-postPacientes');
  await operation.getByRole('button', { name: 'Try it out' }).click();
  const keyField = operation.locator('tr[data-param-name="Idempotency-Key"] input');
  await expect(keyField, 'the required header starts empty').toHaveValue('');

  const first = await execute(page, '/v1/pacientes');
  expect(first.headers['idempotency-key']).toMatch(UUID_V4);
  expect(first.response.status()).toBe(201);
  expect(first.response.headers()['idempotency-key']).toBe(first.headers['idempotency-key']);
  await expect(keyField, 'the key sent is shown in its field').toHaveValue(first.headers['idempotency-key']);

  // A filled-in key is the page's, not the reader's: the next Execute is a new write with a new key.
  const second = await execute(page, '/v1/pacientes');
  expect(second.headers['idempotency-key']).toMatch(UUID_V4);
  expect(second.headers['idempotency-key']).not.toBe(first.headers['idempotency-key']);
  expect(second.response.status()).toBe(201);

  // A typed key is sent as typed, and again on the next Execute: the replay answers the first result.
  const typed = `docs-e2e-${Date.now()}`;
  await keyField.fill(typed);
  const original = await execute(page, '/v1/pacientes');
  expect(original.headers['idempotency-key']).toBe(typed);
  expect(original.response.status()).toBe(201);
  const replay = await execute(page, '/v1/pacientes');
  expect(replay.headers['idempotency-key']).toBe(typed);
  expect(replay.response.status()).toBe(201);
  expect(replay.response.headers()['idempotency-replay']).toBe('true');
  expect((await replay.response.json()).data).toEqual((await original.response.json()).data);
});
