import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from './kit/index.ts';
import { ROOT, runPlaywright, writeFiles } from './support/nested-run.ts';

// Issue 22 § 7, done when: the recipe "Tests in your own repository" of docs/testing.md runs from a temporary
// folder outside the checkout, as a QA engineer would follow it: its files copied as the page shows them, the
// command it gives, against the stack under test (E2E_BASE_URL), and what the kit created is cleaned up after.

// It compares the operator tokens list before and after, and its tests turn a backend fault on and find it by the
// only "Turn fault N off" button: it runs while no other worker runs a test.
test.use({ applianceWide: true });

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

test('the docs recipe "Tests in your own repository" passes from a folder outside the checkout on 4 workers, and leaves no clinic, key or token behind', async ({
  appliance,
  consoleApi,
}) => {
  test.setTimeout(240_000);
  const files = recipeFiles();
  expect([...files.keys()].sort()).toEqual(['package.json', 'playwright.config.ts', 'tests/appliance.spec.ts']);

  const folder = mkdtempSync(path.join(tmpdir(), 'qa-tests-'));
  expect(path.relative(ROOT, folder).startsWith('..')).toBe(true);
  try {
    writeFiles(folder, new Map([...files].map(([name, text]) => [name, text.replaceAll(PLACEHOLDER, ROOT)])));
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
    const clinicsBefore = (await consoleApi.call<Array<{ slug: string }>>('GET', '/tenants')).map((c) => c.slug);

    // The command of the recipe: cd qa-tests; E2E_BASE_URL=… E2E_DATA_DIR=… <checkout>/node_modules/.bin/playwright
    // test --workers 4. The stack under test has no `demo`: its workers clone this stack's template instead.
    const result = await runPlaywright(folder, ['--workers', '4'], {
      E2E_BASE_URL: appliance.baseUrl,
      E2E_DATA_DIR: dataDir,
      E2E_TEMPLATE: appliance.template,
    });
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/Running 4 tests using 4 workers/);
    expect(result.output).toMatch(/4 passed/);
    expect(result.output).not.toMatch(/failed|flaky|skipped/);

    // Four workers, four clinics of their own, each dropped when its worker ended (with the key the second test
    // issued on the screens in it): no clinic is left that was not there before; no operator token was added.
    const clinicsAfter = (await consoleApi.call<Array<{ slug: string }>>('GET', '/tenants')).map((c) => c.slug);
    expect(clinicsAfter.filter((slug) => !clinicsBefore.includes(slug))).toEqual([]);
    expect((await consoleApi.call<Array<{ id: number }>>('GET', '/operator-tokens')).map((t) => t.id)).toEqual(
      tokensBefore,
    );
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
