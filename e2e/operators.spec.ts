import type { APIRequestContext } from '@playwright/test';
import { expect, test } from './kit/index.ts';

// Issue 22 § 6, done when: operator roles — a viewer cannot issue, rotate or revoke; its attempts are refused by
// the API, not just hidden. An admin adds the viewer on the Operators screen; the viewer signs in through the form.

/** A console API write from a browser's own session: its cookie, and the CSRF token its session hands out. */
async function writeAs(
  request: APIRequestContext,
  path: string,
  data?: unknown,
): Promise<{ status: number; code: string | null }> {
  const session = await (await request.get('/admin/api/auth/session')).json();
  const res = await request.post(path, { headers: { 'x-csrf-token': session.data.csrf_token }, data });
  const body = await res.json();
  return { status: res.status(), code: body.error?.code ?? null };
}

test('operator roles: a viewer reads the keys but cannot issue, rotate or revoke — not offered on screen, refused by the API, journaled under its name', async ({
  operatorPage: admin,
  appliance,
  consoleApi,
  api,
  browser,
}) => {
  const username = `viewer.${Date.now()}`;
  let password = '';

  await test.step('an admin adds a viewer on the Operators screen; its password is shown once', async () => {
    await admin.getByRole('link', { name: 'Operators' }).click();
    await admin.getByRole('button', { name: '+ New operator' }).click();
    const dialog = admin.getByRole('dialog');
    await dialog.getByLabel('Username').fill(username);
    await dialog.getByLabel('Role').selectOption('viewer');
    await dialog.getByRole('button', { name: 'Add operator' }).click();
    password = (await dialog.getByLabel(`Password of ${username}`).textContent())!.trim();
    expect(password).toMatch(/^.{20}$/);
    await dialog.getByLabel('I have handed the password over safely').check();
    await dialog.getByRole('button', { name: 'Done' }).click();
    const row = admin.locator(`tr[data-operator="${username}"]`);
    await expect(row).toContainText('Viewer');
    await expect(row).toContainText('Active');
  });

  // The key the viewer will try to take over, issued by the admin (revoked by the kit when the worker ends).
  const key = await consoleApi.issueKey(appliance.tenant, ['pacientes:read'], { label: 'role target (e2e)' });

  const viewerContext = await browser.newContext({ baseURL: appliance.baseUrl });
  const viewer = await viewerContext.newPage();
  try {
    await test.step('the viewer signs in; the keys list is there, issue, rotate and revoke are not', async () => {
      await viewer.goto(`/console/#/keys?tenant=${appliance.tenant}`);
      await viewer.getByLabel('Username').fill(username);
      await viewer.getByLabel('Password').fill(password);
      await viewer.getByRole('button', { name: 'Sign in' }).click();
      await expect(viewer.getByTestId('read-only-role')).toHaveText('Viewer · read-only');
      const row = viewer.locator(`tr[data-key-id="${key.id}"]`);
      await expect(row).toBeVisible();
      await expect(row).not.toContainText(key.apiKey);
      await expect(viewer.getByRole('button', { name: '+ New key' })).toHaveCount(0);
      await expect(row.getByRole('button', { name: `Rotate key ${key.id}` })).toHaveCount(0);
      await expect(row.getByRole('button', { name: `Revoke key ${key.id}` })).toHaveCount(0);
    });

    await test.step("the same calls from the viewer's browser session are refused by the API: 403 ADMIN_FORBIDDEN", async () => {
      const attempts = [
        await writeAs(viewer.request, `/admin/api/tenants/${appliance.tenant}/keys`, {
          label: 'by a viewer',
          scopes: ['pacientes:read'],
        }),
        await writeAs(viewer.request, `/admin/api/keys/${key.id}/rotate`),
        await writeAs(viewer.request, `/admin/api/keys/${key.id}/revoke`),
      ];
      expect(attempts).toEqual([
        { status: 403, code: 'ADMIN_FORBIDDEN' },
        { status: 403, code: 'ADMIN_FORBIDDEN' },
        { status: 403, code: 'ADMIN_FORBIDDEN' },
      ]);
      // Nothing happened: the key is active, and the secret issued to the admin still signs (not rotated).
      const keys = await consoleApi.call<Array<{ id: number; status: string; label: string }>>(
        'GET',
        `/tenants/${appliance.tenant}/keys`,
      );
      expect(keys.find((k) => k.id === key.id)?.status).toBe('active');
      expect(keys.some((k) => k.label === 'by a viewer')).toBe(false);
      expect((await api.as(key).get('/v1/ping')).status).toBe(200);
    });

    await test.step('the journal names the viewer on each refused attempt, and the viewer can read it', async () => {
      const me = (await (await viewer.request.get('/admin/api/auth/session')).json()).data.operator;
      const refused = await consoleApi.call<{
        items: Array<{ id: number; operator_id: number | null; detail: string | Record<string, unknown> }>;
      }>('GET', '/audit?source=console&error_code=ADMIN_FORBIDDEN&limit=20');
      const mine = refused.items.filter((e) => e.operator_id === me.id);
      expect(mine).toHaveLength(3);
      await viewer.goto(`/console/#/audit/${mine[0].id}`);
      await expect(viewer.getByRole('main').getByText(username, { exact: true })).toBeVisible();
    });

    await test.step('the viewer changes its own password with the current one, and signs in with the new one', async () => {
      await viewer.getByRole('link', { name: 'Operators' }).click();
      await expect(viewer.getByTestId('my-username')).toHaveText(username);
      await expect(viewer.getByRole('region', { name: 'Operators' })).toHaveCount(0);
      await viewer.getByRole('button', { name: 'Change password' }).click();
      const dialog = viewer.getByRole('dialog');
      await dialog.getByLabel('Current password').fill('not-my-password');
      await dialog.getByLabel('New password', { exact: true }).fill('viewer-chosen-passphrase');
      await dialog.getByLabel('Repeat the new password').fill('viewer-chosen-passphrase');
      await dialog.getByRole('button', { name: 'Change password' }).click();
      await expect(dialog.getByText('The current password is wrong.')).toBeVisible();
      await dialog.getByLabel('Current password').fill(password);
      await dialog.getByRole('button', { name: 'Change password' }).click();
      await expect(dialog.getByText('Your password was changed.')).toBeVisible();
      await dialog.getByRole('button', { name: 'Done' }).click();
      await viewer.getByRole('button', { name: 'Sign out' }).click();
      await viewer.getByLabel('Username').fill(username);
      await viewer.getByLabel('Password').fill('viewer-chosen-passphrase');
      await viewer.getByRole('button', { name: 'Sign in' }).click();
      await expect(viewer.getByTestId('read-only-role')).toBeVisible();
    });

    await test.step('made an admin, the same session is offered issue at once; made a viewer again, not', async () => {
      await admin.reload();
      await admin.getByLabel(`Role of ${username}`).selectOption('admin');
      await admin.getByRole('dialog').getByRole('button', { name: 'Make admin' }).click();
      await expect(admin.getByLabel(`Role of ${username}`)).toHaveValue('admin');
      await viewer.goto(`/console/#/keys?tenant=${appliance.tenant}`);
      await viewer.reload();
      await expect(viewer.getByRole('button', { name: '+ New key' })).toBeVisible();
      await admin.getByLabel(`Role of ${username}`).selectOption('viewer');
      await admin.getByRole('dialog').getByRole('button', { name: 'Make viewer' }).click();
      await expect(admin.getByLabel(`Role of ${username}`)).toHaveValue('viewer');
      await viewer.reload();
      await expect(viewer.getByTestId('read-only-role')).toBeVisible();
      await expect(viewer.getByRole('button', { name: '+ New key' })).toHaveCount(0);
    });

    await test.step('the admin disables the viewer: its open session ends at once', async () => {
      await admin.getByRole('button', { name: `Disable ${username}` }).click();
      await admin.getByRole('dialog').getByRole('button', { name: 'Disable' }).click();
      await expect(admin.locator(`tr[data-operator="${username}"]`)).toContainText('Disabled');
      await viewer.reload();
      await expect(viewer.getByTestId('session-expired')).toBeVisible();
    });
  } finally {
    await viewerContext.close();
  }
});
