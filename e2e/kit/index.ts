import { test as base, expect, type Page } from '@playwright/test';
import { e2eEnv, type E2eEnv } from '../support/env.ts';
import { ConsoleApi } from './admin.ts';
import { SignedClient } from './client.ts';

export { expect };
export { SignedClient, sign, stringToSign, type Credentials, type SignedResponse } from './client.ts';
export { ConsoleApi } from './admin.ts';
export { defineApplianceConfig, APPLIANCE_GLOBAL_SETUP, type ApplianceConfigOptions } from './config.ts';
export type { E2eEnv } from '../support/env.ts';

export interface KitOptions {
  /**
   * Reset a clinic to its first-start state before each test: `true` = the kit's clinic (`appliance.tenant`),
   * a slug = that clinic, `false` (default) = no reset. `test.use({ resetBeforeEach: true })`.
   */
  resetBeforeEach: boolean | string;
}

export interface KitTestFixtures {
  /** /v1 client signed with the kit's key (all scopes of `appliance.tenant`); writes get an Idempotency-Key. */
  api: SignedClient;
  /** A page signed in to the console, on the API keys screen of `appliance.tenant`. */
  operatorPage: Page;
  /**
   * Resets a clinic (default: `appliance.tenant`): through the automation route with `E2E_OPERATOR_TOKEN` when
   * it is set, else through the console API with the kit's session (no token is issued for it).
   */
  resetTenant: (slug?: string) => Promise<ResetResult>;
  _autoReset: undefined;
}

export interface KitWorkerFixtures {
  /** Where and with what the tests run (global-setup: a stack of its own, or E2E_BASE_URL). */
  appliance: E2eEnv;
  /** The console API signed in as the operator (CSRF handled); the keys it issued are revoked when the worker ends. */
  consoleApi: ConsoleApi;
  /** An operator API token: E2E_OPERATOR_TOKEN, or issued for this worker (1 day) and revoked and removed after. */
  operatorToken: string;
}

export interface ResetResult {
  slug: string;
  nome: string;
  rows_restored: number;
  duration_ms: number;
}

export const test = base.extend<KitOptions & KitTestFixtures, KitWorkerFixtures>({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern, and it has none
  appliance: [async ({}, use) => use(e2eEnv()), { scope: 'worker' }],

  consoleApi: [
    async ({ appliance }, use) => {
      const api = await ConsoleApi.signIn(appliance.baseUrl, appliance.operator, appliance.password);
      await use(api);
      // What the kit made does not outlive the run: keys issued through it (or tracked) are revoked.
      await api.cleanup().finally(() => api.dispose());
    },
    { scope: 'worker' },
  ],

  operatorToken: [
    async ({ appliance, consoleApi }, use, workerInfo) => {
      if (appliance.operatorToken) return use(appliance.operatorToken);
      // Every clinic, explicitly: a test may name any. One day at most; revoked and off the list when the worker ends.
      const issued = await consoleApi.call<{ id: number; token: string }>('POST', '/operator-tokens', {
        label: `e2e kit worker ${workerInfo.workerIndex}`,
        tenants: '*',
        expires_in_days: 1,
      });
      await use(issued.token);
      await consoleApi.removeOperatorToken(issued.id).catch(() => undefined);
    },
    { scope: 'worker' },
  ],

  resetBeforeEach: [false, { option: true }],

  // page.goto('/console/') and request.get('/v1/...') resolve against the appliance under test.
  baseURL: async ({ appliance }, use) => use(appliance.baseUrl),

  api: async ({ appliance }, use) => {
    await use(new SignedClient(appliance.baseUrl, { apiKey: appliance.apiKey, apiSecret: appliance.apiSecret }));
  },

  resetTenant: async ({ appliance, consoleApi }, use) => {
    await use(async (slug = appliance.tenant) => {
      if (!appliance.operatorToken) {
        return consoleApi.call<ResetResult>('POST', `/tenants/${slug}/reset`, {}).catch((error: Error) => {
          throw new Error(`reset of ${slug} failed: ${error.message}`);
        });
      }
      const res = await fetch(`${appliance.baseUrl}/admin/api/automation/tenants/${slug}/reset`, {
        method: 'POST',
        headers: { authorization: `Bearer ${appliance.operatorToken}`, 'content-type': 'application/json' },
        body: '{}',
      });
      const json = (await res.json()) as { data: ResetResult; error: unknown };
      if (res.status !== 200) throw new Error(`reset of ${slug} failed: ${res.status} ${JSON.stringify(json.error)}`);
      return json.data;
    });
  },

  _autoReset: [
    async ({ resetBeforeEach, resetTenant, appliance }, use) => {
      if (resetBeforeEach) await resetTenant(resetBeforeEach === true ? appliance.tenant : resetBeforeEach);
      await use(undefined);
    },
    { auto: true },
  ],

  operatorPage: async ({ page, appliance }, use) => {
    // page.request shares the page's cookies: the session cookie set here is the browser's.
    const login = await page.request.post(`${appliance.baseUrl}/admin/api/auth/login`, {
      data: { username: appliance.operator, password: appliance.password },
    });
    expect(login.status(), 'console sign-in').toBe(200);
    await page.goto(`${appliance.baseUrl}/console/#/keys?tenant=${encodeURIComponent(appliance.tenant)}`);
    await expect(page.getByText(`Signed in as ${appliance.operator}`)).toBeVisible();
    await use(page);
  },
});
