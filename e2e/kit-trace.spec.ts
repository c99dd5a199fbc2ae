import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from './kit/index.ts';
import { applianceEnv, qaFolder, ROOT, runPlaywright } from './support/nested-run.ts';
import { unzip } from './support/zip.ts';

// Issue 30 § 5: the kit's `api` goes through the test's own Playwright request context, so a run with `--trace on`
// records the test's signed /v1 calls (with Node's fetch it recorded none of them). A QA folder of one test making
// three calls runs against the stack under test; its trace.zip is read back.

test('a run with --trace on records the three /v1 calls of a test made with the kit’s api', async ({ appliance }) => {
  test.setTimeout(120_000);
  const folder = qaFolder('qa-trace-', {
    'tests/three-calls.spec.ts': `import { expect, test } from '${ROOT}/e2e/kit/index.ts';
test('three calls', async ({ api }) => {
  const nome = 'Paciente Traced';
  expect((await api.post('/v1/pacientes', { nome, data_nascimento: '1990-05-06' })).status).toBe(201);
  expect((await api.get('/v1/pacientes?nome=' + encodeURIComponent(nome))).json.meta.total).toBe(1);
  expect((await api.get('/v1/pacientes/999999999')).status).toBe(404);
});
`,
  });
  try {
    const output = path.join(folder, 'results');
    const result = await runPlaywright(folder, ['--trace', 'on', '--output', output, '--workers', '1'], {
      ...applianceEnv(appliance),
    });
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/1 passed/);

    const traces = readdirSync(output, { recursive: true, encoding: 'utf8' }).filter((name) =>
      name.endsWith('trace.zip'),
    );
    expect(traces, readdirSync(output).join(', ')).toHaveLength(1);
    const trace = unzip(readFileSync(path.join(output, traces[0])));
    const network = [...trace.entries()]
      .filter(([name]) => name.endsWith('.network'))
      .flatMap(([, text]) => text.toString('utf8').split('\n').filter(Boolean))
      .map((line) => JSON.parse(line) as { snapshot?: { request: Req; response: { status: number } } })
      .filter((entry) => entry.snapshot && new URL(entry.snapshot.request.url).pathname.startsWith('/v1/'))
      .map(({ snapshot }) => ({
        method: snapshot!.request.method,
        path: new URL(snapshot!.request.url).pathname,
        status: snapshot!.response.status,
        signed: snapshot!.request.headers.some((h) => h.name.toLowerCase() === 'x-signature'),
      }));
    expect(network).toEqual([
      { method: 'POST', path: '/v1/pacientes', status: 201, signed: true },
      { method: 'GET', path: '/v1/pacientes', status: 200, signed: true },
      { method: 'GET', path: '/v1/pacientes/999999999', status: 404, signed: true },
    ]);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

interface Req {
  url: string;
  method: string;
  headers: Array<{ name: string; value: string }>;
}
