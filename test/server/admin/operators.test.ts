import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { ensureOperator, updateOperator } from '../../../server/operators/index.ts';
import { ConsoleClient } from './console-client.ts';

// Issue 22 § 6: operator accounts through the console API — add, role, disable, reset, change your own
// password; the last active admin stays; each action journaled under the operator who did it.
let stack: TestStack;
let admin: ConsoleClient;
let adminId: number;
const PASSWORD = 'correct-horse-battery';

const journal = async () => {
  (stack.app as any).auditWriter.flush();
  return stack.gatewayDb.db.selectFrom('audit_log').selectAll().where('source', '=', 'console').orderBy('id').execute();
};

const signIn = async (username: string, password: string): Promise<ConsoleClient> => {
  const c = new ConsoleClient(stack.gatewayUrl);
  const res = await c.login(username, password);
  expect(res.status, res.text).toBe(200);
  return c;
};

beforeAll(async () => {
  stack = await startTestStack();
  adminId = (await ensureOperator(stack.gatewayDb.db, 'chefe', PASSWORD)).operatorId;
  admin = await signIn('chefe', PASSWORD);
});

afterAll(async () => {
  await stack?.stop();
});

describe('adding an operator', () => {
  it('creates it with a generated password shown once (no-store); the list never shows a password or hash', async () => {
    const res = await admin.call('POST', '/admin/api/operators', { username: 'ana.viewer', role: 'viewer' });
    expect(res.status, res.text).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    const { operator, password } = res.body.data;
    expect(password).toMatch(/^.{20}$/);
    expect(operator).toMatchObject({
      username: 'ana.viewer',
      role: 'viewer',
      status: 'active',
      sessions: 0,
      tokens: 0,
    });

    const viewer = await signIn('ana.viewer', password);
    expect((await viewer.call('GET', '/admin/api/auth/session')).body.data.operator.role).toBe('viewer');

    const list = await admin.call('GET', '/admin/api/operators');
    expect(list.body.data.map((o: any) => o.username)).toEqual(expect.arrayContaining(['chefe', 'ana.viewer']));
    expect(list.body.data.find((o: any) => o.username === 'ana.viewer').sessions).toBe(1);
    expect(list.text).not.toContain(password);
    expect(list.text).not.toContain('scrypt');

    const entry = (await journal()).find((r) => JSON.parse(r.detail!).action === 'operator.create' && r.status === 201);
    expect(entry?.operator_id).toBe(adminId);
    expect(JSON.parse(entry!.detail!)).toMatchObject({ username: 'ana.viewer', role: 'viewer' });
    expect(JSON.stringify(await journal())).not.toContain(password);
  });

  it('refuses a taken username (422 CONFLICT), a bad username or role (400)', async () => {
    const taken = await admin.call('POST', '/admin/api/operators', { username: 'chefe', role: 'viewer' });
    expect(taken.status).toBe(422);
    expect(taken.body.error?.code).toBe('CONFLICT');
    expect(
      (await admin.call('POST', '/admin/api/operators', { username: 'Com Espaco', role: 'viewer' })).body.error?.details
        .field,
    ).toBe('username');
    expect(
      (await admin.call('POST', '/admin/api/operators', { username: 'ok', role: 'root' })).body.error?.details.field,
    ).toBe('role');
  });
});

describe('disabling, roles and the last admin', () => {
  it('a disabled operator cannot sign in (same answer as a wrong password); its live session ends at once; enabled again it can', async () => {
    await ensureOperator(stack.gatewayDb.db, 'temporario', PASSWORD, 'viewer');
    const c = await signIn('temporario', PASSWORD);
    const id = (await c.call('GET', '/admin/api/auth/session')).body.data.operator.id;

    const disabled = await admin.call('PATCH', `/admin/api/operators/${id}`, { disabled: true });
    expect(disabled.status, disabled.text).toBe(200);
    expect(disabled.body.data).toMatchObject({ status: 'disabled', sessions: 0 });
    expect(disabled.body.data.disabled_at).toBeTruthy();

    const after = await c.call('GET', '/admin/api/auth/session');
    expect(after.status).toBe(401);
    const login = await new ConsoleClient(stack.gatewayUrl).login('temporario', PASSWORD);
    const wrong = await new ConsoleClient(stack.gatewayUrl).login('temporario', 'not-the-password');
    expect(login.status).toBe(401);
    expect(login.body.error).toEqual(wrong.body.error);

    expect((await admin.call('PATCH', `/admin/api/operators/${id}`, { disabled: false })).body.data.status).toBe(
      'active',
    );
    await signIn('temporario', PASSWORD);
  });

  it('an admin cannot disable, demote or reset itself (422, motivo self): another admin does it', async () => {
    for (const [method, path, body] of [
      ['PATCH', `/admin/api/operators/${adminId}`, { disabled: true }],
      ['PATCH', `/admin/api/operators/${adminId}`, { role: 'viewer' }],
      ['POST', `/admin/api/operators/${adminId}/reset-password`, undefined],
    ] as const) {
      const res = await admin.call(method, path, body);
      expect(res.status, res.text).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'INVALID_STATE', details: { motivo: 'self' } });
    }
    expect((await admin.call('GET', '/admin/api/auth/session')).body.data.operator.role).toBe('admin');
  });

  it('the last active admin can be neither disabled nor demoted, whoever asks (the CLI has no session: the service refuses)', async () => {
    const at = { now: new Date().toISOString(), applianceNow: new Date().toISOString() };
    const db = stack.gatewayDb.db;
    for (const change of [{ disabled: true }, { role: 'viewer' as const }]) {
      await expect(updateOperator(db, adminId, change, at)).rejects.toMatchObject({
        code: 'INVALID_STATE',
        details: { motivo: 'last_admin' },
      });
    }
    const helper = await ensureOperator(db, 'ajudante', PASSWORD, 'admin');
    expect((await updateOperator(db, adminId, { role: 'viewer' }, at)).operator.role).toBe('viewer');
    await expect(updateOperator(db, helper.operatorId, { disabled: true }, at)).rejects.toMatchObject({
      details: { motivo: 'last_admin' },
    });
    expect((await updateOperator(db, adminId, { role: 'admin' }, at)).operator.role).toBe('admin');
    expect((await updateOperator(db, helper.operatorId, { disabled: true }, at)).operator.status).toBe('disabled');
    // A disabled admin is not an active admin: chefe is the last one again.
    await expect(updateOperator(db, adminId, { disabled: true }, at)).rejects.toMatchObject({
      details: { motivo: 'last_admin' },
    });
  });

  it('two admins disabling each other at once: exactly one succeeds, one active admin remains', async () => {
    const a = await ensureOperator(stack.gatewayDb.db, 'duelo-a', PASSWORD, 'admin');
    const b = await ensureOperator(stack.gatewayDb.db, 'duelo-b', PASSWORD, 'admin');
    const ca = await signIn('duelo-a', PASSWORD);
    const cb = await signIn('duelo-b', PASSWORD);
    // chefe steps aside: duelo-a and duelo-b are the only active admins.
    expect((await ca.call('PATCH', `/admin/api/operators/${adminId}`, { role: 'viewer' })).status).toBe(200);

    const [ra, rb] = await Promise.all([
      ca.call('PATCH', `/admin/api/operators/${b.operatorId}`, { disabled: true }),
      cb.call('PATCH', `/admin/api/operators/${a.operatorId}`, { disabled: true }),
    ]);
    const statuses = [ra.status, rb.status];
    expect(
      statuses.filter((s) => s === 200),
      JSON.stringify([ra.body, rb.body]),
    ).toHaveLength(1);
    // The loser was refused by the rule (422) or had lost its session to the winner's disable (401).
    expect([401, 422]).toContain(statuses.find((s) => s !== 200));
    const admins = await stack.gatewayDb.db
      .selectFrom('operators')
      .select('username')
      .where('role', '=', 'admin')
      .where('disabled_at', 'is', null)
      .execute();
    expect(admins).toHaveLength(1);

    const survivor = admins[0].username === 'duelo-a' ? ca : cb;
    expect((await survivor.call('PATCH', `/admin/api/operators/${adminId}`, { role: 'admin' })).status).toBe(200);
  });
});

describe('passwords', () => {
  it("an admin resets another operator's password: the new one shown once, the old one and its sessions gone, the journal without it", async () => {
    await ensureOperator(stack.gatewayDb.db, 'esquecido', PASSWORD, 'viewer');
    const c = await signIn('esquecido', PASSWORD);
    const id = (await c.call('GET', '/admin/api/auth/session')).body.data.operator.id;

    const reset = await admin.call('POST', `/admin/api/operators/${id}/reset-password`);
    expect(reset.status, reset.text).toBe(200);
    expect(reset.headers['cache-control']).toBe('no-store');
    const fresh = reset.body.data.password as string;
    expect(fresh).toMatch(/^.{20}$/);
    expect(reset.body.data.operator.password_changed_at).toBeTruthy();

    expect((await c.call('GET', '/admin/api/auth/session')).status).toBe(401);
    expect((await new ConsoleClient(stack.gatewayUrl).login('esquecido', PASSWORD)).status).toBe(401);
    await signIn('esquecido', fresh);

    const entry = (await journal()).find(
      (r) => JSON.parse(r.detail!).action === 'operator.password.reset' && r.status === 200,
    );
    expect(entry).toMatchObject({ operator_id: adminId, status: 200 });
    expect(JSON.parse(entry!.detail!)).toMatchObject({ operator_id: id, username: 'esquecido', sessions_ended: 1 });
    expect(JSON.stringify(await journal())).not.toContain(fresh);

    const self = await admin.call('POST', `/admin/api/operators/${adminId}/reset-password`);
    expect(self.status).toBe(422);
    expect(self.body.error?.details.motivo).toBe('self');
  });

  it('changing your own password needs the current one; the other sessions end, this one stays; no password in the journal', async () => {
    await ensureOperator(stack.gatewayDb.db, 'mudanca', PASSWORD, 'viewer');
    const here = await signIn('mudanca', PASSWORD);
    const elsewhere = await signIn('mudanca', PASSWORD);
    const next = 'a-brand-new-passphrase';

    const wrong = await here.call('POST', '/admin/api/auth/password', {
      current_password: 'guess-guess-guess',
      new_password: next,
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error?.details.field).toBe('current_password');
    const short = await here.call('POST', '/admin/api/auth/password', {
      current_password: PASSWORD,
      new_password: 'short',
    });
    expect(short.body.error?.details.field).toBe('new_password');

    const ok = await here.call('POST', '/admin/api/auth/password', { current_password: PASSWORD, new_password: next });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.data).toEqual({ changed: true, other_sessions_ended: 1 });
    expect((await here.call('GET', '/admin/api/auth/session')).status).toBe(200);
    expect((await elsewhere.call('GET', '/admin/api/auth/session')).status).toBe(401);
    expect((await new ConsoleClient(stack.gatewayUrl).login('mudanca', PASSWORD)).status).toBe(401);
    await signIn('mudanca', next);

    const rows = (await journal()).filter((r) => JSON.parse(r.detail!).action === 'operator.password.change');
    expect(rows.map((r) => r.status)).toEqual([400, 400, 200]);
    const text = JSON.stringify(rows);
    for (const secret of [PASSWORD, next, 'guess-guess-guess', 'short']) expect(text).not.toContain(secret);
  });

  it('the current password is guessed under the login lockout: 5 wrong → 429 ADMIN_LOCKED, even with the right one', async () => {
    await ensureOperator(stack.gatewayDb.db, 'alvo', PASSWORD, 'viewer');
    const c = await signIn('alvo', PASSWORD);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push(
        (
          await c.call('POST', '/admin/api/auth/password', {
            current_password: `bad-guess-${i}`,
            new_password: 'another-long-password',
          })
        ).status,
      );
    expect(statuses).toEqual([400, 400, 400, 400, 429]);
    const locked = await c.call('POST', '/admin/api/auth/password', {
      current_password: PASSWORD,
      new_password: 'another-long-password',
    });
    expect(locked.status).toBe(429);
    expect(locked.body.error?.code).toBe('ADMIN_LOCKED');
  });
});

describe("removing a used-up operator token (issue 22 § 7: a suite's tokens do not pile up)", () => {
  it('an active token is refused (422); revoked, it leaves the list; the journal keeps its story', async () => {
    const issued = (await admin.call('POST', '/admin/api/operator-tokens', { label: 'kit worker', tenants: '*' })).body
      .data;
    const active = await admin.call('DELETE', `/admin/api/operator-tokens/${issued.id}`);
    expect(active.status).toBe(422);
    expect(active.body.error?.code).toBe('INVALID_STATE');
    expect((await admin.call('GET', '/admin/api/operator-tokens')).body.data.map((t: any) => t.id)).toContain(
      issued.id,
    );

    await admin.call('POST', `/admin/api/operator-tokens/${issued.id}/revoke`);
    const removed = await admin.call('DELETE', `/admin/api/operator-tokens/${issued.id}`);
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body.data).toEqual({ id: issued.id, removido: true });
    expect((await admin.call('GET', '/admin/api/operator-tokens')).body.data.map((t: any) => t.id)).not.toContain(
      issued.id,
    );
    expect((await admin.call('DELETE', `/admin/api/operator-tokens/${issued.id}`)).status).toBe(404);

    const story = (await journal())
      .filter((r) => JSON.parse(r.detail!).token_id === issued.id)
      .map((r) => `${JSON.parse(r.detail!).action} ${r.status}`);
    expect(story).toEqual([
      'operator_token.create 201',
      'operator_token.delete 422',
      'operator_token.revoke 200',
      'operator_token.delete 200',
      'operator_token.delete 404',
    ]);
  });
});
