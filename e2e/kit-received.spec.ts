import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from './kit/index.ts';
import { applianceEnv, qaFolder, ROOT, runPlaywright } from './support/nested-run.ts';

// Issue 30 § 4 and 5: the kit's assertions on what the gateway received (its journal, the worker's clinic, since
// the test started), and the HAR of a failed test's calls in its Playwright report.

test('received() answers the test’s calls oldest first; expectReceived passes on a call made and, for one not made, lists the near misses and why', async ({
  api,
  received,
  expectReceived,
  appliance,
}) => {
  const nome = `Paciente Recebido ${Date.now()}`;
  expect((await api.post('/v1/pacientes', { nome: 'Sem Data' })).status).toBe(400);
  expect((await api.post('/v1/pacientes', { nome, data_nascimento: '1990-05-06' })).status).toBe(201);

  const posts = await received({ method: 'POST', path: '/v1/pacientes' });
  expect(posts.map((e) => [e.method, e.path, e.status])).toEqual([
    ['POST', '/v1/pacientes', 400],
    ['POST', '/v1/pacientes', 201],
  ]);
  expect(posts.every((e) => e.tenant_slug === appliance.tenant)).toBe(true);

  const [made] = await expectReceived({ method: 'POST', path: '/v1/pacientes', status: 201, count: 1 });
  expect(made.status).toBe(201);
  await expectReceived({ method: 'POST', path: '/v1/pacientes', count: 2 });

  // Not made: a PATCH. The failure names the POSTs the gateway did receive there, and what differs.
  const patch = await expectReceived({ method: 'PATCH', path: '/v1/pacientes' }).then(
    () => null,
    (error: Error) => error,
  );
  expect(patch?.message).toContain('expected the gateway to have received PATCH /v1/pacientes');
  expect(patch?.message).toContain('near misses');
  expect(patch?.message).toMatch(/POST \/v1\/pacientes → (201|400).*differs: [^—]*method/);

  // A wrong count says how many there were, and lists them.
  const thrice = await expectReceived({ method: 'POST', path: '/v1/pacientes', count: 3 }).then(
    () => null,
    (error: Error) => error,
  );
  expect(thrice?.message).toContain('found 2 matching call(s)');
  expect(thrice?.message).toContain('POST /v1/pacientes → 400');

  // A refused signature: expecting the ping answered 200 shows the 401 and its code.
  expect((await api.as({ apiKey: appliance.apiKey, apiSecret: '0'.repeat(64) }).get('/v1/ping')).status).toBe(401);
  const ping = await expectReceived({ method: 'GET', path: '/v1/ping', status: 200 }).then(
    () => null,
    (error: Error) => error,
  );
  expect(ping?.message).toMatch(/GET \/v1\/ping → 401 AUTH_INVALID_SIGNATURE.*differs: [^—]*status/);
});

test('a failed test’s calls are attached to its report as calls.har (HAR 1.2, its clinic, since it started); a passing test has none', async ({
  appliance,
}) => {
  test.setTimeout(120_000);
  const folder = qaFolder('qa-har-', {
    'tests/har.spec.ts': `import { expect, test } from '${ROOT}/e2e/kit/index.ts';
test('passes', async ({ api }) => {
  expect((await api.get('/v1/ping')).status).toBe(200);
});
test('fails after two calls', async ({ api }) => {
  expect((await api.get('/v1/ping')).status).toBe(200);
  expect((await api.get('/v1/pacientes?limit=1')).status).toBe(200);
  expect('the answer').toBe('another answer');
});
`,
  });
  try {
    const report = path.join(folder, 'report.json');
    const result = await runPlaywright(folder, ['--workers', '1', '--reporter', 'json'], {
      ...applianceEnv(appliance),
      PLAYWRIGHT_JSON_OUTPUT_NAME: report,
    });
    expect(result.code).toBe(1);
    type Attachment = { name: string; contentType: string; path?: string; body?: string };
    const specs = (
      JSON.parse(readFileSync(report, 'utf8')) as {
        suites: Array<{
          specs: Array<{ title: string; tests: Array<{ results: Array<{ attachments: Attachment[] }> }> }>;
        }>;
      }
    ).suites.flatMap((s) => s.specs);
    const attachments = (title: string) => specs.find((s) => s.title === title)!.tests[0].results[0].attachments;
    expect(attachments('passes').map((a) => a.name)).not.toContain('calls.har');

    const har = attachments('fails after two calls').find((a) => a.name === 'calls.har');
    expect(har?.contentType).toBe('application/json');
    const log = JSON.parse(
      har!.path ? readFileSync(har!.path, 'utf8') : Buffer.from(har!.body!, 'base64').toString(),
    ).log;
    expect(log.version).toBe('1.2');
    expect(
      log.entries.map(
        (e: { request: { method: string; url: string } }) => `${e.request.method} ${new URL(e.request.url).pathname}`,
      ),
    ).toEqual(['GET /v1/ping', 'GET /v1/pacientes']);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
