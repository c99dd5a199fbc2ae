import { readFile } from 'node:fs/promises';
import { expect, test } from './kit/index.ts';

// Issue 30 § 4, 5 on the console's Audit screen: what the gateway received (near misses shown) and the HAR of the
// page's filters. Safe with parallel workers: the spec's calls are made with a key of its own, and every filter
// names that key, so another worker's traffic on the e2e clinic is never in its answers.
test('audit page: Export HAR downloads the filtered calls as HAR 1.2; the received panel shows the near miss and why', async ({
  api,
  appliance,
  consoleApi,
  operatorPage: page,
}) => {
  const key = await consoleApi.issueKey(appliance.tenant, ['pacientes:read', 'pacientes:write'], {
    label: 'journal-har e2e',
  });
  const client = api.as({ apiKey: key.apiKey, apiSecret: key.apiSecret });
  const cpf = '52998224725';
  const listed = await client.get(`/v1/pacientes?cpf=${cpf}&limit=1`);
  expect(listed.status).toBe(200);
  // The call the test "expected" to create a patient, refused by validation.
  const refused = await client.post('/v1/pacientes', { nome: 'X', cpf });
  expect(refused.status).toBe(400);

  await page.goto(`${appliance.baseUrl}/console/#/audit?tenant=${appliance.tenant}&chave_id=${key.id}`);
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export HAR' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(new RegExp(`^journal-${appliance.tenant}-.+\\.har$`));
  const text = await readFile((await file.path())!, 'utf8');
  const har = JSON.parse(text);
  expect(har.log.version).toBe('1.2');
  expect(har.log.entries.map((e: { _requestId: string }) => e._requestId)).toEqual([
    listed.json.meta.request_id,
    refused.json.meta.request_id,
  ]);
  expect(har.log.entries[0].request.queryString).toContainEqual({ name: 'cpf', value: '[REDACTED]' });
  // Redacted as journaled: no secret, no CPF anywhere in the file.
  expect(text).not.toContain(key.apiSecret);
  expect(text).not.toContain(cpf);

  // The received panel starts from the page's filters: ask for the patient the test expected to create.
  const panel = page.getByRole('region', { name: 'What the gateway received' });
  await panel.getByRole('button', { name: 'Check what was received' }).click();
  await panel.getByLabel('Method').selectOption('POST');
  await panel.getByLabel('Path (prefix or template)').fill('/v1/pacientes');
  await panel.getByLabel('Status').fill('201');
  await panel.getByRole('button', { name: 'Check received' }).click();
  await expect(panel.getByText('Nothing received matches')).toBeVisible();
  const miss = panel.getByTestId('near-miss').first();
  await expect(miss).toContainText('VAL_INVALID_PARAM');
  await expect(miss).toContainText('answered 400 VAL_INVALID_PARAM: the request failed validation');
  await expect(miss).toContainText('other status');
  await expect(panel).not.toContainText(cpf);

  // Without the status, the refused call is what was received.
  await panel.getByLabel('Status').fill('');
  await panel.getByRole('button', { name: 'Check received' }).click();
  await expect(panel.getByTestId('received-entries').locator('li')).toHaveCount(1);
});
