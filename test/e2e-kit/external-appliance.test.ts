import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { spawnStack, stopStack } from '../helpers/child-stack.ts';

const run = promisify(execFile);

// Issue 14 § QA kit, done when: the example spec of docs/testing.md runs green against an appliance that is
// already running, with E2E_BASE_URL set (global setup starts nothing and reads DATA_DIR/demo-credentials.json).
describe('QA kit against a running appliance', () => {
  let dataDir = '';
  let child: ChildProcess | undefined;
  let baseUrl = '';

  beforeAll(async () => {
    // The console is served from console/dist: build it when its sources changed (as npm start does).
    await run(process.execPath, ['--import', 'tsx', 'appliance/build-console-if-changed.ts'], { timeout: 120_000 });
    dataDir = mkdtempSync(path.join(tmpdir(), 'gw-e2e-kit-'));
    ({ child, baseUrl } = await spawnStack(dataDir));
  }, 150_000);

  afterAll(async () => {
    await stopStack(child);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('e2e/examples/first.spec.ts passes with E2E_BASE_URL and E2E_DATA_DIR', async () => {
    const outputDir = path.join(dataDir, 'pw');
    const result = await run(
      process.execPath,
      [
        'node_modules/@playwright/test/cli.js',
        'test',
        '--config',
        'e2e/playwright.config.ts',
        '--output',
        outputDir,
        '--reporter',
        'list',
        'e2e/examples/first.spec.ts',
      ],
      { env: { ...process.env, E2E_BASE_URL: baseUrl, E2E_DATA_DIR: dataDir, E2E_STACK: '', CI: '' }, timeout: 90_000 },
    ).catch((error: { code?: number; stdout?: string; stderr?: string }) => error);
    const out = `${result.stdout ?? ''}${result.stderr ?? ''}`;
    expect((result as { code?: number }).code ?? 0, out).toBe(0);
    expect(out).toMatch(/2 passed/);
  }, 100_000);
});
