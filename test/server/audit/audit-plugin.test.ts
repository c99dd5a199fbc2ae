import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { unattributedCount, unattributedGroups } from '../../helpers/journal.ts';
import { AUDIT_REDACTED_KEYS } from '../../../server/http/redact.ts';
import { redactQuery } from '../../../server/audit/journal-entries.ts';

// Spec 01 § Data protection rules and issue 3 § Audit log.
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => stack?.stop());

const auditRows = () => {
  stack.app.auditWriter.flush();
  return stack.gatewayDb.sqlite.prepare('SELECT * FROM audit_log ORDER BY id').all() as Array<Record<string, any>>;
};
const rowFor = (requestId: string) => auditRows().find((r) => r.request_id === requestId);

test('every request is recorded with request_id, time, tenant, key, method, path, status, code, duration, client address', async () => {
  const res = await stack.call({ path: '/v1/ping' });
  const row = rowFor(res.body.meta.request_id)!;
  expect(row).toMatchObject({
    source: 'api',
    tenant_slug: stack.tenantSlug,
    chave_id: stack.creds.chaveId,
    method: 'GET',
    path: '/v1/ping',
    status: 200,
    error_code: null,
    client_ip: '127.0.0.1',
  });
  expect(new Date(row.ts).toISOString()).toBe(row.ts);
  expect(Number.isInteger(row.duracao_ms)).toBe(true);
});

test('authentication failures are recorded too, with their code and, when the key was found, the key presented', async () => {
  const res = await stack.call({ path: '/v1/ping', signWith: { path: '/v1/outro' } });
  expect(res.status).toBe(401);
  const row = rowFor(res.body.meta.request_id)!;
  expect(row).toMatchObject({
    status: 401,
    error_code: 'AUTH_INVALID_SIGNATURE',
    chave_id: stack.creds.chaveId,
    tenant_slug: stack.tenantSlug,
  });
  expect(row.tenant_id).toEqual(expect.any(Number));
  expect(row.verified).toBe(0);
  // No existing key named: counted in the unattributed groups (per minute, address, status, code), not as entries.
  const missingBefore = unattributedCount(stack, { status: 401, error_code: 'AUTH_MISSING_HEADER' });
  const missing = await stack.raw({ path: '/v1/config' });
  expect(rowFor(missing.body.meta.request_id)).toBeUndefined();
  expect(unattributedCount(stack, { status: 401, error_code: 'AUTH_MISSING_HEADER' })).toBe(missingBefore + 1);
  const unknownBefore = unattributedCount(stack, { status: 401, error_code: 'AUTH_KEY_NOT_FOUND' });
  const unknown = await stack.call(
    { path: '/v1/ping' },
    { apiKey: `ce_live_${'0'.repeat(32)}`, apiSecret: stack.creds.apiSecret },
  );
  expect(rowFor(unknown.body.meta.request_id)).toBeUndefined();
  const [group] = unattributedGroups(stack, { status: 401, error_code: 'AUTH_KEY_NOT_FOUND' });
  expect(group).toMatchObject({ client_ip: '127.0.0.1', count: unknownBefore + 1 });
  expect(group.sample).toMatchObject({ method: 'GET', path: '/v1/ping' });
});

test('unknown routes and wrong verbs are recorded (unattributed without a key, under the key when one is named)', async () => {
  const res = await stack.raw({ method: 'DELETE', path: '/v1/ping' });
  expect(unattributedGroups(stack, { status: 405, error_code: 'METHOD_NOT_ALLOWED' })[0].sample.request_id).toBe(
    res.body.meta.request_id,
  );
  const signed = await stack.call({ method: 'GET', path: '/v1/nao-existe' });
  expect(signed.status).toBe(404);
  expect(rowFor(signed.body.meta.request_id)).toMatchObject({
    status: 404,
    chave_id: stack.creds.chaveId,
    verified: 0,
  });
});

describe('redaction: recursive, case-insensitive, every key of the Data protection list; paciente_nome kept', () => {
  test('no redacted value survives in the audit store, wherever the key sits', async () => {
    const sentinels: string[] = [];
    const sentinel = () => {
      const value = `SENTINELA${randomUUID().replace(/-/g, '')}`;
      sentinels.push(value);
      return value;
    };
    const flat: Record<string, unknown> = {};
    AUDIT_REDACTED_KEYS.forEach((key, i) => {
      // Alternate the case: the rule is case-insensitive.
      flat[i % 2 ? key.toUpperCase() : key] = sentinel();
    });
    const nested = {
      paciente_nome: 'MARIA DA SILVA',
      dados: { ...flat, inner: [{ ...flat }, { lista: [{ Cpf: sentinel(), Email: sentinel() }] }] },
      contatos: [{ celular: sentinel(), telefone: { numero: sentinel() } }],
      cpf: { objeto: sentinel() },
    };
    // Under 2 KB? No: ping's limit would refuse it. Use the ping route for a small body and a write for the big one.
    const small = { Senha: sentinel(), api_secret: sentinel(), paciente_nome: 'JOAO', lista: [{ token: sentinel() }] };
    const pingRes = await stack.call({ method: 'POST', path: '/v1/ping', body: small });
    expect(pingRes.status).toBe(200);
    const bigRes = await stack.call({
      method: 'POST',
      path: '/v1/pacientes',
      body: nested,
      idempotencyKey: randomUUID(),
    });
    expect(bigRes.status).toBe(400); // unknown fields; it still reaches the audit log with its body
    const authFail = await stack.call({
      method: 'PATCH',
      path: '/v1/pacientes/1',
      body: { cpf: sentinel(), email: sentinel() },
      signWith: { body: '{}' },
    });
    expect(authFail.status).toBe(401);

    const dump = JSON.stringify(auditRows());
    for (const value of sentinels) expect(dump).not.toContain(value);
    const bigRow = rowFor(bigRes.body.meta.request_id)!;
    const stored = JSON.parse(bigRow.body);
    expect(stored.paciente_nome).toBe('MARIA DA SILVA');
    expect(stored.dados.inner[1].lista[0]).toEqual({ Cpf: '[REDACTED]', Email: '[REDACTED]' });
    expect(stored.cpf).toBe('[REDACTED]');
    expect(JSON.parse(rowFor(pingRes.body.meta.request_id)!.body).paciente_nome).toBe('JOAO');
    expect(JSON.parse(rowFor(authFail.body.meta.request_id)!.body)).toEqual({ cpf: '[REDACTED]', email: '[REDACTED]' });
  });

  test('PII in query strings is redacted (?cpf=)', async () => {
    const res = await stack.call({ path: '/v1/pacientes?cpf=52998224725&limit=5' });
    const row = rowFor(res.body.meta.request_id)!;
    expect(row.path).toBe('/v1/pacientes?cpf=%5BREDACTED%5D&limit=5');
    expect(JSON.stringify(auditRows())).not.toContain('52998224725');
    expect(redactQuery('/v1/x?NOME=a&Email=b%40c&usuario=z')).toBe(
      '/v1/x?NOME=a&Email=%5BREDACTED%5D&usuario=%5BREDACTED%5D',
    );
  });

  test('no secret or signature is ever stored', async () => {
    const creds = await stack.newKey();
    const res = await stack.call({ method: 'POST', path: '/v1/ping', body: { x: 1 } }, creds);
    const dump = JSON.stringify(auditRows());
    expect(dump).not.toContain(creds.apiSecret);
    expect(rowFor(res.body.meta.request_id)).toBeTruthy();
    // Signatures live only in headers, which are not audited.
    expect(Object.keys(rowFor(res.body.meta.request_id)!)).not.toContain('headers');
  });

  test('large strings (inline base64 files) are summarised, not stored', async () => {
    const res = await stack.call({
      method: 'POST',
      path: '/v1/pacientes',
      body: { nome: 'X'.repeat(2000) },
      idempotencyKey: randomUUID(),
    });
    const stored = JSON.parse(rowFor(res.body.meta.request_id)!.body);
    expect(stored.nome).toBe('[omitido: 2000 caracteres]');
  });
});

test('graceful shutdown flushes pending entries: none lost', async () => {
  const s = await startTestStack();
  const ids: string[] = [];
  const results = await Promise.all(Array.from({ length: 30 }, () => s.call({ path: '/v1/ping' })));
  for (const r of results) ids.push(r.body.meta.request_id);
  await s.close(); // no explicit flush: closing the app must do it
  const db = new SQLite(path.join(s.dataDir, 'gateway.db'), { readonly: true });
  try {
    const stored = new Set(
      (db.prepare('SELECT request_id FROM audit_log').all() as Array<{ request_id: string }>).map((r) => r.request_id),
    );
    for (const id of ids) expect(stored.has(id)).toBe(true);
  } finally {
    db.close();
    await s.stop().catch(() => undefined);
  }
});

test('retention 30 days: older entries are purged, newer ones kept, whatever their class', () => {
  const sqlite = stack.gatewayDb.sqlite;
  const writer = stack.app.auditWriter;
  const now = Date.now();
  const entry = (id: string, ageDays: number) => ({
    request_id: id,
    ts: new Date(now - ageDays * 86_400_000).toISOString(),
    source: 'api' as const,
    tenant_id: null,
    tenant_slug: null,
    chave_id: null,
    operator_id: null,
    method: 'GET',
    path: '/v1/ping',
    status: 200,
    error_code: null,
    duracao_ms: 1,
    client_ip: '127.0.0.1',
    body: null,
    detail: null,
    error_message: null,
    response_body: null,
    request_headers: null,
    journal_class: 'verified' as const,
  });
  const done = () => undefined;
  writer.writeThen(entry('antigo-31d', 31), done);
  writer.writeThen(entry('recente-29d', 29), done);
  writer.writeThen({ ...entry('ruido-31d', 31), journal_class: 'unattributed' }, done);
  writer.writeThen({ ...entry('ruido-29d', 29), journal_class: 'unattributed', client_ip: '127.0.0.9' }, done);
  writer.flush();
  const before = writer.budget.status().totals;
  expect(writer.purgeExpired(now)).toBe(2);
  const ids = (
    sqlite.prepare("SELECT request_id FROM audit_log WHERE request_id IN ('antigo-31d','recente-29d')").all() as any[]
  ).map((r) => r.request_id);
  expect(ids).toEqual(['recente-29d']);
  const samples = (sqlite.prepare('SELECT sample FROM audit_unattributed').all() as Array<{ sample: string }>).map(
    (r) => JSON.parse(r.sample).request_id,
  );
  expect(samples).toContain('ruido-29d');
  expect(samples).not.toContain('ruido-31d');
  // The totals follow the deletions (audit_budget and the in-memory copy agree).
  const after = writer.budget.status().totals;
  expect(after.verified.rows).toBe(before.verified.rows - 1);
  expect(after.unattributed.rows).toBe(before.unattributed.rows - 1);
  const stored = sqlite.prepare("SELECT rows FROM audit_budget WHERE kind = 'verified'").pluck().get();
  expect(stored).toBe(after.verified.rows);
});

test('last_used_at of a key is updated from the audit batches', async () => {
  const creds = await stack.newKey();
  await stack.call({ path: '/v1/ping' }, creds);
  stack.app.auditWriter.flush();
  const row = await stack.gatewayDb.db
    .selectFrom('api_keys')
    .select('last_used_at')
    .where('id', '=', creds.chaveId)
    .executeTakeFirstOrThrow();
  expect(row.last_used_at).not.toBeNull();
});
