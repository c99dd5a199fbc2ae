import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { expect, test } from './kit/index.ts';
import { e2eEnv } from './support/env.ts';
import { signedCall } from './support/signed.ts';

const env = e2eEnv();
const SCREENSHOTS =
  process.env.E2E_SCREENSHOTS_DIR ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/screenshots');

async function shot(page: Page, name: string): Promise<void> {
  if (!process.env.E2E_SCREENSHOTS) return;
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
}

test('scope matrix: a custom key gets exactly the scopes ticked, its first-call snippet runs, focus comes back, revocation is dated', async ({
  page,
}) => {
  await page.goto(`${env.baseUrl}/console/#/keys?tenant=${env.tenant}`);
  await page.getByLabel('Username').fill(env.operator);
  await page.getByLabel('Password').fill(env.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'API keys' })).toBeVisible();

  const newKey = page.getByRole('button', { name: '+ New key' });
  const dialog = page.getByRole('dialog');
  await test.step('the matrix: resource × read / write / delete, each scope described', async () => {
    await newKey.click();
    const matrix = dialog.getByRole('table', { name: 'Scopes' });
    await expect(matrix.getByRole('columnheader')).toHaveText(['Resource', 'Read', 'Write', 'Delete']);
    await expect(matrix.getByRole('rowheader')).toHaveCount(7);
    // Every scope of contracts/scopes.ts is a checkbox, with the spec's line as its description.
    await expect(matrix.getByRole('checkbox')).toHaveCount(13);
    await expect(dialog.getByRole('checkbox', { name: 'exames:delete' })).toHaveAccessibleDescription(
      'delete exam (dedicated scope)',
    );
    await expect(matrix.getByRole('row', { name: /Patients/ })).toContainText('create, partial update, unify patients');
    await dialog.getByRole('button', { name: 'Custom' }).click();
    await expect(matrix.getByRole('checkbox', { checked: true })).toHaveCount(0);
    await dialog.getByLabel('Label').fill('Scope matrix (E2E)');
    await dialog.getByRole('button', { name: 'Issue key' }).click();
    // The shared schema's message, in the console's language.
    await expect(dialog.getByText('Choose at least one scope.')).toBeVisible();
    await dialog.getByRole('checkbox', { name: 'exames:read' }).check();
    await dialog.getByRole('checkbox', { name: 'exames:delete' }).check();
    await expect(dialog.getByText('2 of 13 scopes')).toBeVisible();
    await shot(page, 'key-scope-matrix');
    await dialog.getByRole('button', { name: 'Issue key' }).click();
  });

  let keyId = 0;
  let creds = { apiKey: '', apiSecret: '' };
  await test.step('the secret dialog carries a signed first call that runs as shown', async () => {
    const snippet = dialog.getByTestId('first-call');
    await expect(snippet).toContainText('openssl dgst -sha256 -hmac');
    creds = {
      apiKey: (await dialog.getByTestId('issued-api-key').textContent())!.trim(),
      apiSecret: (await dialog.getByTestId('issued-api-secret').textContent())!.trim(),
    };
    await shot(page, 'key-first-call');
    const command = (await snippet.textContent())!;
    expect(command).toContain(`${env.baseUrl}/v1/ping`);
    const answer = JSON.parse(execFileSync('bash', ['-c', command], { encoding: 'utf8', timeout: 15_000 }));
    expect(answer.error).toBeNull();
    expect(answer.data.auth.escopos).toEqual(['exames:read', 'exames:delete']);
    keyId = answer.data.auth.chave_id;
    await dialog.getByLabel('I have stored the secret safely').check();
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expect(page.getByRole('dialog')).toHaveCount(0);
    // Focus is back on the button that opened the issue dialog.
    await expect(newKey).toBeFocused();
  });

  const row = page.locator(`tr[data-key-id="${keyId}"]`);
  await test.step('the new row is highlighted, with compact scopes; the API grants exactly those', async () => {
    await expect(row).toHaveAttribute('data-new', 'true');
    await expect(row.getByTestId('scopes').locator('.chip')).toHaveText(['exames rd']);
    expect((await signedCall(env.baseUrl, creds, 'GET', '/v1/pacientes')).json.error.code).toBe(
      'AUTH_INSUFFICIENT_SCOPE',
    );
  });

  await test.step('edit through the matrix; focus returns to Edit, Escape on Rotate returns to Rotate', async () => {
    const edit = page.getByRole('button', { name: `Edit key ${keyId}` });
    await edit.click();
    await expect(dialog.getByRole('checkbox', { name: 'exames:read' })).toBeChecked();
    await expect(dialog.getByRole('checkbox', { name: 'exames:write' })).not.toBeChecked();
    await dialog.getByRole('checkbox', { name: 'pacientes:read' }).check();
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await expect(edit).toBeFocused();
    await expect(row.getByTestId('scopes').locator('.chip')).toHaveText(['pacientes r', 'exames rd']);
    expect((await signedCall(env.baseUrl, creds, 'GET', '/v1/pacientes')).status).toBe(200);
    const rotate = page.getByRole('button', { name: `Rotate key ${keyId}` });
    await rotate.click();
    await expect(dialog).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await expect(rotate).toBeFocused();
  });

  await test.step('a revoked key shows when it was revoked (minutes, no seconds)', async () => {
    await page.getByRole('button', { name: `Revoke key ${keyId}` }).click();
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await expect(row).toHaveCount(0);
    await page.getByLabel(/Show revoked/).check();
    await expect(row.getByText('Revoked', { exact: true })).toBeVisible();
    await expect(row.getByTestId('revoked-at')).toHaveText(/^\d{1,2} [A-Z][a-z]{2}( \d{4})?, \d{2}:\d{2}$/);
    await expect(row.getByRole('button')).toHaveCount(0);
  });
});
