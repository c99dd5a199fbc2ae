import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from './kit/index.ts';

// Issue 22 § 7, done when: the recipe "Tests in your own repository" of docs/testing.md runs from a temporary
// folder outside the checkout, as a QA engineer would follow it: its files copied as the page shows them, the
// command it gives, against the stack under test (E2E_BASE_URL), and what the kit created is cleaned up after.

// It compares the operator tokens list before and after, and its tests turn a backend fault on and find it by the
// only "Turn fault N off" button: it runs while no other worker runs a test.
test.use({ applianceWide: true });

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PLACEHOLDER = '/path/to/clinic-exams-gateway';

/** The files of the recipe: each `**`qa-tests/<file>`**` heading and the code block under it, from the section only. */
function recipeFiles(): Map<string, string> {
  const doc = readFileSync(path.join(ROOT, 'docs/testing.md'), 'utf8');
  const start = doc.indexOf('## Tests in your own repository');
  const section = doc.slice(start, doc.indexOf('\n## ', start + 1));
  const files = new Map<string, string>();
  for (const match of section.matchAll(/\*\*`qa-tests\/([^`]+)`\*\*\n\n```\w*\n([\s\S]*?)\n```/g))
    files.set(match[1], `${match[2]}\n`);
  return files;
}

function run(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { ...options, timeout: 170_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

test('the docs recipe "Tests in your own repository" passes from a folder outside the checkout, and leaves no key or token behind', async ({
  appliance,
  consoleApi,
}) => {
  test.setTimeout(240_000);
  const files = recipeFiles();
  expect([...files.keys()].sort()).toEqual(['package.json', 'playwright.config.ts', 'tests/appliance.spec.ts']);

  const folder = mkdtempSync(path.join(tmpdir(), 'qa-tests-'));
  expect(path.relative(ROOT, folder).startsWith('..')).toBe(true);
  try {
    for (const [name, text] of files) {
      mkdirSync(path.dirname(path.join(folder, name)), { recursive: true });
      writeFileSync(path.join(folder, name), text.replaceAll(PLACEHOLDER, ROOT));
    }
    // The appliance's DATA_DIR as the recipe names it: the stack under test has none, so its credentials go in one.
    const dataDir = path.join(folder, 'appliance-data');
    mkdirSync(dataDir);
    writeFileSync(
      path.join(dataDir, 'demo-credentials.json'),
      JSON.stringify({
        operator: { username: appliance.operator, password: appliance.password },
        keys: { demo: { api_key: appliance.apiKey, api_secret: appliance.apiSecret, clinica: appliance.tenant } },
      }),
    );

    const tokensBefore = (await consoleApi.call<Array<{ id: number }>>('GET', '/operator-tokens')).map((t) => t.id);
    const keysBefore = (await consoleApi.call<Array<{ id: number }>>('GET', `/tenants/${appliance.tenant}/keys`)).map(
      (k) => k.id,
    );

    // The command of the recipe: cd qa-tests; E2E_BASE_URL=… E2E_DATA_DIR=… <checkout>/node_modules/.bin/playwright test
    const { E2E_STACK: _stack, E2E_OPERATOR_TOKEN: _token, ...inherited } = process.env;
    const result = await run(path.join(ROOT, 'node_modules/.bin/playwright'), ['test', '--reporter', 'list'], {
      cwd: folder,
      env: { ...inherited, E2E_BASE_URL: appliance.baseUrl, E2E_DATA_DIR: dataDir, CI: '' },
    });
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/3 passed/);
    expect(result.output).not.toMatch(/failed|flaky|skipped/);

    // The key the second test issued on the screens (tracked by the kit) is revoked; no operator token was added.
    const keysAfter = await consoleApi.call<Array<{ id: number; status: string; label: string }>>(
      'GET',
      `/tenants/${appliance.tenant}/keys`,
    );
    const made = keysAfter.filter((k) => !keysBefore.includes(k.id));
    expect(made.length).toBeGreaterThanOrEqual(1);
    for (const key of made) expect(key.status, `key ${key.id} (${key.label})`).toBe('revoked');
    expect((await consoleApi.call<Array<{ id: number }>>('GET', '/operator-tokens')).map((t) => t.id)).toEqual(
      tokensBefore,
    );
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
