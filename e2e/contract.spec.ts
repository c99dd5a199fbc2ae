import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startStack } from '../appliance/stack.ts';
import { ALL_SCOPES } from '../contracts/scopes.ts';
import { ephemeralConfig } from '../server/config.ts';
import { ensureOperator } from '../server/operators/index.ts';
import { expect, SignedClient, test } from './kit/index.ts';
import { e2eEnv } from './support/env.ts';

const env = e2eEnv();

/**
 * Issue 33: the Contract screen of a contract guard (`npm run proxy`). A guard of its own, in front of a small fake
 * upstream that answers a 201 without Location; the operator sees the violation per operation and rule, follows its
 * entry to the journal and finds it listed on the entry.
 */
test('the Contract screen lists a violation per operation and rule and links the entry that shows it', async ({
  page,
}) => {
  test.skip(Boolean(env.external), 'starts a contract guard of its own');
  const upstream = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(201, {
        'content-type': 'application/json; charset=utf-8',
        'x-api-version': 'v1',
        'x-request-id': 'abc123',
        'cache-control': 'no-store',
        'idempotency-replay': 'false',
      });
      res.end(
        JSON.stringify({
          data: { id: 7, nome: 'Maria' },
          meta: { request_id: 'abc123', duracao_ms: 1, idempotent_replay: false },
          error: null,
        }),
      );
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-e2e-contract-'));
  const stack = await startStack(
    ephemeralConfig(dataDir, {
      PROXY_MODE: 'resign',
      UPSTREAM_URL: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      UPSTREAM_API_KEY: 'ck_live_upstream',
      UPSTREAM_API_SECRET: 'upstream-secret-for-the-e2e',
    }),
  );
  try {
    await stack.tenants.create({ slug: 'guarda', nome: 'Guarda' });
    const key = await stack.keys.create({ tenantSlug: 'guarda', scopes: [...ALL_SCOPES] });
    await ensureOperator(stack.gatewayDb.db, 'guarda', 'correct-horse-battery', 'admin');
    const v1 = new SignedClient(stack.gatewayUrl, { apiKey: key.api_key, apiSecret: key.api_secret });
    const created = await v1.call('POST', '/v1/pacientes', {
      nome: 'Maria',
      data_nascimento: '1985-03-14',
      sexo: 'FEM',
    });
    expect(created.status).toBe(201);

    await page.goto(`${stack.gatewayUrl}/console/#/contract`);
    await page.getByLabel('Username').fill('guarda');
    await page.getByLabel('Password').fill('correct-horse-battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('heading', { name: 'Contract' })).toBeVisible();
    await expect(page.getByTestId('contract-guard')).toContainText('re-sign');
    const row = page.locator('tr[data-operation="postPacientes"][data-rule="responses.201.headers.Location"]');
    await expect(row).toBeVisible();
    await expect(row.getByTestId('contract-count')).toHaveText('1');
    await expect(row).toContainText('absent');

    // The row's entry: the journal filtered to it, then the entry's detail lists the violation.
    await row.getByRole('link').click();
    await expect(page.getByRole('heading', { name: 'Audit log' })).toBeVisible();
    await page.locator('tr[data-request-id]').first().click();
    const violations = page.getByTestId('detail-contract-violations');
    await expect(violations).toContainText('postPacientes');
    await expect(violations.locator('li[data-rule="responses.201.headers.Location"]')).toContainText('absent');
  } finally {
    await stack.close();
    upstream.closeAllConnections();
    upstream.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
