import { randomUUID } from 'node:crypto';
import type { Page } from '@playwright/test';
import { expect, test } from './kit/index.ts';

// Issue 31 § 3 and § 4 on the API keys screen: a key issued with an expiry in the dialog shows it in the list;
// a clinic of 44 keys at 1024×768 is one line of chips per key, paged 20 at a time, and the search box and the
// filters narrow it. Each test works in a clinic of its own (safe with parallel workers).

const DAY_MS = 86_400_000;

async function openKeys(page: Page, baseUrl: string, slug: string): Promise<void> {
  await page.goto(`${baseUrl}/console/#/keys?tenant=${encodeURIComponent(slug)}`);
  await expect(page.getByRole('heading', { name: 'API keys' })).toBeVisible();
  await expect(page.locator('main .loading')).toHaveCount(0);
}

test('a key issued with an expiry in N days shows it in the list; editing sets a date, then Never', async ({
  operatorPage: page,
}) => {
  const dialog = page.getByRole('dialog');
  await page.getByRole('button', { name: '+ New key' }).click();
  await dialog.getByLabel('Label').fill('Piloto de duas semanas (E2E)');
  await dialog.getByLabel('Expires').selectOption('days');
  await dialog.getByLabel('Days from now').fill('0');
  await dialog.getByRole('button', { name: 'Issue key' }).click();
  await expect(dialog.getByText('Enter a whole number of days from 1 to 1825 (5 years).')).toBeVisible();
  await dialog.getByLabel('Days from now').fill('14');
  await dialog.getByRole('button', { name: 'Issue key' }).click();
  // The dialog turns into the secret's view once the key is issued: wait for its heading to name the key.
  await expect(dialog.getByRole('heading').first()).toHaveText(/#\d+/);
  const keyId = Number(((await dialog.getByRole('heading').first().textContent()) ?? '').match(/#(\d+)/)?.[1]);
  expect(keyId).toBeGreaterThan(0);
  await expect(dialog.getByTestId('issued-expires-at')).toContainText('The key expires');
  await dialog.getByLabel('I have stored the secret safely').check();
  await dialog.getByRole('button', { name: 'Done' }).click();

  const row = page.locator(`tr[data-key-id="${keyId}"]`);
  const expiry = new Date(Date.now() + 14 * DAY_MS);
  const day = expiry.toLocaleString('en-GB', { month: 'short', day: 'numeric' });
  await expect(row.getByTestId('expires-at')).toContainText(`Expires ${day}`);

  await page.getByRole('button', { name: `Edit key ${keyId}` }).click();
  await expect(dialog.getByTestId('edit-expires-at')).toBeVisible();
  await expect(dialog.getByLabel('Expires')).toHaveValue('date');
  const later = new Date(Date.now() + 90 * DAY_MS);
  const local = `${later.getFullYear()}-${String(later.getMonth() + 1).padStart(2, '0')}-${String(later.getDate()).padStart(2, '0')}T09:30`;
  await dialog.getByLabel('Expiry date and time').fill(local);
  await dialog.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByRole('dialog')).toHaveCount(0);
  const laterDay = later.toLocaleString('en-GB', { month: 'short', day: 'numeric' });
  await expect(row.getByTestId('expires-at')).toContainText(`Expires ${laterDay}`);

  await page.getByRole('button', { name: `Edit key ${keyId}` }).click();
  await dialog.getByLabel('Expires').selectOption('never');
  await dialog.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(row.getByTestId('expires-at')).toHaveCount(0);
  await expect(row).toBeVisible();
});

test.describe('44 keys at 1024×768', () => {
  test.use({ viewport: { width: 1024, height: 768 } });

  test('one line of chips per key, 20 a page, search and filters narrow the list', async ({
    page,
    consoleApi,
    appliance,
  }) => {
    const slug = `keys-e2e-${randomUUID().slice(0, 8)}`;
    await consoleApi.call('POST', '/tenants', { slug, nome: 'Clinica Muitas Chaves (E2E)' });
    const custom = [
      'pacientes:read',
      'pacientes:write',
      'exames:read',
      'exames:write',
      'laudos:read',
      'agenda:read',
      'agenda:write',
      'prontuarios:read',
      'catalogos:read',
    ];
    const ids: number[] = [];
    for (let i = 1; i <= 44; i++) {
      const scopes = i % 3 === 0 ? custom : i % 3 === 1 ? ['exames:read', 'laudos:read'] : ['pacientes:read'];
      const label =
        i === 7
          ? 'Laboratório Norte — integração LIS de produção (unidade Campinas)'
          : `Integrador ${String(i).padStart(2, '0')}`;
      const key = await consoleApi.call<{ chave_id: number }>('POST', `/tenants/${slug}/keys`, {
        scopes,
        label,
        ...(i % 10 === 0 ? { expires_in_days: 3 } : i % 10 === 5 ? { expires_in_days: 200 } : {}),
      });
      ids.push(key.chave_id);
    }

    await page.request.post(`${appliance.baseUrl}/admin/api/auth/login`, {
      data: { username: appliance.operator, password: appliance.password },
    });
    await openKeys(page, appliance.baseUrl, slug);
    const rows = page.locator('table.keys-table tbody tr');
    const range = page.getByTestId('keys-range');

    await test.step('20 a page: Next and Previous walk the 44 keys', async () => {
      await expect(rows).toHaveCount(20);
      await expect(range).toHaveText('1–20 of 44');
      const pager = page.getByRole('navigation', { name: 'Pages of keys' });
      await expect(pager.getByRole('button', { name: 'Previous' })).toBeDisabled();
      await pager.getByRole('button', { name: 'Next' }).click();
      await expect(range).toHaveText('21–40 of 44');
      await expect(rows.first()).toHaveAttribute('data-key-id', String(ids[20]));
      await pager.getByRole('button', { name: 'Next' }).click();
      await expect(range).toHaveText('41–44 of 44');
      await expect(rows).toHaveCount(4);
      await expect(pager.getByRole('button', { name: 'Next' })).toBeDisabled();
      await pager.getByRole('button', { name: 'Previous' }).click();
      await pager.getByRole('button', { name: 'Previous' }).click();
      await expect(range).toHaveText('1–20 of 44');
    });

    await test.step('each row is as high as the others; the chips of 9 scopes stay on one line (+N)', async () => {
      const heights = await rows.evaluateAll((trs) => trs.map((tr) => tr.getBoundingClientRect().height));
      expect(Math.max(...heights) - Math.min(...heights), `row heights ${heights.join(', ')}`).toBeLessThanOrEqual(1);
      // One chip's height: a wrapped line of chips would double it.
      const chipLines = await page.locator('[data-testid="scopes"]').evaluateAll((cells) =>
        cells.map((cell) => {
          const chip = cell.querySelector('.chip')!.getBoundingClientRect();
          return cell.getBoundingClientRect().height / chip.height;
        }),
      );
      for (const lines of chipLines) expect(lines).toBeLessThan(1.5);
      const customRow = page.locator(`tr[data-key-id="${ids[2]}"]`);
      await expect(customRow.locator('.chip-more')).toHaveText(/^\+\d$/);
      await expect(customRow.getByTestId('scopes')).toHaveAttribute('title', custom.join(', '));
      // The table fits its card: the row's buttons are not scrolled out of sight.
      const wrap = await page
        .locator('.keys-table')
        .evaluate((table) => ({ table: table.scrollWidth, box: table.parentElement!.clientWidth }));
      expect(wrap.table).toBeLessThanOrEqual(wrap.box + 1);
      // A page of 20 keys, not a 4,600-pixel wall. The list's own card is measured: the alerts banner above it lists
      // this spec's keys that expire within 7 days (at most 5 lines), which is not the list's height.
      const listHeight = await page
        .getByRole('region', { name: 'API keys' })
        .evaluate((card) => card.getBoundingClientRect().height);
      expect(listHeight).toBeLessThan(1800);
    });

    await test.step('search: label (any case), key id; no match says so', async () => {
      const search = page.getByLabel('Search');
      await search.fill('norte');
      await expect(rows).toHaveCount(1);
      await expect(rows.first()).toHaveAttribute('data-key-id', String(ids[6]));
      await expect(range).toHaveCount(0);
      await search.fill(`#${ids[30]}`);
      await expect(rows).toHaveCount(1);
      await expect(rows.first()).toHaveAttribute('data-key-id', String(ids[30]));
      await search.fill('nenhuma chave assim');
      await expect(page.getByText('No key matches')).toBeVisible();
      await search.fill('');
      await expect(range).toHaveText('1–20 of 44');
    });

    await test.step('filters: scope, expiring within 7 days, status', async () => {
      await page.getByLabel('Scope').selectOption('prontuarios:read');
      await expect(rows).toHaveCount(14);
      await expect(range).toHaveCount(0);
      await page.getByLabel('Scope').selectOption('');
      await page.getByLabel('Expiring within 7 days').check();
      await expect(rows).toHaveCount(4);
      for (const row of await rows.all()) await expect(row.getByTestId('expires-at')).toContainText('Expires');
      await page.getByLabel('Expiring within 7 days').uncheck();
      await consoleApi.revokeKey(ids[0]);
      await page.getByLabel('Status').selectOption('revoked');
      await expect(rows).toHaveCount(1);
      await expect(rows.first()).toHaveAttribute('data-key-id', String(ids[0]));
      await page.getByLabel('Status').selectOption('active');
      await expect(range).toHaveText('1–20 of 43');
    });
  });
});
