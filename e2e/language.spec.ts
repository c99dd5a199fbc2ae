import { expect, test } from './kit/index.ts';
import { e2eEnv } from './support/env.ts';

const env = e2eEnv();

// The console speaks English (docs/console.md § Language): the shared schemas' Portuguese messages and zod's
// own defaults are shown in English; the public /v1 API keeps answering in Portuguese.
test('validation messages reach the operator in English; the public API is untouched', async ({ page }) => {
  await page.goto(`${env.baseUrl}/console/#/audit`);
  await test.step('sign-in fields', async () => {
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByText('Enter your username.')).toBeVisible();
    await expect(page.getByText('Enter your password.')).toBeVisible();
    await page.getByLabel('Username').fill(env.operator);
    await page.getByLabel('Password').fill(env.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('heading', { name: 'Audit log' })).toBeVisible();
  });

  await test.step("zod's defaults: a key id that is not a number", async () => {
    await page.getByRole('form', { name: 'Audit filters' }).getByLabel('Key id').fill('abc');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect(page.getByText('Enter a whole number.')).toBeVisible();
    await expect(page.locator('main')).not.toContainText('Invalid input');
  });

  await test.step('a schema message written in Portuguese', async () => {
    await page.getByRole('link', { name: 'Backend faults' }).click();
    await page.getByLabel('API path (glob)').fill('pacientes');
    await page.getByRole('button', { name: 'Turn fault on' }).click();
    await expect(page.getByText('Use a public API path, e.g. /v1/pacientes*')).toBeVisible();
    await expect(page.locator('main')).not.toContainText('Use um caminho');
  });

  await test.step('the public API is unchanged', async () => {
    const res = await page.request.get(`${env.baseUrl}/v1/ping`);
    expect(res.status()).toBe(401);
    expect((await res.json()).error.code).toBe('AUTH_MISSING_HEADER');
  });
});
