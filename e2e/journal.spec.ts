import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { expect, test } from './kit/index.ts';

const SCREENSHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/screenshots');
const WIDTHS = [1440, 1024] as const;

/** `E2E_SCREENSHOTS=1` writes docs/screenshots/<screen>-<width>.png (docs/console.md links them). */
async function shot(page: Page, name: string): Promise<void> {
  if (!process.env.E2E_SCREENSHOTS) return;
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** The main tables fit their box at this width (no sideways scrolling). */
async function tablesFit(page: Page): Promise<void> {
  const problems = await page.evaluate(() =>
    [...document.querySelectorAll('main table')].flatMap((table) => {
      const box = (table.closest('.table-wrap') as HTMLElement | null) ?? table.parentElement!;
      return box.scrollWidth > box.clientWidth ? [`${box.scrollWidth} > ${box.clientWidth}`] : [];
    }),
  );
  expect(problems).toEqual([]);
}

// Each test starts from the e2e clinic's first-start state: other specs change its settings (e.g. CPF required).
test.use({ resetBeforeEach: true });

// Issue 14 items 3 and 4: the audit log as a request journal, and the idempotency inspector.
test('journal: a signed call refused with 400 shows its code, message, redacted response and headers without X-Signature', async ({
  api,
  appliance,
  operatorPage: page,
}) => {
  const cpf = '52998224725';
  const res = await api.post(
    '/v1/pacientes',
    { nome: 'X', cpf, email: 'sentinela.e2e@example.com' },
    { headers: { 'user-agent': 'journal-e2e/1.0' } },
  );
  expect(res.status).toBe(400);
  const requestId = res.json.meta.request_id as string;
  const message = res.json.error.message as string;

  // The audit page filtered to this request, then its entry.
  await page.goto(`${appliance.baseUrl}/console/#/audit?request_id=${requestId}`);
  const row = page.locator(`tr[data-request-id="${requestId}"]`);
  await expect(row).toBeVisible();
  await row.getByRole('link').click();

  await expect(page.getByTestId('detail-request-id')).toHaveText(requestId);
  await expect(page.getByTestId('detail-status')).toHaveText('400');
  await expect(page.getByTestId('detail-error-code')).toHaveText('VAL_INVALID_PARAM');
  await expect(page.getByTestId('detail-error-message')).toHaveText(message);
  const response = page.getByTestId('detail-response');
  await expect(response).toContainText('VAL_INVALID_PARAM');
  await expect(response).toContainText(message);
  const headers = page.getByTestId('detail-headers');
  await expect(headers).toContainText('x-api-key');
  await expect(headers).toContainText(appliance.apiKey);
  await expect(headers).toContainText('x-timestamp');
  await expect(headers).toContainText('idempotency-key');
  await expect(headers).toContainText('journal-e2e/1.0');
  await expect(headers).not.toContainText('x-signature');
  // The request body is redacted: the CPF and e-mail sent appear nowhere on the page.
  await expect(page.locator('main')).not.toContainText(cpf);
  await expect(page.locator('main')).not.toContainText('sentinela.e2e@example.com');
  // The key links to all its calls.
  await expect(page.getByTestId('detail-key').getByRole('link')).toHaveAttribute('href', /chave_id=\d+/);

  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await shot(page, `journal-detail-${width}`);
  }
});

test('a failed signature is attributed to the key it presented, in the list and the detail', async ({
  api,
  appliance,
  consoleApi,
  operatorPage: page,
}) => {
  const wrong = api.as({ apiKey: appliance.apiKey, apiSecret: '0'.repeat(64) });
  const res = await wrong.get('/v1/ping');
  expect(res.status).toBe(401);
  const requestId = res.json.meta.request_id as string;
  const [entry] = (
    await consoleApi.call<{ items: Array<{ chave_id: number | null }> }>('GET', `/audit?request_id=${requestId}`)
  ).items;
  expect(entry.chave_id).not.toBeNull();
  await page.goto(`${appliance.baseUrl}/console/#/audit?chave_id=${entry.chave_id}`);
  const row = page.locator(`tr[data-request-id="${requestId}"]`);
  await expect(row).toContainText(`#${entry.chave_id}`);
  await expect(row).toContainText('AUTH_INVALID_SIGNATURE');
  await expect(row).toContainText('Unverified');
  await row.getByRole('link').click();
  // The key it named, marked unverified: the request did not prove it holds the secret (issue 19).
  await expect(page.getByTestId('detail-key').getByRole('link')).toHaveText(`#${entry.chave_id}`);
  await expect(page.getByTestId('detail-key')).toContainText('Unverified');
  await expect(page.getByTestId('detail-headers')).not.toContainText('x-signature');
});

test('inspector: a key’s idempotency entries, linked to their audit entry; an operator purges one', async ({
  api,
  appliance,
  consoleApi,
  operatorPage: page,
}) => {
  const key = await consoleApi.issueKey(appliance.tenant, ['pacientes:read', 'pacientes:write'], {
    label: 'e2e inspector',
  });
  const client = api.as(key);
  const idem = `inspetor-${Date.now()}`;
  const created = await client.post(
    '/v1/pacientes',
    { nome: 'Paciente Do Inspetor', data_nascimento: '1990-01-01', sexo: 'FEM' },
    { headers: { 'idempotency-key': idem } },
  );
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  const other = await client.post('/v1/pacientes', {
    nome: 'Outra Paciente Inspetor',
    data_nascimento: '1991-02-02',
    sexo: 'FEM',
  });
  expect(other.status).toBe(201);

  // Through the navigation: clinic, then key.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Idempotency' }).click();
  await page.getByLabel('Clinic').selectOption(appliance.tenant);
  await page.getByLabel('API key').selectOption(String(key.id));
  const table = page.getByTestId('idempotency-table');
  const row = table.locator(`tr[data-idem-key="${idem}"]`);
  await expect(row).toContainText('Completed');
  await expect(row).toContainText('POST /v1/pacientes');
  await expect(table.locator('tbody tr')).toHaveCount(2);
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await tablesFit(page);
    await shot(page, `idempotency-${width}`);
  }
  await page.setViewportSize({ width: 1440, height: 900 });

  // The request id links to the audit entry of the request that executed the write.
  await row.getByTestId('idem-audit-link').click();
  await expect(page.getByTestId('detail-request-id')).toHaveText(created.json.meta.request_id);
  await page.goBack();

  await table
    .locator(`tr[data-idem-key="${idem}"]`)
    .getByRole('button', { name: `Purge ${idem}` })
    .click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText(idem);
  await shot(page, 'idempotency-purge-1440');
  await dialog.getByRole('button', { name: 'Purge entry' }).click();
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(table.locator(`tr[data-idem-key="${idem}"]`)).toHaveCount(0);
  await expect(table.locator('tbody tr')).toHaveCount(1);

  // The purge is a console action in the audit log, attributed to the key.
  const audit = await consoleApi.call<{ items: Array<{ action: string | null; chave_id: number | null }> }>(
    'GET',
    `/audit?source=console&chave_id=${key.id}`,
  );
  expect(audit.items.some((i) => i.action === 'idempotency.purge')).toBe(true);

  // From the keys page: each key row links to its calls and to its idempotency entries.
  await page.goto(`${appliance.baseUrl}/console/#/keys?tenant=${appliance.tenant}`);
  // A hash change keeps the page: reload so the list is read after the key was issued.
  await page.reload();
  const keyRow = page.locator(`tr[data-key-id="${key.id}"]`);
  await keyRow.getByRole('link', { name: 'Calls' }).click();
  await expect(page.getByRole('form', { name: 'Audit filters' }).getByLabel('Key id')).toHaveValue(String(key.id));
  await expect(page.locator(`tr[data-request-id="${other.json.meta.request_id}"]`)).toBeVisible();
  await page.goBack();
  await page.locator(`tr[data-key-id="${key.id}"]`).getByRole('link', { name: 'Idempotency' }).click();
  await expect(page.getByTestId('idempotency-table').locator('tbody tr')).toHaveCount(1);
});
