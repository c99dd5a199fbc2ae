import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { gatewayRows } from '../../helpers/journal.ts';
import { runCli } from '../../helpers/tools.ts';
import { signedInOperator, type ConsoleClient } from '../../server/admin/console-client.ts';

// Issue 31 § 3, 5, the CLI path: `journal stats <slug> [--key <id>] [--window 1h|24h] [--json]` and `alerts [--json]`
// on DATA_DIR's gateway database: the console API's answers. SQLite and PostgreSQL.
vi.setConfig({ testTimeout: 90_000 });
let stack: TestStack;
let admin: ConsoleClient;
let key: Awaited<ReturnType<TestStack['newKey']>>;
const slug = 'clinica-cli-stats';

beforeAll(async () => {
  stack = await startTestStack();
  admin = await signedInOperator(stack, 'operador', 'stats-cli-password');
  await stack.createTenant(slug);
  key = await stack.newKey({ tenant: slug });
  for (let i = 0; i < 20; i++) {
    const res = await stack.call({ path: i < 6 ? '/v1/pacientes/999999' : '/v1/pacientes?limit=1' }, key);
    expect(res.status).toBe(i < 6 ? 404 : 200);
  }
  await stack.app.auditWriter.flush();
});
afterAll(async () => stack?.stop());

const cli = (...args: string[]) => runCli(stack.cliEnv, ...args);

test('journal stats --json: the console API answer for the clinic and for a key; the text form; bad flags are usage errors', async () => {
  const api = (await admin.call('GET', `/admin/api/tenants/${slug}/stats?window=24h`)).body.data;
  const out = await cli('journal', 'stats', slug, '--window', '24h', '--json');
  expect(out.code, out.stderr).toBe(0);
  const answer = JSON.parse(out.stdout);
  expect(answer.totals).toEqual(api.totals);
  expect(answer.totals.calls).toBe(20);
  expect(answer.refusals).toEqual([{ code: api.refusals[0].code, count: 6 }]);
  expect(answer.series).toHaveLength(96);

  const ofKey = await cli('journal', 'stats', slug, '--key', String(key.chaveId), '--json');
  expect(ofKey.code, ofKey.stderr).toBe(0);
  expect(JSON.parse(ofKey.stdout)).toMatchObject({
    window: '1h',
    chave_id: key.chaveId,
    totals: { calls: 20, refusals: 6 },
  });

  const text = await cli('journal', 'stats', slug);
  expect(text.code, text.stderr).toBe(0);
  expect(text.stdout).toContain('calls 20, refusals 6');

  const bad = await cli('journal', 'stats', slug, '--window', '7d');
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain('--window');
  const foreign = await cli('journal', 'stats', 'clinica-teste', '--key', String(key.chaveId));
  expect(foreign.code).toBe(1);
  expect((await cli('journal', 'stats', 'nao-existe')).code).toBe(1);
});

test('alerts --json: the console API answer (a failing key, a key expiring in 3 days)', async () => {
  const expiring = await stack.newKey({ tenant: slug });
  await gatewayRows(
    stack,
    'UPDATE api_keys SET expires_at = ? WHERE id = ?',
    new Date(Date.now() + 3 * 86_400_000).toISOString(),
    expiring.chaveId,
  );
  const out = await cli('alerts', '--json');
  expect(out.code, out.stderr).toBe(0);
  const alerts = JSON.parse(out.stdout);
  expect(alerts).toEqual((await admin.call('GET', '/admin/api/alerts')).body.data);
  expect(alerts.find((a: any) => a.chave_id === key.chaveId)).toMatchObject({
    kind: 'key_failing',
    calls: 20,
    refusals: 6,
    ratio: 0.3,
  });
  expect(alerts.find((a: any) => a.chave_id === expiring.chaveId)).toMatchObject({
    kind: 'key_expiring',
    tenant_slug: slug,
  });
  const text = await cli('alerts');
  expect(text.stdout).toContain(`key_failing   ${slug}  #${key.chaveId}`);
});
