import { defineApplianceConfig } from './kit/config.ts';

/**
 * The project's own specs: headless Debian Chromium against a whole stack started by global-setup.ts, or against a
 * running appliance (E2E_BASE_URL: docs/testing.md); never downloads a browser. The same factory QA's own
 * repository uses (`defineApplianceConfig`, e2e/kit/config.ts); fixtures for tests: e2e/kit.
 */
export default defineApplianceConfig({
  // Two workers on the project's 2-core machine (a worker is a browser and a clinic of its own).
  workers: 2,
  outputDir: './artifacts',
  reporter: [['list'], ['html', { open: 'never', outputFolder: './report' }]],
});
