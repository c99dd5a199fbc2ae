import type { Browser, Page } from '@playwright/test';
import { type ConsoleApi, type E2eEnv, expect, test } from './kit/index.ts';

// Issue 29: a viewer (read-only operator) is not offered what the console API would refuse it with 403 — a
// clinic's settings read as they are saved, with nothing to tick or submit; an empty fault page says that
// faults are an admin's rather than "Add one above" over a form the viewer does not have.

/** A viewer of its own for this test, signed in on a page of its own; disabled (never deleted) when done. */
async function asViewer(
  browser: Browser,
  consoleApi: ConsoleApi,
  appliance: E2eEnv,
  run: (page: Page) => Promise<void>,
): Promise<void> {
  const username = `viewer.read-only.${Date.now()}.w${test.info().parallelIndex}`;
  const { operator, password } = await consoleApi.call<{ operator: { id: number }; password: string }>(
    'POST',
    '/operators',
    { username, role: 'viewer' },
  );
  const context = await browser.newContext({ baseURL: appliance.baseUrl });
  try {
    const page = await context.newPage();
    const login = await page.request.post('/admin/api/auth/login', { data: { username, password } });
    expect(login.status(), 'viewer sign-in').toBe(200);
    await run(page);
  } finally {
    await context.close();
    await consoleApi.call('PATCH', `/operators/${operator.id}`, { disabled: true }).catch(() => undefined);
  }
}

test("a viewer reads a clinic's settings: every control disabled, no Save, and a submit sends nothing", async ({
  browser,
  consoleApi,
  appliance,
}) => {
  const before = await consoleApi.call('GET', `/tenants/${appliance.tenant}/settings`);
  await asViewer(browser, consoleApi, appliance, async (page) => {
    const writes: string[] = [];
    page.on('request', (r) => {
      if (r.method() !== 'GET') writes.push(`${r.method()} ${r.url()}`);
    });
    await page.goto(`/console/#/tenants?tenant=${appliance.tenant}`);
    await expect(page.getByTestId('read-only-role')).toBeVisible();
    const form = page.getByRole('form', { name: `Settings of ${appliance.tenant}` });
    // The saved values are shown, each control disabled.
    await expect(form.getByLabel('Clinic name')).toHaveValue((before as { nome: string }).nome);
    await expect(form.getByLabel('Clinic name')).toBeDisabled();
    const checkboxes = form.getByRole('checkbox');
    expect(await checkboxes.count()).toBe(5);
    for (const box of await checkboxes.all()) await expect(box).toBeDisabled();
    const selects = form.locator('select');
    expect(await selects.count()).toBe(4);
    for (const select of await selects.all()) await expect(select).toBeDisabled();
    await expect(form.getByRole('button')).toHaveCount(0);

    // A click on a label does not tick its box; a submit (what Enter in a field does) sends nothing.
    const required = form.getByLabel('CPF required');
    const ticked = await required.isChecked();
    // Forced: Playwright itself waits for a disabled control's label to be enabled; a person's click does not wait.
    await form.getByText('CPF required').click({ force: true });
    await expect(required).toBeChecked({ checked: ticked });
    await form.evaluate((f: HTMLFormElement) => f.requestSubmit());
    await page.waitForLoadState('networkidle');
    expect(writes).toEqual([]);
    await expect(form.getByTestId('settings-read-only')).toHaveText(
      "Read-only for a viewer: an admin changes a clinic's settings.",
    );
  });
  expect(await consoleApi.call('GET', `/tenants/${appliance.tenant}/settings`)).toEqual(before);
});

test('the same settings form is open to an admin: the viewer read-only note is not there', async ({
  operatorPage: page,
  appliance,
}) => {
  await page.goto(`/console/#/tenants?tenant=${appliance.tenant}`);
  const form = page.getByRole('form', { name: `Settings of ${appliance.tenant}` });
  await expect(form.getByLabel('Clinic name')).toBeEnabled();
  await expect(form.getByLabel('CPF required')).toBeEnabled();
  await expect(form.getByRole('button', { name: 'Save settings' })).toBeEnabled();
  await expect(form.getByTestId('settings-read-only')).toHaveCount(0);
});

const FAULT_PAGES = [
  {
    link: 'Backend faults',
    path: '/faults',
    noun: 'fault',
    admin: 'Add one above; it takes effect on the next request.',
    viewer: 'Faults are read-only for a viewer: an admin can turn one on here.',
    fault: { tenant: '*', method: 'GET', path: '/v1/agenda*', kind: 'latency', latency_ms: 10, failure_rate: 0 },
  },
  {
    link: 'Storage faults',
    path: '/storage-faults',
    noun: 'storage fault',
    admin: 'Add one above; it takes effect on the next download.',
    viewer: 'Storage faults are read-only for a viewer: an admin can turn one on here.',
    // Removed at once; nothing downloads meanwhile (the test runs alone).
    fault: { tenant: '*', failure_rate: 0.01 },
  },
];

// Faults on every clinic, and the pages list every clinic's: the test runs while no other worker runs one.
test.describe('fault pages', () => {
  test.use({ applianceWide: true });

  test("a viewer's fault pages say they are read-only: no form, no 'Add one above', no switch", async ({
    browser,
    consoleApi,
    appliance,
    operatorPage: admin,
  }) => {
    for (const { path } of FAULT_PAGES) await consoleApi.call('DELETE', path);
    try {
      await asViewer(browser, consoleApi, appliance, async (page) => {
        await page.goto('/console/#/keys');
        for (const { link, noun, admin: adminWords, viewer: viewerWords, path, fault } of FAULT_PAGES) {
          await test.step(`${link}, empty, then with one ${noun} on`, async () => {
            await page.getByRole('link', { name: link }).click();
            await expect(page.getByRole('heading', { name: link, level: 1 })).toBeVisible();
            await expect(page.getByRole('form', { name: `New ${noun}` })).toHaveCount(0);
            const list = page.getByRole('region', { name: `Active ${noun}s` });
            await expect(list.getByText(viewerWords)).toBeVisible();
            await expect(page.getByText(adminWords)).toHaveCount(0);

            const { id } = await consoleApi.call<{ id: number }>('POST', path, fault);
            await expect(list.locator(`tr[data-fault-id="${id}"]`)).toBeVisible({ timeout: 10_000 });
            await expect(page.getByRole('button', { name: `Turn ${noun} ${id} off` })).toHaveCount(0);
            await expect(page.getByRole('button', { name: `Turn all ${noun}s off` })).toHaveCount(0);
            await consoleApi.call('DELETE', path);
          });
        }
      });

      // An admin, on the same empty pages, is still pointed at the form above the list.
      for (const { link, noun, admin: adminWords } of FAULT_PAGES) {
        await admin.getByRole('link', { name: link }).click();
        await expect(admin.getByRole('form', { name: `New ${noun}` })).toBeVisible();
        await expect(admin.getByRole('region', { name: `Active ${noun}s` }).getByText(adminWords)).toBeVisible();
      }
    } finally {
      for (const { path } of FAULT_PAGES) await consoleApi.call('DELETE', path).catch(() => undefined);
    }
  });
});
