import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  clinicLists,
  NEW_PATIENT,
  startFirstStartStack,
  writeOnDemo,
  type FirstStartStack,
} from '../../helpers/first-start.ts';
import type { TestStack } from '../../helpers/stack.ts';
import type { Credentials } from '../../helpers/signed-client.ts';
import { ConsoleClient } from './console-client.ts';
import { gatewayStateAtRest } from '../../helpers/journal.ts';

// Issue 13 § Reset a tenant without restarting: the console route (session + CSRF) and the automation route
// (operator API token), on the default tenants as the first start makes them (the real seed, then bootstrap).
vi.setConfig({ testTimeout: 120_000 });

let first: FirstStartStack;
let dataDir: string;
let stack: TestStack;
let demo: Credentials;
let clinicaB: Credentials;
let client: ConsoleClient;

beforeAll(async () => {
  first = await startFirstStartStack();
  ({ stack, dataDir, demo } = first);
  const { credentials } = first;
  clinicaB = { apiKey: credentials.keys['clinica-b'].api_key, apiSecret: credentials.keys['clinica-b'].api_secret };
  client = new ConsoleClient(stack.gatewayUrl);
  expect((await client.login(credentials.operator.username, credentials.operator.password)).status).toBe(200);
}, 180_000);

afterAll(async () => {
  await first?.stop();
});

async function issueToken(label = 'qa beforeEach'): Promise<{ id: number; token: string }> {
  const res = await client.call('POST', '/admin/api/operator-tokens', { label, tenants: '*' });
  expect(res.status).toBe(201);
  return { id: res.body.data.id, token: res.body.data.token };
}

/** What a Playwright beforeEach sends: a bearer token, no cookie, no CSRF. */
async function automationReset(
  token: string | null,
  slug: string,
  body: unknown = {},
  headers: Record<string, string> = {},
) {
  const res = await request(`${stack.gatewayUrl}/admin/api/automation/tenants/${slug}/reset`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.statusCode, body: (await res.body.json()) as any };
}

/** Signed with the demo key (the stack's default key belongs to its own test clinic). */
const call = (req: Parameters<TestStack['call']>[0]) => stack.call(req, demo);
const lists = (patientIds: number[]) => clinicLists(stack, demo, patientIds);

const auditOf = async (slug: string) => {
  (stack.app as any).auditWriter.flush();
  return stack.gatewayDb.db.selectFrom('audit_log').selectAll().where('tenant_slug', '=', slug).orderBy('id').execute();
};

describe('reset through the automation route (operator token)', () => {
  it('after patients, exams, reports and appointments, every list equals its first-start content; an Idempotency-Key used before executes again', async () => {
    const { token } = await issueToken();
    const watched = [1, 2, 3];
    const before = await lists(watched);
    expect((before.pacientes as any[])[0].meta.total).toBe(300);

    const written = await writeOnDemo(stack, demo);
    expect(await lists(watched)).not.toEqual(before);

    const reset = await automationReset(token, 'demo', { files: true });
    expect(reset.status, JSON.stringify(reset.body.error)).toBe(200);
    expect(reset.body.data).toMatchObject({ slug: 'demo', nome: 'Clinica Demo', files_removed: 1 });
    expect(reset.body.data).not.toHaveProperty('audit_entries_removed');
    expect(reset.body.data.idempotency_keys_removed).toBe(4);
    expect(reset.body.data.idempotency_markers_removed).toBe(4);
    expect(await lists(watched)).toEqual(before);

    // The key the patient was created with executes again (no replay) and, ids restarting where the first start left them, gets the same id.
    const again = await call({
      method: 'POST',
      path: '/v1/pacientes',
      body: NEW_PATIENT,
      idempotencyKey: written.patientKey,
    });
    expect(again.status).toBe(201);
    expect(again.headers['idempotency-replay']).toBe('false');
    expect(again.body.data.id).toBe(written.patientId);
    expect((await call({ path: `/v1/pacientes/${written.patientId}` })).status).toBe(200);
    expect((await automationReset(token, 'demo')).status).toBe(200);
  });

  it('takes well under a second for each default tenant', async () => {
    const { token } = await issueToken('timing');
    const figures: Record<string, { wall_ms: number; duration_ms: number; database_ms: number }> = {};
    for (const slug of ['demo', 'sandbox', 'clinica-b']) {
      const runs = [];
      for (let i = 0; i < 5; i++) {
        const t0 = performance.now();
        const res = await automationReset(token, slug);
        expect(res.status).toBe(200);
        runs.push({
          wall_ms: Math.round(performance.now() - t0),
          duration_ms: res.body.data.duration_ms,
          database_ms: res.body.data.database_ms,
        });
        if (i === 4) console.log(`${slug}: ${JSON.stringify(res.body.data)}`);
      }
      runs.sort((a, b) => a.wall_ms - b.wall_ms);
      figures[slug] = runs[2];
    }
    console.log(
      `tenant reset, median of 5 (HTTP round trip, gateway total, backend database): ${JSON.stringify(figures)}`,
    );
    for (const f of Object.values(figures)) {
      expect(f.wall_ms).toBeLessThan(1000);
      expect(f.database_ms).toBeLessThan(500);
    }
  });

  it('refuses a revoked token at once', async () => {
    const { id, token } = await issueToken('to revoke');
    expect((await automationReset(token, 'sandbox')).status).toBe(200);
    const revoked = await client.call('POST', `/admin/api/operator-tokens/${id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toMatchObject({ id, status: 'revoked' });
    const res = await automationReset(token, 'sandbox');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('ADMIN_UNAUTHENTICATED');
    expect(res.body.error.message).toMatch(/revogado/);
  });

  it('a token opens the automation routes only; a session does not open them', async () => {
    const { token } = await issueToken('scope check');
    const viaToken = await request(`${stack.gatewayUrl}/admin/api/tenants`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(viaToken.statusCode).toBe(401);
    await viaToken.body.dump();
    const viaSession = await client.call('POST', '/admin/api/automation/tenants/sandbox/reset', {});
    expect(viaSession.status).toBe(401);
    expect(viaSession.body.error?.code).toBe('ADMIN_UNAUTHENTICATED');
    for (const header of [null, 'ce_op_wrong', `${token}x`, token.toUpperCase()]) {
      const res = await automationReset(header, 'sandbox');
      expect(res.status, String(header)).toBe(401);
      expect(res.body.data).toBeNull();
    }
    expect((await automationReset(token, 'sandbox', {}, { authorization: `Basic ${token}` })).status).toBe(401);
  });

  it('stores only a hash of the token and shows it once: not in the list, the audit, or the database files', async () => {
    const { id, token } = await issueToken('plaintext check');
    expect(token).toMatch(/^ce_op_[A-Za-z0-9_-]{43}$/);
    expect((await automationReset(token, 'sandbox', {})).status).toBe(200);
    const list = await client.call('GET', '/admin/api/operator-tokens');
    expect(list.text).not.toContain(token);
    expect(list.body.data.find((t: any) => t.id === id)).toMatchObject({
      label: 'plaintext check',
      prefix: `${token.slice(0, 10)}…`,
      status: 'active',
      operator: 'admin',
      tenants: '*',
    });
    expect(list.body.data.find((t: any) => t.id === id).last_used_at).not.toBeNull();
    const row = await stack.gatewayDb.db
      .selectFrom('operator_tokens')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(token.slice(10));
    (stack.app as any).auditWriter.flush();
    const audit = await stack.gatewayDb.db.selectFrom('audit_log').selectAll().execute();
    expect(JSON.stringify(audit)).not.toContain(token.slice(10));
    expect((await gatewayStateAtRest(stack)).includes(token.slice(10))).toBe(false);
  });

  it('a reset deletes no journal entry and writes exactly one; audit: true is refused (400) and deletes nothing (issue 19)', async () => {
    const { token } = await issueToken('audit check');
    expect((await call({ path: '/v1/pacientes?limit=1' })).status).toBe(200);
    expect((await stack.call({ path: '/v1/pacientes?limit=1' }, clinicaB)).status).toBe(200);
    const before = await auditOf('demo');
    expect(before.length).toBeGreaterThan(0);
    const otherBefore = (await auditOf('clinica-b')).length;

    // The finding: {"audit":true} answered 200 and emptied the clinic's journal.
    const refused = await automationReset(token, 'demo', { audit: true });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'VAL_INVALID_PARAM', details: { field: 'audit' } });
    expect(refused.body.error.message).toMatch(/nao apaga o journal/);
    const afterRefusal = await auditOf('demo');
    expect(afterRefusal.map((e) => e.id).slice(0, before.length)).toEqual(before.map((e) => e.id));
    expect(afterRefusal).toHaveLength(before.length + 1);
    expect(afterRefusal.at(-1)).toMatchObject({ status: 400, error_code: 'VAL_INVALID_PARAM' });

    const res = await automationReset(token, 'demo', { audit: false });
    expect(res.status).toBe(200);
    const left = await auditOf('demo');
    // Every entry that was there is still there, and the reset added its own.
    expect(left.map((e) => e.id).slice(0, afterRefusal.length)).toEqual(afterRefusal.map((e) => e.id));
    expect(left).toHaveLength(afterRefusal.length + 1);
    expect(JSON.parse(left.at(-1)!.detail!)).toMatchObject({
      action: 'tenant.reset',
      via: 'operator_token',
      files: false,
      slug: 'demo',
      journal_kept: true,
    });
    expect(left.at(-1)!.operator_id).not.toBeNull();
    expect((await auditOf('clinica-b')).length).toBe(otherBefore);
  });

  it('unknown clinic → 404; unknown field → 400; a clinic without a first-start copy → 422 INVALID_STATE', async () => {
    const { token } = await issueToken('errors');
    expect((await automationReset(token, 'nao-existe')).body.error.code).toBe('RES_NOT_FOUND');
    const bad = await automationReset(token, 'demo', { arquivos: true });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VAL_INVALID_PARAM');
    rmSync(path.join(dataDir, 'backend', 'pristine', 'clinica-teste.db'));
    const none = await automationReset(token, 'clinica-teste');
    expect(none.status).toBe(422);
    expect(none.body.error.code).toBe('INVALID_STATE');
  });
});

describe('reset from the console (session + CSRF)', () => {
  it('needs the CSRF token, is audited as tenant.reset and brings settings and name back', async () => {
    const patched = await client.call('PATCH', '/admin/api/tenants/clinica-b/settings', {
      nome: 'Nome Mudado',
      cpf_obrigatorio: false,
    });
    expect(patched.status).toBe(200);
    expect((await client.call('POST', '/admin/api/tenants/clinica-b/reset', {}, { csrf: null })).status).toBe(403);
    const res = await client.call('POST', '/admin/api/tenants/clinica-b/reset', { audit: false, files: false });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ slug: 'clinica-b', nome: 'Clinica B', files_removed: null });
    const settings = await client.call('GET', '/admin/api/tenants/clinica-b/settings');
    expect(settings.body.data).toMatchObject({ nome: 'Clinica B', cpf_obrigatorio: true });
    const tenants = await client.call('GET', '/admin/api/tenants');
    expect(tenants.body.data.find((t: any) => t.slug === 'clinica-b').nome).toBe('Clinica B');
    const entry = (await auditOf('clinica-b')).at(-1)!;
    expect(entry).toMatchObject({
      source: 'console',
      status: 200,
      method: 'POST',
      path: '/admin/api/tenants/clinica-b/reset',
    });
    expect(JSON.parse(entry.detail!)).toMatchObject({ action: 'tenant.reset', via: 'console', slug: 'clinica-b' });
    // Keys stay valid: a reset is about data, not credentials.
    expect((await stack.call({ path: '/v1/ping' }, clinicaB)).status).toBe(200);
  });
});
