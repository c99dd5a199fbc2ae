import { readFile } from 'node:fs/promises';
import { expect, test } from './kit/index.ts';

// Issue 30 § 4, 5 on the console's Audit screen: what the gateway received (near misses shown) and the HAR of the
// page's filters. Safe with parallel workers and quiet for the other specs: it makes no console action, and its
// calls go to a patient path of its own (an id no other test uses), which every filter names.
test('audit page: Export HAR downloads the filtered calls as HAR 1.2; the received panel shows the near miss and why', async ({
  api,
  appliance,
  operatorPage: page,
}) => {
  const own = `/v1/pacientes/${Date.now() % 1_000_000_000}${test.info().parallelIndex}`;
  const cpf = '52998224725';
  const read = await api.get(`${own}?cpf=${cpf}`);
  expect(read.status).toBeGreaterThanOrEqual(400);
  // The call the test "expected" to update the patient, refused.
  const refused = await api.patch(own, { nome: 'X', cpf });
  expect(refused.status).toBeGreaterThanOrEqual(400);
  const refusedCode = refused.json.error.code as string;

  await page.goto(`${appliance.baseUrl}/console/#/audit?tenant=${appliance.tenant}&path=${encodeURIComponent(own)}`);
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export HAR' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(new RegExp(`^journal-${appliance.tenant}-.+\\.har$`));
  const text = await readFile((await file.path())!, 'utf8');
  const har = JSON.parse(text);
  expect(har.log.version).toBe('1.2');
  expect(har.log.entries.map((e: { _requestId: string }) => e._requestId)).toEqual([
    read.json.meta.request_id,
    refused.json.meta.request_id,
  ]);
  expect(har.log.entries[0].request.queryString).toContainEqual({ name: 'cpf', value: '[REDACTED]' });
  // Redacted as journaled: no secret, no CPF anywhere in the file.
  expect(text).not.toContain(appliance.apiSecret);
  expect(text).not.toContain(cpf);

  // The received panel starts from the page's filters (the clinic, the path): ask for the update the test expected.
  const panel = page.getByRole('region', { name: 'What the gateway received' });
  await panel.getByRole('button', { name: 'Check what was received' }).click();
  await panel.getByLabel('Method').selectOption('PATCH');
  await panel.getByLabel('Status').fill('200');
  await panel.getByRole('button', { name: 'Check received' }).click();
  await expect(panel.getByText('Nothing received matches')).toBeVisible();
  const miss = panel.getByTestId('near-miss').first();
  await expect(miss).toContainText(`answered ${refused.status} ${refusedCode}`);
  await expect(miss).toContainText('(expected 200)');
  await expect(miss).toContainText('other status');
  // The read is the same path with another verb.
  await expect(panel.getByTestId('near-miss').filter({ hasText: 'received as GET, not PATCH' })).toHaveCount(1);
  await expect(panel).not.toContainText(cpf);

  // Without the status, the refused call is what was received.
  await panel.getByLabel('Status').fill('');
  await panel.getByRole('button', { name: 'Check received' }).click();
  await expect(panel.getByTestId('received-entries').locator('li')).toHaveCount(1);
});
