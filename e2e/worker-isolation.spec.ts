import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from './kit/index.ts';
import { applianceEnv, qaFolder, ROOT, runPlaywright } from './support/nested-run.ts';

// Issue 30, done when: two workers never see each other's rows. A QA folder of two tests runs on two workers
// against the stack under test. Each writes a patient named after its worker (workerInfo.parallelIndex), then waits
// until the other has written too — so they provably ran at the same time, on two workers (on one worker the
// second would never start and the wait would time out) — and lists: it finds its own patient and not the other's.

const INNER = `import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '${ROOT}/e2e/kit/index.ts';

const MEET = process.env.MEET_DIR!;
// The backend stores names in capitals.
const NAMES = ['ISOLAMENTO ZERO', 'ISOLAMENTO UM'];

for (const n of [1, 2])
  test(\`writer \${n}\`, async ({ api, appliance }, testInfo) => {
    const me = testInfo.parallelIndex;
    expect((await api.post('/v1/pacientes', { nome: NAMES[me], data_nascimento: '1990-05-06' })).status).toBe(201);
    writeFileSync(path.join(MEET, String(me)), appliance.tenant);
    await expect.poll(() => existsSync(path.join(MEET, String(1 - me))), { timeout: 30_000 }).toBe(true);
    const listed = await api.get('/v1/pacientes?nome=Isolamento');
    expect(listed.json.data.map((p: { nome: string }) => p.nome)).toEqual([NAMES[me]]);
  });
`;

test('two workers, two clinics: each sees the patient it wrote and never the other worker’s', async ({
  appliance,
  consoleApi,
}) => {
  test.setTimeout(120_000);
  const folder = qaFolder('qa-isolation-', {
    'tests/isolation.spec.ts': INNER,
  });
  const meet = path.join(folder, 'meet');
  mkdirSync(meet);
  try {
    const result = await runPlaywright(folder, ['--workers', '2'], {
      ...applianceEnv(appliance),
      MEET_DIR: meet,
    });
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/Running 2 tests using 2 workers/);
    expect(result.output).toMatch(/2 passed/);

    // Two clinics, both clones of the template, neither the template; both dropped when their workers ended.
    const clinics = readdirSync(meet).map((n) => readFileSync(path.join(meet, n), 'utf8'));
    expect(new Set(clinics).size).toBe(2);
    for (const slug of clinics) expect(slug).toMatch(new RegExp(`^${appliance.template}-w[01]-[0-9a-f]{6}$`));
    const left = (await consoleApi.call<Array<{ slug: string }>>('GET', '/tenants')).map((c) => c.slug);
    expect(left.filter((slug) => clinics.includes(slug))).toEqual([]);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
