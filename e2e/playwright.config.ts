import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The stack's URL: E2E_BASE_URL, or the one global-setup started (set in the workers' environment). */
function baseURL(): string | undefined {
  if (process.env.E2E_BASE_URL) return process.env.E2E_BASE_URL;
  return process.env.E2E_STACK ? (JSON.parse(process.env.E2E_STACK) as { baseUrl: string }).baseUrl : undefined;
}

/**
 * Headless Debian Chromium against a whole stack started by global-setup.ts, or against a running appliance
 * (E2E_BASE_URL: docs/testing.md); never downloads a browser. Fixtures for tests: e2e/kit.
 */
export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  outputDir: './artifacts',
  globalSetup: './global-setup.ts',
  fullyParallel: false,
  workers: 1,
  // On CI a failed test runs once more with a trace (trace: 'on-first-retry'); the report marks it flaky.
  // Locally a failure is a failure, at once: rerun with `--retries 1` (or `--trace on`) to get a trace.
  retries: process.env.CI ? 1 : 0,
  timeout: 90_000,
  expect: { timeout: 10_000 },
  reporter: [['list'], ['html', { open: 'never', outputFolder: path.join(here, 'report') }]],
  use: {
    baseURL: baseURL(),
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1440, height: 900 },
    screenshot: 'only-on-failure',
    trace: 'on-first-retry',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
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
  },
});
