import { createHash } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { ensureOperator } from '../../../server/operators/index.ts';
import { registeredAdminRoutes } from '../../../server/admin/admin-plugin.ts';
import { ConsoleClient, insertMedicos } from './console-client.ts';

let stack: TestStack;
let client: ConsoleClient;
let medicoIds: number[];
const PASSWORD = 'correct-horse-battery';

const auditRows = async () => {
  (stack.app as any).auditWriter.flush();
  return stack.gatewayDb.db.selectFrom('audit_log').selectAll().where('source', '=', 'console').orderBy('id').execute();
};

beforeAll(async () => {
  stack = await startTestStack();
  await ensureOperator(stack.gatewayDb.db, 'operador', PASSWORD);
  medicoIds = insertMedicos(stack.dataDir, stack.tenantSlug, ['Dra. Ana Souza', 'Dr. Bruno Lima']);
  client = new ConsoleClient(stack.gatewayUrl);
  expect((await client.login('operador', PASSWORD)).status).toBe(200);
});

afterAll(async () => {
  await stack?.stop();
});

/**
 * Every console API route: none may answer without a session, none may change state without CSRF, and
 * each says what a viewer may do with it (issue 22): `read` — a viewer is served; `admin` — a viewer gets
 * 403 ADMIN_FORBIDDEN. Writes a viewer may make (sign out, its own password) are `read` too: they are its own.
 */
type ViewerAccess = 'read' | 'admin';
const ROUTES: Array<[string, string, unknown, ViewerAccess]> = [
  ['POST', '/admin/api/auth/logout', undefined, 'read'],
  ['GET', '/admin/api/auth/session', undefined, 'read'],
  [
    'POST',
    '/admin/api/auth/password',
    { current_password: 'not-the-password', new_password: 'a-new-long-password' },
    'read',
  ],
  ['GET', '/admin/api/tenants', undefined, 'read'],
  ['POST', '/admin/api/tenants', { slug: 'nova', nome: 'Nova' }, 'admin'],
  ['GET', '/admin/api/tenants/clinica-teste/settings', undefined, 'read'],
  ['PATCH', '/admin/api/tenants/clinica-teste/settings', { cpf_obrigatorio: true }, 'admin'],
  ['GET', '/admin/api/tenants/clinica-teste/medicos', undefined, 'read'],
  ['GET', '/admin/api/tenants/clinica-teste/unidades', undefined, 'read'],
  ['GET', '/admin/api/tenants/clinica-teste/convenios', undefined, 'read'],
  ['GET', '/admin/api/tenants/clinica-teste/keys', undefined, 'read'],
  ['GET', '/admin/api/tenants/clinica-teste/idempotency', undefined, 'read'],
  ['POST', '/admin/api/tenants/clinica-teste/keys', { scopes: ['exames:read'] }, 'admin'],
  ['GET', '/admin/api/keys/1', undefined, 'read'],
  ['PATCH', '/admin/api/keys/1', { label: 'x' }, 'admin'],
  ['POST', '/admin/api/keys/1/rotate', undefined, 'admin'],
  ['POST', '/admin/api/keys/1/revoke', undefined, 'admin'],
  ['GET', '/admin/api/keys/1/idempotency', undefined, 'read'],
  // The playground's key (issue 22 § 4): the public API key, never the secret.
  ['GET', '/admin/api/keys/1/api-key', undefined, 'read'],
  // Send from the playground: a POST, so an admin's (the request it relays is signed by the page).
  [
    'POST',
    '/admin/api/playground/send',
    { method: 'GET', path: '/v1/ping', headers: { 'x-api-key': 'k', 'x-timestamp': '1', 'x-signature': 's' } },
    'admin',
  ],
  // `:entry` stays literal in the table's route name; as a request it is just an unknown entry.
  ['DELETE', '/admin/api/keys/1/idempotency/:entry', undefined, 'admin'],
  ['GET', '/admin/api/audit', undefined, 'read'],
  ['GET', '/admin/api/audit/storage', undefined, 'read'],
  ['GET', '/admin/api/audit/unattributed', undefined, 'read'],
  ['GET', '/admin/api/audit/1', undefined, 'read'],
  ['GET', '/admin/api/faults', undefined, 'read'],
  ['POST', '/admin/api/faults', { path: '/v1/pacientes*', kind: 'http500' }, 'admin'],
  ['DELETE', '/admin/api/faults/1', undefined, 'admin'],
  ['DELETE', '/admin/api/faults', undefined, 'admin'],
  ['GET', '/admin/api/storage-faults', undefined, 'read'],
  ['POST', '/admin/api/storage-faults', { failure_rate: 1 }, 'admin'],
  ['DELETE', '/admin/api/storage-faults/1', undefined, 'admin'],
  ['DELETE', '/admin/api/storage-faults', undefined, 'admin'],
  ['POST', '/admin/api/tenants/clinica-teste/reset', {}, 'admin'],
  ['GET', '/admin/api/tenant-reset-policy', undefined, 'read'],
  // Ephemeral clinics (issue 30); `:slug` stays literal in the table's route name, like `:entry` above.
  ['POST', '/admin/api/tenants/clinica-teste/clone', {}, 'admin'],
  ['DELETE', '/admin/api/tenants/:slug', {}, 'admin'],
  ['GET', '/admin/api/ephemeral-clinics-policy', undefined, 'read'],
  ['GET', '/admin/api/operator-tokens', undefined, 'read'],
  ['POST', '/admin/api/operator-tokens', { label: 'x', tenants: '*' }, 'admin'],
  ['POST', '/admin/api/operator-tokens/1/revoke', undefined, 'admin'],
  ['DELETE', '/admin/api/operator-tokens/1', undefined, 'admin'],
  ['GET', '/admin/api/clock', undefined, 'read'],
  ['GET', '/admin/api/contract', undefined, 'read'],
  ['PUT', '/admin/api/clock', { advance_seconds: 60 }, 'admin'],
  ['DELETE', '/admin/api/clock', undefined, 'admin'],
  // The list of accounts is an admin's; a viewer reads its own through /auth/session.
  ['GET', '/admin/api/operators', undefined, 'admin'],
  ['POST', '/admin/api/operators', { username: 'novo-operador', role: 'viewer' }, 'admin'],
  ['PATCH', '/admin/api/operators/1', { role: 'viewer' }, 'admin'],
  ['POST', '/admin/api/operators/1/reset-password', undefined, 'admin'],
  ['POST', '/admin/api/journal/prune', { before: '2000-01-01T00:00:00Z', dry_run: true }, 'admin'],
  ['GET', '/admin/api/tenants/clinica-teste/journal/received', undefined, 'read'],
  ['GET', '/admin/api/tenants/clinica-teste/journal/har', undefined, 'read'],
  // Named snapshots (issue 30): a viewer lists them; saving, restoring, deleting, exporting (a whole clinic's data) and importing are an admin's.
  ['GET', '/admin/api/tenants/clinica-teste/snapshots', undefined, 'read'],
  ['POST', '/admin/api/tenants/clinica-teste/snapshots', { name: 'x' }, 'admin'],
  ['POST', '/admin/api/tenants/clinica-teste/snapshots/:name/restore', {}, 'admin'],
  ['DELETE', '/admin/api/tenants/clinica-teste/snapshots/:name', undefined, 'admin'],
  ['GET', '/admin/api/tenants/clinica-teste/snapshots/:name/export', undefined, 'admin'],
  ['POST', '/admin/api/tenants/clinica-teste/snapshots/import', undefined, 'admin'],
  // Traffic charts and alerts (issue 31): a viewer reads them.
  ['GET', '/admin/api/tenants/clinica-teste/stats', undefined, 'read'],
  ['GET', '/admin/api/tenants/clinica-teste/stats/keys', undefined, 'read'],
  ['GET', '/admin/api/alerts', undefined, 'read'],
];

/** Automation routes: an operator API token (Authorization: Bearer), never a session (test/server/admin/tenant-reset.test.ts). */
const TOKEN_ROUTES: Array<[string, string, unknown?]> = [
  ['POST', '/admin/api/automation/tenants/clinica-teste/reset', {}],
  ['POST', '/admin/api/automation/tenants/clinica-teste/clone', {}],
  ['DELETE', '/admin/api/automation/tenants/:slug', {}],
  ['POST', '/admin/api/automation/journal/prune', { before: '2000-01-01T00:00:00Z', dry_run: true }],
  ['GET', '/admin/api/automation/contract'],
  ['GET', '/admin/api/automation/tenants/clinica-teste/journal/received'],
  ['GET', '/admin/api/automation/tenants/clinica-teste/journal/har'],
  ['GET', '/admin/api/automation/tenants/clinica-teste/snapshots'],
  ['POST', '/admin/api/automation/tenants/clinica-teste/snapshots', { name: 'x' }],
  ['POST', '/admin/api/automation/tenants/clinica-teste/snapshots/:name/restore', {}],
  ['DELETE', '/admin/api/automation/tenants/clinica-teste/snapshots/:name'],
  ['GET', '/admin/api/automation/tenants/clinica-teste/snapshots/:name/export'],
  ['POST', '/admin/api/automation/tenants/clinica-teste/snapshots/import'],
  // Keys (issue 31): list, issue, change (expiry included).
  ['GET', '/admin/api/automation/tenants/clinica-teste/keys'],
  ['POST', '/admin/api/automation/tenants/clinica-teste/keys', { scopes: ['pacientes:read'] }],
  ['PATCH', '/admin/api/automation/keys/1', { label: 'x' }],
  ['POST', '/admin/api/automation/keys/1/rotate'],
  ['POST', '/admin/api/automation/keys/1/revoke'],
  ['GET', '/admin/api/automation/tenants/clinica-teste/stats'],
  ['GET', '/admin/api/automation/tenants/clinica-teste/stats/keys'],
  ['GET', '/admin/api/automation/alerts'],
];

describe('console API access control', () => {
  it('covers every registered /admin/api route in the table', () => {
    // Login is the one public route; a new route without a row here fails this test.
    const table = [...ROUTES, ...TOKEN_ROUTES].map(
      ([m, p]) => `${m} ${p.replace(/\/clinica-teste\//, '/:slug/').replace(/\/1(\/|$)/, '/:id$1')}`,
    );
    expect([...registeredAdminRoutes].sort()).toEqual([...table, 'POST /admin/api/auth/login'].sort());
  });

  it.each(ROUTES)('%s %s without a session → 401 ADMIN_UNAUTHENTICATED', async (method, path, body) => {
    const res = await client.call(method, path, body, { cookie: null, csrf: null });
    expect(res.status).toBe(401);
    expect(res.body.error?.code).toBe('ADMIN_UNAUTHENTICATED');
    expect(res.body.data).toBeNull();
  });

  it.each(ROUTES)('%s %s with a forged session cookie → 401', async (method, path, body) => {
    const res = await client.call(method, path, body, { cookie: 'ce_console_session=forged-token-value' });
    expect(res.status).toBe(401);
  });

  it.each(ROUTES.filter(([m]) => m !== 'GET'))(
    '%s %s with a session but no CSRF token → 403 ADMIN_CSRF_INVALID',
    async (method, path, body) => {
      const res = await client.call(method, path, body, { csrf: null });
      expect(res.status).toBe(403);
      expect(res.body.error?.code).toBe('ADMIN_CSRF_INVALID');
    },
  );

  it.each(TOKEN_ROUTES)(
    '%s %s without a token → 401, with a session and CSRF but no token → 401',
    async (method, path, body) => {
      const none = await client.call(method, path, body, { cookie: null, csrf: null });
      expect(none.status).toBe(401);
      expect(none.body.error?.code).toBe('ADMIN_UNAUTHENTICATED');
      const session = await client.call(method, path, body);
      expect(session.status).toBe(401);
      expect(session.body.error?.code).toBe('ADMIN_UNAUTHENTICATED');
    },
  );

  it('refuses a CSRF token of another session', async () => {
    const other = new ConsoleClient(stack.gatewayUrl);
    await other.login('operador', PASSWORD);
    const res = await client.call('PATCH', '/admin/api/keys/1', { label: 'x' }, { csrf: other.csrf });
    expect(res.status).toBe(403);
  });

  it('sets an HttpOnly, SameSite=Strict cookie and stores only a hash of the token', async () => {
    const c = new ConsoleClient(stack.gatewayUrl);
    const res = await c.login('operador', PASSWORD);
    const setCookie = res.headers['set-cookie'];
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Strict/i);
    expect(setCookie).toMatch(/Path=\/admin\/api/);
    const token = c.cookie!.split('=')[1];
    const rows = await stack.gatewayDb.db.selectFrom('operator_sessions').select('token_hash').execute();
    expect(rows.map((r) => r.token_hash)).toContain(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it('logout ends the session', async () => {
    const c = new ConsoleClient(stack.gatewayUrl);
    await c.login('operador', PASSWORD);
    expect((await c.call('GET', '/admin/api/auth/session')).status).toBe(200);
    expect((await c.call('POST', '/admin/api/auth/logout')).status).toBe(200);
    expect((await c.call('GET', '/admin/api/auth/session')).status).toBe(401);
  });
});

describe('console API roles (issue 22): a viewer reads, an admin writes', () => {
  let viewer: ConsoleClient;
  const signedInViewer = async () => {
    const c = new ConsoleClient(stack.gatewayUrl);
    expect((await c.login('leitor', PASSWORD)).status).toBe(200);
    return c;
  };

  beforeAll(async () => {
    await ensureOperator(stack.gatewayDb.db, 'leitor', PASSWORD, 'viewer');
    viewer = await signedInViewer();
  });

  it('the session says the role', async () => {
    expect((await viewer.call('GET', '/admin/api/auth/session')).body.data.operator).toMatchObject({
      username: 'leitor',
      role: 'viewer',
    });
    expect((await client.call('GET', '/admin/api/auth/session')).body.data.operator).toMatchObject({
      username: 'operador',
      role: 'admin',
    });
  });

  it.each(ROUTES.filter((r) => r[3] === 'admin'))(
    '%s %s as a viewer, session and CSRF → 403 ADMIN_FORBIDDEN',
    async (method, path, body) => {
      const res = await viewer.call(method, path, body);
      expect(res.status).toBe(403);
      expect(res.body.error?.code).toBe('ADMIN_FORBIDDEN');
      expect(res.body.data).toBeNull();
    },
  );

  it.each(ROUTES.filter((r) => r[3] === 'read'))('%s %s as a viewer → served', async (method, path, body) => {
    // Its own writes (sign out, password) on a session of their own: the shared one stays signed in.
    const c = method === 'GET' ? viewer : await signedInViewer();
    const res = await c.call(method, path, body);
    if (method === 'GET') expect([200, 404], res.text).toContain(res.status);
    else if (path.endsWith('/password')) expect(res.body.error?.details.field, res.text).toBe('current_password');
    else expect(res.status, res.text).toBe(200);
  });

  it('a viewer cannot issue, rotate or revoke a key: refused by the API, the key and its secret untouched, each attempt journaled under the viewer', async () => {
    const issued = await client.call('POST', '/admin/api/tenants/clinica-teste/keys', {
      label: 'viewer target',
      scopes: ['exames:read'],
    });
    const { chave_id, api_key, api_secret } = issued.body.data;
    const keysBefore = (await viewer.call('GET', '/admin/api/tenants/clinica-teste/keys')).body.data.length;

    const attempts = [
      await viewer.call('POST', '/admin/api/tenants/clinica-teste/keys', {
        label: 'by a viewer',
        scopes: ['exames:read'],
      }),
      await viewer.call('POST', `/admin/api/keys/${chave_id}/rotate`),
      await viewer.call('POST', `/admin/api/keys/${chave_id}/revoke`),
      await viewer.call('PATCH', `/admin/api/keys/${chave_id}`, { label: 'renamed by a viewer' }),
    ];
    for (const res of attempts) {
      expect(res.status).toBe(403);
      expect(res.body.error?.code).toBe('ADMIN_FORBIDDEN');
      expect(res.text).not.toMatch(/api_secret/);
    }
    const keysAfter = (await viewer.call('GET', '/admin/api/tenants/clinica-teste/keys')).body.data;
    expect(keysAfter).toHaveLength(keysBefore);
    expect(keysAfter.find((k: any) => k.id === chave_id)).toMatchObject({ status: 'active', label: 'viewer target' });
    // Not rotated: the secret issued to the admin still signs.
    expect((await stack.call({ path: '/v1/ping' }, { apiKey: api_key, apiSecret: api_secret })).status).toBe(200);

    const viewerId = (await viewer.call('GET', '/admin/api/auth/session')).body.data.operator.id;
    const refused = (await auditRows()).filter((r) => r.operator_id === viewerId && r.error_code === 'ADMIN_FORBIDDEN');
    expect(refused.map((r) => JSON.parse(r.detail!).action)).toEqual(
      expect.arrayContaining(['key.create', 'key.rotate', 'key.revoke', 'key.update']),
    );
    for (const row of refused)
      expect(JSON.parse(row.detail!)).toMatchObject({ role: 'viewer', papel_exigido: 'admin' });
  });

  it('a role change applies to a live session at once', async () => {
    await ensureOperator(stack.gatewayDb.db, 'rebaixado', PASSWORD, 'admin');
    const c = new ConsoleClient(stack.gatewayUrl);
    await c.login('rebaixado', PASSWORD);
    expect(
      (await c.call('POST', '/admin/api/faults', { path: '/v1/ping*', kind: 'latency', latency_ms: 1 })).status,
    ).toBe(201);
    await client.call('DELETE', '/admin/api/faults');
    const id = (await c.call('GET', '/admin/api/auth/session')).body.data.operator.id;
    expect((await client.call('PATCH', `/admin/api/operators/${id}`, { role: 'viewer' })).status).toBe(200);
    const after = await c.call('POST', '/admin/api/faults', { path: '/v1/ping*', kind: 'latency', latency_ms: 1 });
    expect(after.status).toBe(403);
    expect(after.body.error?.code).toBe('ADMIN_FORBIDDEN');
    expect((await c.call('GET', '/admin/api/faults')).status).toBe(200);
  });

  it('an operator token acts as its operator now: demoted to viewer → 403 on the automation route, disabled → 401 and listed revoked', async () => {
    await ensureOperator(stack.gatewayDb.db, 'automacao', PASSWORD, 'admin');
    // A clinic of its own: a reset of clinica-teste would drop the doctors the other tests inserted.
    await stack.createTenant('clinica-token');
    const c = new ConsoleClient(stack.gatewayUrl);
    await c.login('automacao', PASSWORD);
    const id = (await c.call('GET', '/admin/api/auth/session')).body.data.operator.id;
    const issued = (await c.call('POST', '/admin/api/operator-tokens', { label: 'suite', tenants: ['clinica-token'] }))
      .body.data;
    const reset = async () => {
      const res = await request(`${stack.gatewayUrl}/admin/api/automation/tenants/clinica-token/reset`, {
        method: 'POST',
        headers: { authorization: `Bearer ${issued.token}`, 'content-type': 'application/json' },
        body: '{}',
      });
      return { status: res.statusCode, body: (await res.body.json()) as any };
    };

    expect((await reset()).status).toBe(200);
    await client.call('PATCH', `/admin/api/operators/${id}`, { role: 'viewer' });
    const asViewer = await reset();
    expect(asViewer.status).toBe(403);
    expect(asViewer.body.error?.code).toBe('ADMIN_FORBIDDEN');

    await client.call('PATCH', `/admin/api/operators/${id}`, { role: 'admin' });
    expect((await reset()).status).toBe(200);
    await client.call('PATCH', `/admin/api/operators/${id}`, { disabled: true });
    const disabled = await reset();
    expect(disabled.status).toBe(401);
    expect(disabled.body.error?.code).toBe('ADMIN_UNAUTHENTICATED');
    const listed = (await client.call('GET', '/admin/api/operator-tokens')).body.data.find(
      (t: any) => t.id === issued.id,
    );
    expect(listed.status).toBe('revoked');
    // Its session ended with it.
    expect((await c.call('GET', '/admin/api/auth/session')).status).toBe(401);
  });

  it('a viewer cannot issue an operator token (a token acts as its operator, and every automation route writes)', async () => {
    const res = await viewer.call('POST', '/admin/api/operator-tokens', { label: 'x', tenants: '*' });
    expect(res.status).toBe(403);
    expect(res.body.error?.code).toBe('ADMIN_FORBIDDEN');
  });
});

describe('operator login and lockout', () => {
  it('same answer for a wrong password and an unknown user', async () => {
    await ensureOperator(stack.gatewayDb.db, 'outro', PASSWORD);
    const c = new ConsoleClient(stack.gatewayUrl);
    const wrong = await c.login('outro', 'wrong-password');
    const unknown = await c.login('ninguem', 'wrong-password');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.error?.message).toBe(unknown.body.error?.message);
  });

  it('locks the account after 5 failures, even for the right password, and audits the attempts', async () => {
    await ensureOperator(stack.gatewayDb.db, 'vitima', PASSWORD);
    const c = new ConsoleClient(stack.gatewayUrl);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await c.login('vitima', `bad-${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
    const locked = await c.login('vitima', PASSWORD);
    expect(locked.status).toBe(429);
    expect(locked.body.error?.code).toBe('ADMIN_LOCKED');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(800);
    const logins = (await auditRows()).filter((r) => r.path === '/admin/api/auth/login' && r.body?.includes('vitima'));
    expect(logins.length).toBe(6);
    for (const row of logins) {
      expect(row.body).not.toContain(PASSWORD);
      expect(row.body).not.toContain('bad-');
    }
  });

  it('ensureOperator generates a password once and keeps an existing account', async () => {
    const first = await ensureOperator(stack.gatewayDb.db, 'gerado');
    expect(first.generatedPassword).toMatch(/^.{20}$/);
    const again = await ensureOperator(stack.gatewayDb.db, 'gerado');
    expect(again.generatedPassword).toBeUndefined();
    expect((await new ConsoleClient(stack.gatewayUrl).login('gerado', first.generatedPassword!)).status).toBe(200);
  });
});

describe('keys through the console', () => {
  it('issues, lists masked, binds a doctor, rotates and revokes; every action audited', async () => {
    const created = await client.call('POST', '/admin/api/tenants/clinica-teste/keys', {
      label: 'Integrador X',
      scopes: ['exames:read', 'laudos:read'],
    });
    expect(created.status).toBe(201);
    const { chave_id, api_key, api_secret } = created.body.data;
    expect(api_secret).toMatch(/^[0-9a-f]{64}$/);
    expect(created.headers['cache-control']).toBe('no-store');

    const ping = await stack.call({ path: '/v1/ping' }, { apiKey: api_key, apiSecret: api_secret });
    expect(ping.status).toBe(200);

    const list = await client.call('GET', '/admin/api/tenants/clinica-teste/keys');
    const text = JSON.stringify(list.body);
    expect(text).not.toContain(api_secret);
    expect(text).not.toContain(api_key);
    expect(list.body.data.find((k: any) => k.id === chave_id).api_key_masked).toContain('…');

    const bad = await client.call('PATCH', `/admin/api/keys/${chave_id}`, { medico_id: 999999 });
    expect(bad.status).toBe(422);
    expect(bad.body.error?.code).toBe('INVALID_REFERENCE');
    const bound = await client.call('PATCH', `/admin/api/keys/${chave_id}`, {
      medico_id: medicoIds[0],
      scopes: ['exames:read'],
    });
    expect(bound.status).toBe(200);
    expect(bound.body.data.medico_id).toBe(medicoIds[0]);
    expect(bound.body.data.escopos).toEqual(['exames:read']);

    const rotated = await client.call('POST', `/admin/api/keys/${chave_id}/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.api_secret).not.toBe(api_secret);
    const old = await stack.call({ path: '/v1/ping' }, { apiKey: api_key, apiSecret: api_secret });
    expect(old.body.error?.code).toBe('AUTH_INVALID_SIGNATURE');
    const fresh = await stack.call({ path: '/v1/ping' }, { apiKey: api_key, apiSecret: rotated.body.data.api_secret });
    expect(fresh.body.data.auth.medico_id).toBe(medicoIds[0]);

    expect((await client.call('POST', `/admin/api/keys/${chave_id}/revoke`)).body.data.status).toBe('revoked');
    const revoked = await stack.call(
      { path: '/v1/ping' },
      { apiKey: api_key, apiSecret: rotated.body.data.api_secret },
    );
    expect(revoked.body.error?.code).toBe('AUTH_KEY_REVOKED');
    expect((await client.call('POST', `/admin/api/keys/${chave_id}/rotate`)).status).toBe(422);

    const rows = (await auditRows()).filter((r) => r.chave_id === chave_id);
    const actions = rows.map((r) => JSON.parse(r.detail!).action);
    expect(actions).toEqual(['key.create', 'key.update', 'key.update', 'key.rotate', 'key.revoke', 'key.rotate']);
    for (const row of rows) {
      expect(row.operator_id).toBeGreaterThan(0);
      expect(row.tenant_slug).toBe('clinica-teste');
      expect(JSON.stringify(row)).not.toContain(api_secret);
      expect(JSON.stringify(row)).not.toContain(rotated.body.data.api_secret);
    }
  });

  it('validates with the shared schemas', async () => {
    const res = await client.call('POST', '/admin/api/tenants/clinica-teste/keys', { scopes: [] });
    expect(res.status).toBe(400);
    expect(res.body.error?.details.field).toBe('scopes');
    const unknown = await client.call('POST', '/admin/api/tenants/clinica-teste/keys', { scopes: ['tudo:write'] });
    expect(unknown.status).toBe(400);
  });

  it('lists doctors of a tenant for the binding picker', async () => {
    const res = await client.call('GET', '/admin/api/tenants/clinica-teste/medicos');
    expect(res.status).toBe(200);
    expect(res.body.data.map((m: any) => m.nome)).toEqual(expect.arrayContaining(['Dra. Ana Souza', 'Dr. Bruno Lima']));
  });
});

describe('tenants, settings and faults', () => {
  it('lists tenants and edits settings', async () => {
    const list = await client.call('GET', '/admin/api/tenants');
    expect(list.body.data.map((t: any) => t.slug)).toContain('clinica-teste');
    const patched = await client.call('PATCH', '/admin/api/tenants/clinica-teste/settings', {
      cpf_obrigatorio: true,
      defaults: { medico_exame_id: medicoIds[1] },
    });
    expect(patched.status).toBe(200);
    const settings = await client.call('GET', '/admin/api/tenants/clinica-teste/settings');
    expect(settings.body.data.cpf_obrigatorio).toBe(true);
    expect(settings.body.data.defaults.medico_exame_id).toBe(medicoIds[1]);
  });

  it('lists units and insurers for the default pickers; the external report center setting round-trips', async () => {
    for (const what of ['unidades', 'convenios']) {
      const res = await client.call('GET', `/admin/api/tenants/clinica-teste/${what}`);
      expect(res.status).toBe(200);
      expect(Array.isArray(res.body.data)).toBe(true);
      for (const row of res.body.data) expect(Object.keys(row).sort()).toEqual(['ativo', 'detalhe', 'id', 'nome']);
    }
    expect((await client.call('GET', '/admin/api/tenants/nao-existe/unidades')).status).toBe(404);
    const off = await client.call('PATCH', '/admin/api/tenants/clinica-teste/settings', {
      central_laudos_disponivel: false,
    });
    expect(off.status).toBe(200);
    expect(off.body.data.central_laudos_disponivel).toBe(false);
    const on = await client.call('PATCH', '/admin/api/tenants/clinica-teste/settings', {
      central_laudos_disponivel: true,
    });
    expect(on.body.data.central_laudos_disponivel).toBe(true);
    expect(
      (await client.call('PATCH', '/admin/api/tenants/clinica-teste/settings', { central_laudos_disponivel: 'sim' }))
        .status,
    ).toBe(400);
  });

  it('switches a backend fault on and off; the API answers 503 meanwhile', async () => {
    const created = await client.call('POST', '/admin/api/faults', {
      tenant: 'clinica-teste',
      method: 'GET',
      path: '/v1/pacientes*',
      kind: 'http500',
    });
    expect(created.status).toBe(201);
    expect(created.body.data.path).toBe('/v1/pacientes*');
    const faulted = await stack.call({ path: '/v1/pacientes' });
    expect(faulted.status).toBe(503);
    expect((await client.call('GET', '/admin/api/faults')).body.data).toHaveLength(1);
    expect((await client.call('DELETE', `/admin/api/faults/${created.body.data.id}`)).status).toBe(200);
    expect((await stack.call({ path: '/v1/pacientes' })).status).toBe(200);
  });
});

describe('audit browser', () => {
  it('filters and pages with a cursor; detail shows the redacted body', async () => {
    for (let i = 0; i < 5; i++) await stack.call({ path: '/v1/ping' });
    await stack.call({ method: 'POST', path: '/v1/ping', body: { senha: 'segredo123', nome: 'ok' } });
    await new Promise((r) => setTimeout(r, 120));
    const page1 = await client.call('GET', `/admin/api/audit?chave_id=${stack.creds.chaveId}&path=/v1/ping&limit=3`);
    expect(page1.status).toBe(200);
    expect(page1.body.data.items).toHaveLength(3);
    expect(page1.body.data.next_cursor).toBeTruthy();
    const page2 = await client.call(
      'GET',
      `/admin/api/audit?chave_id=${stack.creds.chaveId}&path=/v1/ping&limit=3&cursor=${page1.body.data.next_cursor}`,
    );
    const ids1 = page1.body.data.items.map((r: any) => r.id);
    const ids2 = page2.body.data.items.map((r: any) => r.id);
    expect(Math.min(...ids1)).toBeGreaterThan(Math.max(...ids2));
    const post = await client.call('GET', `/admin/api/audit?method=POST&path=/v1/ping&chave_id=${stack.creds.chaveId}`);
    const detail = await client.call('GET', `/admin/api/audit/${post.body.data.items[0].id}`);
    expect(detail.body.data.body).toEqual({ senha: '[REDACTED]', nome: 'ok' });
    const badDate = await client.call('GET', '/admin/api/audit?from=ontem');
    expect(badDate.status).toBe(400);
  });
});
