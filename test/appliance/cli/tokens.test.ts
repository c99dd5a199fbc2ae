import { execFile } from 'node:child_process';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { journalRows } from '../../helpers/journal.ts';
import { ensureOperator } from '../../../server/operators/index.ts';

// Issue 19 § 6, the CLI path: `npm run cli -- tokens create --label … --tenant <slug> (repeatable) |
// --all-tenants [--expires-in-days n] [--json]`, `tokens list`, `tokens revoke <id>` on DATA_DIR, and the
// running gateway honouring what they wrote.
vi.setConfig({ testTimeout: 90_000 });
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
  await stack.createTenant('clinica-a');
  await stack.createTenant('clinica-b');
  // The CLI issues under OPERATOR_USERNAME (default admin) unless --operator says otherwise.
  await ensureOperator(stack.gatewayDb.db, 'admin', 'correct-horse-battery');
});
afterAll(async () => stack?.stop());

const TSX = path.resolve('node_modules/.bin/tsx');
const DAY_MS = 86_400_000;

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      TSX,
      ['appliance/cli/main.ts', ...args],
      { env: { ...process.env, DATA_DIR: stack.dataDir, BACKEND_URL: stack.backendUrl } },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

async function reset(token: string, slug: string): Promise<number> {
  const res = await request(`${stack.gatewayUrl}/admin/api/automation/tenants/${slug}/reset`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{}',
  });
  await res.body.dump();
  return res.statusCode;
}

test('create with --tenant repeated: the token resets those two clinics and no other; default expiry 30 days; journaled', async () => {
  const res = await cli(
    'tokens',
    'create',
    '--label',
    'ci suite',
    '--tenant',
    'clinica-a',
    '--tenant',
    'clinica-b',
    '--json',
  );
  expect(res.code, res.stderr).toBe(0);
  const issued = JSON.parse(res.stdout);
  expect(issued.token).toMatch(/^ce_op_[A-Za-z0-9_-]{43}$/);
  expect(issued).toMatchObject({
    label: 'ci suite',
    tenants: ['clinica-a', 'clinica-b'],
    status: 'active',
    operator: 'admin',
  });
  expect(Date.parse(issued.expires_at) - Date.parse(issued.created_at)).toBe(30 * DAY_MS);
  expect(await reset(issued.token, 'clinica-a')).toBe(200);
  expect(await reset(issued.token, 'clinica-b')).toBe(200);
  expect(await reset(issued.token, stack.tenantSlug)).toBe(403);

  const entry = journalRows(stack).find(
    (e) => e.method === 'CLI' && JSON.parse(e.detail).action === 'operator_token.create',
  );
  expect(entry).toBeDefined();
  expect(JSON.parse(entry!.detail)).toMatchObject({
    via: 'cli',
    token_id: issued.id,
    tenants: ['clinica-a', 'clinica-b'],
    expires_at: issued.expires_at,
  });
  expect(JSON.stringify(journalRows(stack))).not.toContain(issued.token.slice(10));
});

test('--all-tenants is "*": every clinic; --expires-in-days sets the validity (365 at most)', async () => {
  const res = await cli(
    'tokens',
    'create',
    '--label',
    'everything',
    '--all-tenants',
    '--expires-in-days',
    '365',
    '--json',
  );
  expect(res.code, res.stderr).toBe(0);
  const issued = JSON.parse(res.stdout);
  expect(issued.tenants).toBe('*');
  expect(Date.parse(issued.expires_at) - Date.parse(issued.created_at)).toBe(365 * DAY_MS);
  for (const slug of ['clinica-a', 'clinica-b', stack.tenantSlug])
    expect(await reset(issued.token, slug), slug).toBe(200);
});

test('refused: no clinic, both --tenant and --all-tenants, an unknown clinic, 0 or 366 days; nothing is issued', async () => {
  const before = (await stack.gatewayDb.db.selectFrom('operator_tokens').select('id').execute()).length;
  const none = await cli('tokens', 'create', '--label', 'x');
  expect(none.code).toBe(1);
  expect(none.stderr).toMatch(/--tenant <slug>.*--all-tenants/);
  const both = await cli('tokens', 'create', '--label', 'x', '--tenant', 'clinica-a', '--all-tenants');
  expect(both.code).toBe(1);
  expect(both.stderr).toMatch(/not both/);
  const unknown = await cli('tokens', 'create', '--label', 'x', '--tenant', 'clinica-a', '--tenant', 'nao-existe');
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toMatch(/no such clinic: nao-existe/);
  for (const days of ['0', '366', '1.5']) {
    const res = await cli('tokens', 'create', '--label', 'x', '--tenant', 'clinica-a', '--expires-in-days', days);
    expect(res.code, days).not.toBe(0);
    expect(res.stderr).toMatch(/from 1 to 365/);
  }
  expect((await stack.gatewayDb.db.selectFrom('operator_tokens').select('id').execute()).length).toBe(before);
});

test('human output: the token once on stdout with its clinics and expiry; list shows clinics, expiry and status; revoke → 401 at once', async () => {
  const res = await cli('tokens', 'create', '--label', 'to revoke', '--tenant', 'clinica-a', '--expires-in-days', '2');
  expect(res.code, res.stderr).toBe(0);
  const token = /token:\s+(ce_op_\S+)/.exec(res.stdout)![1];
  const id = Number(/id:\s+(\d+)/.exec(res.stdout)![1]);
  expect(res.stdout).toMatch(/clinics:\s+clinica-a/);
  expect(res.stdout).toMatch(/expires_at:\s+\d{4}-\d\d-\d\dT/);
  expect(res.stderr).toMatch(/shown only now/);

  const listed = await cli('tokens', 'list', '--json');
  expect(listed.code, listed.stderr).toBe(0);
  expect(listed.stdout).not.toContain(token);
  const view = JSON.parse(listed.stdout).find((t: any) => t.id === id);
  expect(view).toMatchObject({ label: 'to revoke', tenants: ['clinica-a'], status: 'active' });
  const table = await cli('tokens', 'list');
  expect(table.stdout).toMatch(new RegExp(`${id}\\s+to revoke\\s+ce_op_\\S+\\s+clinica-a\\s+active`));

  expect(await reset(token, 'clinica-a')).toBe(200);
  const revoked = await cli('tokens', 'revoke', String(id));
  expect(revoked.code, revoked.stderr).toBe(0);
  expect(revoked.stderr).toMatch(new RegExp(`operator token ${id} \\(ce_op_.{4}…\\) revoked`));
  expect(await reset(token, 'clinica-a')).toBe(401);
  expect(JSON.parse((await cli('tokens', 'list', '--json')).stdout).find((t: any) => t.id === id).status).toBe(
    'revoked',
  );
  const entry = journalRows(stack).at(-1)!;
  expect(entry).toMatchObject({ method: 'CLI', path: `tokens revoke ${id}`, status: 200 });
  expect((await cli('tokens', 'revoke', '99999')).stderr).toMatch(/operator token 99999 does not exist/);
});
