import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { ensureOperator } from '../../../server/operators/index.ts';
import { ConsoleClient } from './console-client.ts';
import { gatewayRows } from '../../helpers/journal.ts';

// Issue 14 item 4: the idempotency inspector (GET /admin/api/keys/:id/idempotency, DELETE one entry).
let stack: TestStack;
let client: ConsoleClient;

beforeAll(async () => {
  stack = await startTestStack();
  await ensureOperator(stack.gatewayDb.db, 'operador', 'correct-horse-battery');
  client = new ConsoleClient(stack.gatewayUrl);
  expect((await client.login('operador', 'correct-horse-battery')).status).toBe(200);
});
afterAll(async () => stack?.stop());

/** A row as the store writes it, for the states a test cannot easily reach through the API (in flight, stored 503). */
async function insertEntry(
  chaveId: number,
  idemKey: string,
  fields: { state: string; status: number | null; leaseUntil: number },
) {
  const now = Date.now();
  await gatewayRows(
    stack,
    `INSERT INTO idempotency_keys (chave_id, idem_key, method, path, body_hash, state, lease_until, status, created_at, expires_at, seal_version, request_id)
     VALUES (?, ?, 'POST', '/v1/pacientes', ?, ?, ?, ?, ?, ?, 1, NULL)`,
    chaveId,
    idemKey,
    'f'.repeat(64),
    fields.state,
    fields.leaseUntil,
    fields.status,
    now,
    now + 86_400_000,
  );
}

const list = (chaveId: number) => client.call('GET', `/admin/api/keys/${chaveId}/idempotency`);

describe('idempotency inspector', () => {
  it('lists a key’s entries with state, fingerprint, first use, expiry and the request that executed, linked to its audit row', async () => {
    const key = await stack.newKey();
    const idem = randomUUID();
    const created = await stack.call(
      {
        method: 'POST',
        path: '/v1/pacientes',
        body: { nome: 'Paciente Inspetor', data_nascimento: '1990-01-01', sexo: 'MAS' },
        idempotencyKey: idem,
      },
      key,
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await insertEntry(key.chaveId, 'em-voo', { state: 'in_flight', status: null, leaseUntil: Date.now() + 60_000 });
    await insertEntry(key.chaveId, 'abandonada', { state: 'in_flight', status: null, leaseUntil: Date.now() - 1 });
    await insertEntry(key.chaveId, 'backend-fora', { state: 'completed', status: 503, leaseUntil: 0 });

    const res = await list(key.chaveId);
    expect(res.status).toBe(200);
    const items = res.body.data.items as any[];
    const byKey = Object.fromEntries(items.map((i) => [i.idem_key, i]));
    expect(byKey[idem]).toMatchObject({
      method: 'POST',
      path: '/v1/pacientes',
      state: 'completed',
      status: 201,
      fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
      request_id: created.body.meta.request_id,
      audit_id: expect.any(Number),
    });
    expect(Date.parse(byKey[idem].expires_at) - Date.parse(byKey[idem].created_at)).toBe(86_400_000);
    expect(byKey['em-voo'].state).toBe('in_flight');
    expect(byKey.abandonada.state).toBe('abandoned');
    expect(byKey['backend-fora']).toMatchObject({ state: 'stored_503', status: 503 });
    // Metadata only: nothing of the sealed response.
    expect(res.text).not.toContain('PACIENTE INSPETOR');
    const audit = await client.call('GET', `/admin/api/audit/${byKey[idem].audit_id}`);
    expect(audit.body.data.request_id).toBe(created.body.meta.request_id);
    // Another key's entries are not listed.
    expect(((await list(stack.creds.chaveId)).body.data.items as any[]).some((i) => i.idem_key === idem)).toBe(false);
  });

  it('purges one entry (audited as idempotency.purge); the next request with that key goes to the backend again, which replays its committed write (never a second one); an in-flight entry is refused', async () => {
    const key = await stack.newKey();
    const idem = randomUUID();
    const body = { nome: 'Paciente Purga', data_nascimento: '1990-01-01', sexo: 'FEM' };
    const first = await stack.call({ method: 'POST', path: '/v1/pacientes', body, idempotencyKey: idem }, key);
    expect(first.status).toBe(201);
    await insertEntry(key.chaveId, 'em-voo', { state: 'in_flight', status: null, leaseUntil: Date.now() + 60_000 });
    const items = (await list(key.chaveId)).body.data.items as any[];
    const entry = items.find((i) => i.idem_key === idem);
    const inFlight = items.find((i) => i.idem_key === 'em-voo');

    const noCsrf = await client.call('DELETE', `/admin/api/keys/${key.chaveId}/idempotency/${entry.entry}`, undefined, {
      csrf: null,
    });
    expect(noCsrf.status).toBe(403);
    const refused = await client.call('DELETE', `/admin/api/keys/${key.chaveId}/idempotency/${inFlight.entry}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error?.code).toBe('CONCURRENT_REQUEST');
    // Another key's id with this entry: not found.
    expect(
      (await client.call('DELETE', `/admin/api/keys/${stack.creds.chaveId}/idempotency/${entry.entry}`)).status,
    ).toBe(404);
    expect((await client.call('DELETE', `/admin/api/keys/${key.chaveId}/idempotency/bm90LWpzb24`)).status).toBe(404);

    const purged = await client.call('DELETE', `/admin/api/keys/${key.chaveId}/idempotency/${entry.entry}`);
    expect(purged.status).toBe(200);
    expect(purged.body.data).toMatchObject({ purged: true, idem_key: idem, state: 'completed' });
    expect(((await list(key.chaveId)).body.data.items as any[]).some((i) => i.idem_key === idem)).toBe(false);

    const [row] = await gatewayRows(
      stack,
      `SELECT * FROM audit_log WHERE source = 'console' AND request_id = ?`,
      purged.headers['x-request-id'] ?? purged.body.meta.request_id,
    );
    expect(row).toMatchObject({ chave_id: key.chaveId, method: 'DELETE', status: 200 });
    expect(JSON.parse(row.detail)).toMatchObject({
      action: 'idempotency.purge',
      idem_key: idem,
      method: 'POST',
      path: '/v1/pacientes',
      state: 'completed',
    });

    // The gateway executes again (a new entry, this request's id), and backend-sim answers from its own
    // record of that write (docs/architecture.md § Exactly once across crashes): same patient, marked a replay.
    const again = await stack.call({ method: 'POST', path: '/v1/pacientes', body, idempotencyKey: idem }, key);
    expect(again.status).toBe(201);
    expect(again.body.data.id).toBe(first.body.data.id);
    expect(again.body.meta.idempotent_replay).toBe(true);
    const renewed = ((await list(key.chaveId)).body.data.items as any[]).find((i) => i.idem_key === idem);
    expect(renewed).toMatchObject({ state: 'completed', request_id: again.body.meta.request_id });
  });

  it('an unknown key is 404', async () => {
    expect((await list(999_999)).status).toBe(404);
  });
});

describe('idempotency across a clinic (issue 22 § 5)', () => {
  const search = (slug: string, idemKey?: string) =>
    client.call(
      'GET',
      `/admin/api/tenants/${slug}/idempotency${idemKey === undefined ? '' : `?idem_key=${encodeURIComponent(idemKey)}`}`,
    );
  const patient = (nome: string) => ({ nome, data_nascimento: '1990-01-01', sexo: 'FEM' });

  it('finds an Idempotency-Key value under any of the clinic’s keys (revoked ones too), and not another clinic’s', async () => {
    const a = await stack.newKey();
    const b = await stack.newKey();
    await stack.createTenant('outra-clinica-idem');
    const other = await stack.newKey({ tenant: 'outra-clinica-idem' });
    const idem = `busca-${randomUUID()}`;
    for (const [creds, nome] of [
      [a, 'Paciente Busca A'],
      [b, 'Paciente Busca B'],
      [other, 'Paciente Busca Outra'],
    ] as const) {
      const res = await stack.call(
        { method: 'POST', path: '/v1/pacientes', body: patient(nome), idempotencyKey: idem },
        creds,
      );
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    // A key of the clinic used with another value: not found by this one.
    expect(
      (
        await stack.call(
          { method: 'POST', path: '/v1/pacientes', body: patient('Paciente Outra Chave'), idempotencyKey: `${idem}-x` },
          a,
        )
      ).status,
    ).toBe(201);
    await stack.keys.revoke(b.chaveId);

    const res = await search(stack.tenantSlug, idem);
    expect(res.status).toBe(200);
    expect(res.body.data.tenant).toEqual({ slug: stack.tenantSlug, nome: 'Clinica Teste' });
    const entries = res.body.data.entries as any[];
    expect(entries.map((e) => e.key.id).sort()).toEqual([a.chaveId, b.chaveId].sort());
    for (const e of entries) {
      expect(e).toMatchObject({
        idem_key: idem,
        method: 'POST',
        path: '/v1/pacientes',
        state: 'completed',
        status: 201,
        audit_id: expect.any(Number),
      });
      expect(e.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(entries.find((e) => e.key.id === b.chaveId).key.status).toBe('revoked');
    // Metadata only.
    expect(res.text).not.toMatch(/PACIENTE BUSCA/i);

    const elsewhere = (await search('outra-clinica-idem', idem)).body.data.entries as any[];
    expect(elsewhere.map((e) => e.key.id)).toEqual([other.chaveId]);
    expect((await search(stack.tenantSlug, 'nao-usada')).body.data.entries as any[]).toEqual([]);
  });

  it('lists 422 IDEMPOTENCY_CONFLICT refusals with both bodies’ fingerprints, the first request linked, by value and clinic-wide', async () => {
    const key = await stack.newKey();
    const idem = `conflito-${randomUUID()}`;
    const first = await stack.call(
      { method: 'POST', path: '/v1/pacientes', body: patient('Paciente Conflito'), idempotencyKey: idem },
      key,
    );
    expect(first.status).toBe(201);
    const conflict = await stack.call(
      { method: 'POST', path: '/v1/pacientes', body: patient('Paciente Conflito Outro Corpo'), idempotencyKey: idem },
      key,
    );
    expect(conflict.status).toBe(422);
    expect(conflict.body.error.code).toBe('IDEMPOTENCY_CONFLICT');
    // The same key on another operation.
    const elsewhere = await stack.call(
      {
        method: 'POST',
        path: `/v1/pacientes/${first.body.data.id}/prontuarios`,
        body: { mensagem: 'Retorno em 30 dias' },
        idempotencyKey: idem,
      },
      key,
    );
    expect(elsewhere.status).toBe(422);
    // The same body again is a replay, not a conflict.
    expect(
      (
        await stack.call(
          { method: 'POST', path: '/v1/pacientes', body: patient('Paciente Conflito'), idempotencyKey: idem },
          key,
        )
      ).status,
    ).toBe(201);

    const res = await search(stack.tenantSlug, idem);
    expect(res.status).toBe(200);
    const [entry] = res.body.data.entries as any[];
    const conflicts = res.body.data.conflicts as any[];
    expect(conflicts.map((c) => c.request_id)).toEqual([elsewhere.body.meta.request_id, conflict.body.meta.request_id]);
    const [onOperation, onBody] = conflicts;
    expect(onBody).toMatchObject({
      idem_key: idem,
      reason: 'body',
      key: { id: key.chaveId },
      first: {
        method: 'POST',
        path: '/v1/pacientes',
        fingerprint: entry.fingerprint,
        request_id: first.body.meta.request_id,
        audit_id: entry.audit_id,
      },
      sent: {
        method: 'POST',
        path: '/v1/pacientes',
        fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
        request_id: conflict.body.meta.request_id,
      },
    });
    // Two bodies, two fingerprints; the journal row of the refusal is linked.
    expect(onBody.sent.fingerprint).not.toBe(onBody.first.fingerprint);
    const journal = await client.call('GET', `/admin/api/audit/${onBody.audit_id}`);
    expect(journal.body.data).toMatchObject({ status: 422, error_code: 'IDEMPOTENCY_CONFLICT', chave_id: key.chaveId });
    expect(onOperation).toMatchObject({
      reason: 'operation',
      first: { path: '/v1/pacientes' },
      sent: { path: `/v1/pacientes/${first.body.data.id}/prontuarios` },
    });

    // Without a value: the clinic's newest conflicts, these among them; another clinic sees none of them.
    const all = (await search(stack.tenantSlug)).body.data;
    expect(all.entries).toEqual([]);
    expect((all.conflicts as any[]).slice(0, 2).map((c) => c.request_id)).toEqual([
      elsewhere.body.meta.request_id,
      conflict.body.meta.request_id,
    ]);
    await stack.createTenant('clinica-sem-conflito').catch(() => undefined);
    expect((await search('clinica-sem-conflito')).body.data.conflicts).toEqual([]);
  });

  it('a conflict journaled before fingerprints were (no `stored` in its detail) takes its first side from the live entry', async () => {
    const key = await stack.newKey();
    const idem = `conflito-antigo-${randomUUID()}`;
    const first = await stack.call(
      { method: 'POST', path: '/v1/pacientes', body: patient('Paciente Conflito Antigo'), idempotencyKey: idem },
      key,
    );
    expect(first.status).toBe(201);
    const conflict = await stack.call(
      { method: 'POST', path: '/v1/pacientes', body: patient('Paciente Conflito Antigo Outro'), idempotencyKey: idem },
      key,
    );
    expect(conflict.status).toBe(422);
    const [row] = await gatewayRows<{ id: number; detail: string }>(
      stack,
      'SELECT id, detail FROM audit_log WHERE request_id = ?',
      conflict.body.meta.request_id,
    );
    const detail = JSON.parse(row.detail);
    expect(detail.idempotency_conflict.stored).toBeDefined();
    delete detail.idempotency_conflict.stored;
    await gatewayRows(stack, 'UPDATE audit_log SET detail = ? WHERE id = ?', JSON.stringify(detail), row.id);
    const [entry] = await gatewayRows<{ body_hash: string }>(
      stack,
      'SELECT body_hash FROM idempotency_keys WHERE chave_id = ? AND idem_key = ?',
      key.chaveId,
      idem,
    );

    // Clinic-wide (no value searched): no entry is listed, so the conflict's entry is looked up by its key.
    const all = (await search(stack.tenantSlug)).body.data;
    const found = (all.conflicts as any[]).find((c) => c.request_id === conflict.body.meta.request_id);
    expect(found).toMatchObject({
      idem_key: idem,
      first: {
        method: 'POST',
        path: '/v1/pacientes',
        fingerprint: entry.body_hash,
        request_id: first.body.meta.request_id,
        audit_id: expect.any(Number),
      },
    });
  });

  it('refuses a value the header could never carry, and an unknown clinic', async () => {
    const bad = await search(stack.tenantSlug, 'com espaco');
    expect(bad.status).toBe(400);
    expect(bad.body.error?.code).toBe('VAL_INVALID_PARAM');
    expect((await search('nao-existe', 'x')).status).toBe(404);
  });
});

describe('audit detail: the journal fields', () => {
  it('returns error message, response body and request headers parsed, without X-Signature', async () => {
    const res = await stack.call({
      method: 'POST',
      path: '/v1/pacientes',
      body: { nome: 'Y' },
      idempotencyKey: randomUUID(),
    });
    expect(res.status).toBe(400);
    const page = await client.call('GET', `/admin/api/audit?request_id=${res.body.meta.request_id}`);
    const detail = await client.call('GET', `/admin/api/audit/${page.body.data.items[0].id}`);
    expect(detail.body.data).toMatchObject({
      error_code: 'VAL_INVALID_PARAM',
      error_message: res.body.error.message,
      response_body: { error: { code: 'VAL_INVALID_PARAM' } },
      request_headers: { 'x-api-key': stack.creds.apiKey },
    });
    expect(detail.body.data.request_headers).not.toHaveProperty('x-signature');
    // The list stays light: no journal columns.
    expect(page.body.data.items[0]).not.toHaveProperty('response_body');
  });
});
