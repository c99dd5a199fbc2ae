import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { gatewayRows } from '../../helpers/journal.ts';
import { runCli } from '../../helpers/tools.ts';

// Issue 30 § 4, 5, the CLI path: `journal received --tenant <slug> [filters] [--json]` and `journal har --tenant
// <slug> [filters] --out <file>` on DATA_DIR's journal, the console API's answers.
vi.setConfig({ testTimeout: 90_000 });
let stack: TestStack;
let key: Awaited<ReturnType<TestStack['newKey']>>;
let created: string;
let refused: string;
const slug = 'clinica-cli-journal';
const outDir = mkdtempSync(path.join(tmpdir(), 'journal-cli-'));

beforeAll(async () => {
  stack = await startTestStack();
  await stack.createTenant(slug);
  key = await stack.newKey({ tenant: slug });
  const body = { nome: 'Paciente Linha', data_nascimento: '1990-01-01', sexo: 'MAS', cpf: '52998224725' };
  const ok = await stack.call({ method: 'POST', path: '/v1/pacientes', body, idempotencyKey: 'cli-1' }, key);
  expect(ok.status, ok.text).toBe(201);
  created = ok.body.meta.request_id;
  const bad = await stack.call(
    { method: 'POST', path: '/v1/pacientes', body, idempotencyKey: 'cli-2', signature: 'c'.repeat(64) },
    key,
  );
  expect(bad.status).toBe(401);
  refused = bad.body.meta.request_id;
});
afterAll(async () => {
  rmSync(outDir, { recursive: true, force: true });
  await stack?.stop();
});

const cli = (...args: string[]) => runCli(stack.cliEnv, ...args);

test('journal received: the entries as the console API answers them, and the near misses when none match', async () => {
  const found = await cli(
    'journal',
    'received',
    '--tenant',
    slug,
    '--method',
    'POST',
    '--path',
    '/v1/pacientes',
    '--json',
  );
  expect(found.code, found.stderr).toBe(0);
  const answer = JSON.parse(found.stdout);
  expect(answer.entries.map((e: any) => e.request_id)).toEqual([created, refused]);
  expect(answer.entries[0].body.cpf).toBe('[REDACTED]');
  expect(found.stdout).not.toContain('52998224725');

  const missed = await cli('journal', 'received', '--tenant', slug, '--since', created, '--status', '201', '--json');
  expect(missed.code, missed.stderr).toBe(0);
  const near = JSON.parse(missed.stdout);
  expect(near.entries).toEqual([]);
  expect(near.near_misses[0]).toMatchObject({ differs: ['status'], entry: { request_id: refused } });

  const text = await cli('journal', 'received', '--tenant', slug, '--since', created, '--status', '201');
  expect(text.code).toBe(0);
  expect(text.stderr).toContain('no entry matches');
  expect(text.stdout).toContain('AUTH_INVALID_SIGNATURE');
  expect(text.stdout).toContain('differs: status');

  const bad = await cli('journal', 'received', '--tenant', slug, '--since', 'ffffffffffffffffffffffff');
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain('since');
  const flag = await cli('journal', 'received', '--tenant', slug, '--status', 'ok');
  expect(flag.code).toBe(1);
  expect(flag.stderr).toContain('--status');
  const nobody = await cli('journal', 'received', '--tenant', 'no-such-clinic');
  expect(nobody.code).toBe(1);
  expect(nobody.stderr).toContain(slug);
});

test('journal har --out: a HAR 1.2 file (0600) of the filter, journaled as journal.har', async () => {
  const out = path.join(outDir, 'calls.har');
  const res = await cli('journal', 'har', '--tenant', slug, '--code', 'AUTH_INVALID_SIGNATURE', '--out', out, '--json');
  expect(res.code, res.stderr).toBe(0);
  expect(JSON.parse(res.stdout)).toEqual({ out, entries: 1, truncated: false });
  expect(statSync(out).mode & 0o777).toBe(0o600);
  const har = JSON.parse(readFileSync(out, 'utf8'));
  expect(har.log.version).toBe('1.2');
  expect(har.log.entries.map((e: any) => e._requestId)).toEqual([refused]);
  expect(readFileSync(out).includes(Buffer.from(key.apiSecret))).toBe(false);
  const [row] = await gatewayRows(
    stack,
    "SELECT * FROM audit_log WHERE method = 'CLI' AND tenant_slug = ? ORDER BY id DESC LIMIT 1",
    slug,
  );
  expect(row.path).toBe(`journal har --tenant ${slug}`);
  expect(JSON.parse(row.detail)).toMatchObject({ action: 'journal.har', via: 'cli', entries: 1 });
});
