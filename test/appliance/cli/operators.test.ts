import { execFile } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { journalRows } from '../../helpers/journal.ts';
import { ensureOperator } from '../../../server/operators/index.ts';
import { ConsoleClient } from '../../server/admin/console-client.ts';

// Issue 22 § 6, the CLI path: `operators list | add <username> --role | disable | enable | role | reset` on
// DATA_DIR, the running gateway honouring what they wrote, every change journaled with via: "cli".
vi.setConfig({ testTimeout: 90_000 });
let stack: TestStack;
const PASSWORD = 'correct-horse-battery';

beforeAll(async () => {
  stack = await startTestStack();
  await ensureOperator(stack.gatewayDb.db, 'admin', PASSWORD);
});
afterAll(async () => stack?.stop());

const TSX = path.resolve('node_modules/.bin/tsx');

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

const signIn = async (username: string, password: string) => {
  const c = new ConsoleClient(stack.gatewayUrl);
  return { client: c, status: (await c.login(username, password)).status };
};

const cliEntries = (action: string) =>
  journalRows(stack).filter((e) => e.method === 'CLI' && JSON.parse(e.detail).action === action);

test('add prints a generated password once; the operator signs in with its role; journaled without the password', async () => {
  const res = await cli('operators', 'add', 'qa.viewer', '--role', 'viewer', '--json');
  expect(res.code, res.stderr).toBe(0);
  const { operator, password } = JSON.parse(res.stdout);
  expect(operator).toMatchObject({ username: 'qa.viewer', role: 'viewer', status: 'active' });
  const { client, status } = await signIn('qa.viewer', password);
  expect(status).toBe(200);
  expect((await client.call('POST', '/admin/api/tenants', { slug: 'nao', nome: 'Nao' })).body.error?.code).toBe(
    'ADMIN_FORBIDDEN',
  );

  const entry = cliEntries('operator.create').at(-1)!;
  expect(JSON.parse(entry.detail)).toMatchObject({ via: 'cli', username: 'qa.viewer', role: 'viewer' });
  expect(JSON.stringify(journalRows(stack))).not.toContain(password);

  const again = await cli('operators', 'add', 'qa.viewer', '--role', 'viewer');
  expect(again.code).toBe(1);
  expect(again.stderr).toContain('operator "qa.viewer" already exists');
  const badRole = await cli('operators', 'add', 'outro', '--role', 'root');
  expect(badRole.code).toBe(2);
  expect(badRole.stderr).toContain('admin, viewer');
});

test("disable ends the operator's sessions and revokes its tokens; enable lets it sign in again", async () => {
  await ensureOperator(stack.gatewayDb.db, 'ci.admin', PASSWORD, 'admin');
  const { client } = await signIn('ci.admin', PASSWORD);
  const token = (await client.call('POST', '/admin/api/operator-tokens', { label: 'ci', tenants: '*' })).body.data;

  const res = await cli('operators', 'disable', 'ci.admin');
  expect(res.code, res.stderr).toBe(0);
  expect(res.stderr).toContain('1 session(s) ended, 1 operator token(s) revoked');
  expect((await client.call('GET', '/admin/api/auth/session')).status).toBe(401);
  expect((await signIn('ci.admin', PASSWORD)).status).toBe(401);
  const tokenRow = await stack.gatewayDb.db
    .selectFrom('operator_tokens')
    .select('revoked_at')
    .where('id', '=', token.id)
    .executeTakeFirstOrThrow();
  expect(tokenRow.revoked_at).not.toBeNull();

  expect((await cli('operators', 'enable', 'ci.admin')).code).toBe(0);
  expect((await signIn('ci.admin', PASSWORD)).status).toBe(200);
  expect(JSON.parse(cliEntries('operator.update').at(-1)!.detail)).toMatchObject({
    via: 'cli',
    username: 'ci.admin',
    depois: { disabled: false },
  });
});

test('the last active admin can be neither disabled nor demoted; the refusal names the way out and is journaled', async () => {
  // admin and ci.admin are admins: demote ci.admin, then admin is the last.
  expect((await cli('operators', 'role', 'ci.admin', 'viewer')).code).toBe(0);
  for (const args of [
    ['disable', 'admin'],
    ['role', 'admin', 'viewer'],
  ]) {
    const res = await cli('operators', ...args);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('"admin" is the last active admin: make another operator admin first');
  }
  const refused = cliEntries('operator.update').filter((e) => e.error_code === 'INVALID_STATE');
  expect(refused.length).toBeGreaterThanOrEqual(2);
  const list = JSON.parse((await cli('operators', 'list', '--json')).stdout);
  expect(list.find((o: { username: string }) => o.username === 'admin')).toMatchObject({
    role: 'admin',
    status: 'active',
  });
});

test('reset prints a new password, ends the sessions; an unknown operator lists those that exist', async () => {
  await ensureOperator(stack.gatewayDb.db, 'esquecida', PASSWORD, 'viewer');
  const { client } = await signIn('esquecida', PASSWORD);
  const res = await cli('operators', 'reset', 'esquecida', '--json');
  expect(res.code, res.stderr).toBe(0);
  const { password } = JSON.parse(res.stdout);
  expect((await client.call('GET', '/admin/api/auth/session')).status).toBe(401);
  expect((await signIn('esquecida', PASSWORD)).status).toBe(401);
  expect((await signIn('esquecida', password)).status).toBe(200);
  expect(JSON.stringify(journalRows(stack))).not.toContain(password);

  const unknown = await cli('operators', 'reset', 'ninguem');
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toMatch(/operator "ninguem" does not exist; operators: .*admin.*esquecida/);
});

test("tokens create refuses a viewer as the token's operator", async () => {
  const res = await cli('tokens', 'create', '--label', 'x', '--all-tenants', '--operator', 'qa.viewer');
  expect(res.code).toBe(1);
  expect(res.stderr).toContain('is a viewer');
});
