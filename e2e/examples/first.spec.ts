// A first test written with the QA kit (docs/testing.md). Copy this file next to your own specs and change
// what it checks; it runs against the stack `npm run test:e2e` starts, or against a running appliance with
// E2E_BASE_URL set.
import { expect, test } from '../kit/index.ts';

// Before each test the kit puts the worker's own clinic back to the template's state (other workers' are untouched).
test.use({ resetBeforeEach: true });

test('a signed write, read back, and gone after the reset', async ({ api, resetTenant }) => {
  const nome = `Paciente Kit ${Date.now()}`;

  // Signed with the kit's key; the client adds an Idempotency-Key to every write.
  const created = await api.post('/v1/pacientes', { nome, data_nascimento: '1990-05-06' });
  expect(created.status).toBe(201);
  expect(created.headers.get('idempotency-replay')).toBe('false');

  const query = `/v1/pacientes?nome=${encodeURIComponent(nome)}`;
  expect((await api.get(query)).json.meta.total).toBe(1);

  await resetTenant();
  expect((await api.get(query)).json.meta.total).toBe(0);
});

test('the operator sees the clinic in the console', async ({ operatorPage: page, appliance }) => {
  await page.getByRole('link', { name: 'Clinics' }).click();
  const row = page.getByRole('row').filter({ has: page.getByText(appliance.tenant, { exact: true }) });
  await expect(row).toBeVisible();
});
