import { request } from '@playwright/test';
import { expect, SignedClient, test } from './kit/index.ts';
import { e2eEnv } from './support/env.ts';

const env = e2eEnv();
const v1 = new SignedClient(env.baseUrl, { apiKey: env.apiKey, apiSecret: env.apiSecret });

// The clock is the whole appliance's: this test runs while no other worker runs one (e2e/kit § applianceWide).
test.use({ applianceWide: true });

// Whatever happens in the test, the appliance goes back to real time before another test starts (afterEach runs
// inside the test's hold on the lock; afterAll would not).
test.afterEach(async () => {
  const api = await request.newContext({ baseURL: env.baseUrl });
  const login = await api.post('/admin/api/auth/login', { data: { username: env.operator, password: env.password } });
  const csrf = (await login.json()).data.csrf_token as string;
  await api.delete('/admin/api/clock', { headers: { 'x-csrf-token': csrf } });
  await api.dispose();
});

test('operator moves the clock 25 h ahead, every page says so, real-time signatures expire; back to real time', async ({
  page,
}) => {
  await page.goto(`${env.baseUrl}/console/#/clock`);
  await page.getByLabel('Username').fill(env.operator);
  await page.getByLabel('Password').fill(env.password);
  await page.getByRole('button', { name: 'Sign in' }).click();

  await expect(page.getByRole('heading', { name: 'Clock' })).toBeVisible();
  await expect(page.getByText('At real time', { exact: true })).toBeVisible();
  await expect(page.getByRole('status', { name: 'Clock shifted' })).toHaveCount(0);
  expect((await v1.get('/v1/ping')).status).toBe(200);

  await page.getByRole('button', { name: '+25 h' }).click();
  const banner = page.getByRole('status', { name: 'Clock shifted' });
  await expect(banner).toContainText('The appliance clock is 1d 1h ahead of real time.');
  await expect(page.getByText('1d 1h ahead', { exact: true })).toBeVisible();

  // A request signed with the real time is now 25 h in the past for the appliance.
  const expired = await v1.get('/v1/ping');
  expect(expired.status).toBe(401);
  expect(expired.json.error.code).toBe('AUTH_TIMESTAMP_EXPIRED');

  // The banner follows the operator to every page; moves add up.
  await page.getByRole('link', { name: 'API keys' }).click();
  await expect(page.getByRole('heading', { name: 'API keys' })).toBeVisible();
  await expect(banner).toBeVisible();
  await banner.getByRole('link', { name: 'Clock settings' }).click();
  await page.getByLabel('Advance by').fill('2');
  await page.getByLabel('Unit').selectOption({ label: 'hours' });
  await page.getByRole('button', { name: 'Advance', exact: true }).click();
  await expect(banner).toContainText('1d 3h ahead');

  await banner.getByRole('button', { name: 'Back to real time' }).click();
  await expect(banner).toHaveCount(0);
  await expect(page.getByText('At real time', { exact: true })).toBeVisible();
  expect((await v1.get('/v1/ping')).status).toBe(200);
});
