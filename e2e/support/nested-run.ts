import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import type { E2eEnv } from './env.ts';

/** The checkout's root (this file is e2e/support/nested-run.ts). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Writes files (relative name → text) under a folder, making their folders. */
export function writeFiles(folder: string, files: Map<string, string> | Record<string, string>): void {
  for (const [name, text] of files instanceof Map ? files : Object.entries(files)) {
    mkdirSync(path.dirname(path.join(folder, name)), { recursive: true });
    writeFileSync(path.join(folder, name), text);
  }
}

/** A QA folder in the temp dir, as docs/testing.md § Tests in your own repository lays one out, with these specs. */
export function qaFolder(prefix: string, specs: Record<string, string>): string {
  const folder = mkdtempSync(path.join(tmpdir(), prefix));
  writeFiles(folder, {
    'package.json': '{ "private": true, "type": "module" }\n',
    'playwright.config.ts': `import { defineApplianceConfig } from '${ROOT}/e2e/kit/config.ts';\nexport default defineApplianceConfig();\n`,
    ...specs,
  });
  return folder;
}

/** The stack under test, for a nested run: its URL, operator and key; the nested workers clone its template. */
export function applianceEnv(appliance: E2eEnv): NodeJS.ProcessEnv {
  return {
    E2E_BASE_URL: appliance.baseUrl,
    E2E_OPERATOR: appliance.operator,
    E2E_PASSWORD: appliance.password,
    E2E_API_KEY: appliance.apiKey,
    E2E_API_SECRET: appliance.apiSecret,
    E2E_TEMPLATE: appliance.template,
  };
}

/**
 * Runs the checkout's Playwright from a folder (a QA repository's, outside the checkout) against the stack under
 * test: `E2E_BASE_URL` and the rest in `env`; what this run's global setup handed its own workers is not inherited.
 */
export function runPlaywright(
  folder: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; output: string }> {
  const { E2E_STACK: _stack, E2E_OPERATOR_TOKEN: _token, E2E_LOCK_DIR: _lock, ...inherited } = process.env;
  return new Promise((resolve) => {
    execFile(
      path.join(ROOT, 'node_modules/.bin/playwright'),
      ['test', '--reporter', 'list', ...args],
      { cwd: folder, env: { ...inherited, CI: '', ...env }, timeout: 170_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        // Plain text: workers inherit Playwright's FORCE_COLOR, which would put colour codes between the words.
        const output = stripVTControlCharacters(`${stdout}${stderr}`);
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, output });
      },
    );
  });
}
