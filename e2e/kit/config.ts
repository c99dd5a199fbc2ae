import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type PlaywrightTestConfig } from '@playwright/test';

/** The kit's own folder, from its module URL (ESM: no __dirname), whatever folder the tests run from. */
const KIT_DIR = path.dirname(fileURLToPath(import.meta.url));

/** The global setup: starts a throw-away stack, or reads the running appliance (E2E_BASE_URL). Absolute. */
export const APPLIANCE_GLOBAL_SETUP = path.resolve(KIT_DIR, '../global-setup.ts');

/** Debian's Chromium (or CHROMIUM_PATH): a test never downloads a browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The stack's URL: E2E_BASE_URL, or the one global-setup started (set in the workers' environment). */
function applianceUrl(): string | undefined {
  if (process.env.E2E_BASE_URL) return process.env.E2E_BASE_URL;
  return process.env.E2E_STACK ? (JSON.parse(process.env.E2E_STACK) as { baseUrl: string }).baseUrl : undefined;
}

export interface ApplianceConfigOptions extends PlaywrightTestConfig {
  /** The appliance under test; default `E2E_BASE_URL` (unset: a throw-away stack of its own). */
  baseUrl?: string;
  /** The appliance's DATA_DIR (its `demo-credentials.json`); default `E2E_DATA_DIR`, else `./data`. Relative to the folder the tests run from. */
  dataDir?: string;
}

/**
 * The Playwright configuration of the appliance's tests, for this repository and for QA's own (docs/testing.md §
 * Tests in your own repository): headless Debian Chromium, the kit's global setup (absolute, so it works from any
 * folder), traces on the first retry, every test in parallel (`fullyParallel`) on Playwright's own worker count:
 * each worker has a clinic of its own (e2e/kit/index.ts), and a test marked `applianceWide` runs alone. Relative paths (`testDir`,
 * `outputDir`, a reporter's folder) are resolved by Playwright against the folder of the config file that calls
 * this. Anything given overrides the defaults; `use` is merged.
 */
export function defineApplianceConfig(options: ApplianceConfigOptions = {}): PlaywrightTestConfig {
  const { baseUrl, dataDir, use, ...overrides } = options;
  if (baseUrl) process.env.E2E_BASE_URL = baseUrl;
  // Absolute from here on: the workers and the global setup read it, whatever their working directory.
  const data = dataDir ?? process.env.E2E_DATA_DIR;
  if (data) process.env.E2E_DATA_DIR = path.resolve(data);
  return defineConfig({
    testDir: '.',
    testMatch: '**/*.spec.ts',
    outputDir: './test-results',
    globalSetup: APPLIANCE_GLOBAL_SETUP,
    fullyParallel: true,
    // On CI a failed test runs once more with a trace (trace: 'on-first-retry'); the report marks it flaky.
    // Locally a failure is a failure, at once: rerun with `--retries 1` (or `--trace on`) to get a trace.
    retries: process.env.CI ? 1 : 0,
    timeout: 90_000,
    expect: { timeout: 10_000 },
    reporter: [['list'], ['html', { open: 'never', outputFolder: './playwright-report' }]],
    ...overrides,
    use: {
      baseURL: applianceUrl(),
      browserName: 'chromium',
      headless: true,
      viewport: { width: 1440, height: 900 },
      screenshot: 'only-on-failure',
      trace: 'on-first-retry',
      launchOptions: {
        executablePath: CHROMIUM_PATH,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--no-first-run',
          '--disable-sync',
          '--disable-quic',
        ],
      },
      ...use,
    },
  });
}
