import { test as base, expect, type Page } from '@playwright/test';
import { e2eEnv, type E2eEnv } from '../support/env.ts';
import { ConsoleApi } from './admin.ts';
import { ApplianceLock } from './alone.ts';
import { SignedClient } from './client.ts';
import { type ExpectedCall, Received, type ReceivedEntry, type ReceivedFilter } from './received.ts';
import { dropWorkerClinic, newWorkerClinic, type WorkerClinic } from './worker-clinic.ts';

export { expect };
export { SignedClient, sign, stringToSign, type Credentials, type SignedResponse } from './client.ts';
export { ConsoleApi } from './admin.ts';
export { defineApplianceConfig, APPLIANCE_GLOBAL_SETUP, type ApplianceConfigOptions } from './config.ts';
export type { WorkerClinic } from './worker-clinic.ts';
export type { ExpectedCall, NearMiss, ReceivedAnswer, ReceivedEntry, ReceivedFilter } from './received.ts';
export type { E2eEnv } from '../support/env.ts';

export interface KitOptions {
  /**
   * Reset a clinic to its first-start state before each test: `true` = the worker's clinic (`appliance.tenant`),
   * a slug = that clinic, `false` (default) = no reset. `test.use({ resetBeforeEach: true })`.
   */
  resetBeforeEach: boolean | string;
  /**
   * The test changes what the whole appliance does (its clock, faults on every clinic, lists every test sees):
   * it runs alone, while no other worker runs a test. `test.use({ applianceWide: true })`, per file or describe.
   */
  applianceWide: boolean;
}

export interface KitWorkerOptions {
  /**
   * Each worker works in a clinic of its own, cloned from the template (`E2E_TEMPLATE`, default `demo`) with a
   * key of its own, and dropped when the worker ends (default `true`; `E2E_CLINIC_PER_WORKER=0` makes it `false`).
   * `false`: every worker uses the configured clinic (`E2E_TENANT`) and key (`E2E_API_KEY`), e.g. on an appliance
   * that refuses clones (production without ALLOW_EPHEMERAL_CLINICS).
   */
  clinicPerWorker: boolean;
}

export interface KitTestFixtures {
  /** /v1 client signed with the worker's key (all scopes of `appliance.tenant`); writes get an Idempotency-Key. */
  api: SignedClient;
  /** A page signed in to the console, on the API keys screen of `appliance.tenant`. */
  operatorPage: Page;
  /**
   * Resets a clinic (default: the worker's, `appliance.tenant`) to its first-start state, which for the worker's
   * clinic is the template's: through the automation route with `E2E_OPERATOR_TOKEN` when it is set, else
   * through the console API with the kit's session (no token is issued for it).
   */
  resetTenant: (slug?: string) => Promise<ResetResult>;
  /**
   * What the gateway received in the worker's clinic since the test started (the journal's entries, oldest first,
   * redacted as stored): `await received({ method: 'POST', path: '/v1/pacientes' })`.
   */
  received: (filter?: ReceivedFilter) => Promise<ReceivedEntry[]>;
  /**
   * Fails unless the gateway received the call (`count`: exactly that many; `body`: fields the request body holds),
   * listing what it received instead: the near misses and why each differs. Answers the matching entries.
   */
  expectReceived: (expected: ExpectedCall) => Promise<ReceivedEntry[]>;
  /** When the test started (ISO): `received` and the HAR of a failed test start there. */
  testStartedAt: string;
  _applianceLock: undefined;
  _autoReset: undefined;
  _harOnFailure: undefined;
}

export interface KitWorkerFixtures {
  /** Where and with what the tests run: `tenant`, `apiKey` and `apiSecret` are the worker's own clinic and key. */
  appliance: E2eEnv;
  /** The console API signed in as the operator (CSRF handled); the keys it issued are revoked when the worker ends. */
  consoleApi: ConsoleApi;
  /** An operator API token: E2E_OPERATOR_TOKEN, or issued for this worker (1 day) and revoked and removed after. */
  operatorToken: string;
  /** The worker's own clinic (null with `clinicPerWorker: false`). */
  workerClinic: WorkerClinic | null;
  _env: E2eEnv;
}

export interface ResetResult {
  slug: string;
  nome: string;
  rows_restored: number;
  duration_ms: number;
}

/** The worker's key still signs in its clinic (a 401 other than a stale timestamp: the clinic and its keys are gone). */
async function clinicAlive(appliance: E2eEnv): Promise<boolean> {
  const ping = await new SignedClient(appliance.baseUrl, appliance).get('/v1/ping');
  return ping.status !== 401 || ping.json?.error?.code === 'AUTH_TIMESTAMP_EXPIRED';
}

/** One lock per worker process, in the folder the global setup made for the run. */
let lock: ApplianceLock | undefined;
const runLock = () => {
  if (!lock && process.env.E2E_LOCK_DIR) lock = new ApplianceLock(process.env.E2E_LOCK_DIR);
  return lock;
};

export const test = base.extend<KitOptions & KitTestFixtures, KitWorkerOptions & KitWorkerFixtures>({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern, and it has none
  _env: [async ({}, use) => use(e2eEnv()), { scope: 'worker' }],

  clinicPerWorker: [process.env.E2E_CLINIC_PER_WORKER !== '0', { scope: 'worker', option: true }],

  consoleApi: [
    async ({ _env }, use) => {
      const api = await ConsoleApi.signIn(_env.baseUrl, _env.operator, _env.password);
      await use(api);
      // What the kit made does not outlive the run: keys issued through it (or tracked) are revoked.
      await api.cleanup().finally(() => api.dispose());
    },
    { scope: 'worker' },
  ],

  workerClinic: [
    async ({ _env, consoleApi, clinicPerWorker }, use, workerInfo) => {
      if (!clinicPerWorker) return use(null);
      const clinic = await newWorkerClinic(_env, consoleApi, workerInfo.parallelIndex);
      try {
        await use(clinic);
      } finally {
        // The clinic it holds now (a replacement if the first expired: see _applianceLock).
        await dropWorkerClinic(_env, consoleApi, clinic.slug);
      }
    },
    { scope: 'worker', timeout: 60_000 },
  ],

  appliance: [
    async ({ _env, workerClinic }, use) =>
      use(
        workerClinic
          ? {
              ..._env,
              tenant: workerClinic.slug,
              apiKey: workerClinic.apiKey,
              apiSecret: workerClinic.apiSecret,
            }
          : _env,
      ),
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
  applianceWide: [false, { option: true }],

  // Held for the whole test, its hooks and fixtures included; waiting for it has a timeout of its own.
  // Held for the whole test, its hooks and fixtures included; waiting for it has a timeout of its own. Once held, the
  // worker's clinic is checked: the appliance removes a clone at its time to live, which a clock moved by another
  // (applianceWide) test brings forward; a worker whose clinic is gone gets a new clone, same template, new key.
  _applianceLock: [
    async ({ applianceWide, appliance, workerClinic, consoleApi, _env }, use, testInfo) => {
      const held = runLock();
      if (held) await (applianceWide ? held.acquireAlone() : held.acquireShared());
      try {
        if (workerClinic && !(await clinicAlive(appliance))) {
          const fresh = await newWorkerClinic(_env, consoleApi, testInfo.parallelIndex);
          Object.assign(workerClinic, fresh);
          Object.assign(appliance, { tenant: fresh.slug, apiKey: fresh.apiKey, apiSecret: fresh.apiSecret });
        }
        await use(undefined);
      } finally {
        held?.release();
      }
    },
    { auto: true, timeout: 600_000 },
  ],

  // page.goto('/console/') and request.get('/v1/...') resolve against the appliance under test.
  baseURL: async ({ appliance }, use) => use(appliance.baseUrl),

  // Through the test's own request context: every call is in the test's trace.
  api: async ({ appliance, request, _applianceLock: _held }, use) => {
    await use(
      new SignedClient(appliance.baseUrl, { apiKey: appliance.apiKey, apiSecret: appliance.apiSecret }, request),
    );
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

  // After the lock and the kit's check of the worker's clinic (a signed ping): what the test received is its own.
  testStartedAt: async ({ _applianceLock: _held }, use) => use(new Date().toISOString()),

  received: async ({ appliance, consoleApi, testStartedAt, _applianceLock: _held }, use) => {
    const journal = new Received(consoleApi, appliance.tenant, testStartedAt);
    await use((filter) => journal.entries(filter));
  },

  expectReceived: async ({ appliance, consoleApi, testStartedAt, _applianceLock: _held }, use) => {
    const journal = new Received(consoleApi, appliance.tenant, testStartedAt);
    await use((expected) =>
      test.step(`expectReceived ${expected.method} ${expected.path}`, () => journal.expect(expected), { box: true }),
    );
  },

  // A failed test's calls in the worker's clinic, since it started, as HAR 1.2 in its report (`calls.har`).
  _harOnFailure: [
    async ({ appliance, consoleApi, testStartedAt, workerClinic }, use, testInfo) => {
      await use(undefined);
      if (testInfo.status === testInfo.expectedStatus) return;
      const query = new URLSearchParams({ since: testStartedAt });
      try {
        const har = await consoleApi.download(`/tenants/${appliance.tenant}/journal/har?${query}`);
        await testInfo.attach('calls.har', { body: har, contentType: 'application/json' });
      } catch (error) {
        // The report says why there is no HAR rather than failing the teardown of a test that already failed.
        await testInfo.attach('calls.har.error.txt', {
          body: `${(error as Error).message}${workerClinic ? '' : ' (clinicPerWorker: false)'}`,
          contentType: 'text/plain',
        });
      }
    },
    { auto: true },
  ],

  _autoReset: [
    async ({ resetBeforeEach, resetTenant, appliance, _applianceLock: _held }, use) => {
      if (resetBeforeEach) await resetTenant(resetBeforeEach === true ? appliance.tenant : resetBeforeEach);
      await use(undefined);
    },
    { auto: true },
  ],

  operatorPage: async ({ page, appliance, _applianceLock: _held }, use) => {
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
