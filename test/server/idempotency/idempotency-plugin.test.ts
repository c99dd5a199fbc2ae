import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { randomUUID } from 'node:crypto';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { backendAdmin, countPatientsNamed } from '../../helpers/fixtures.ts';
import { operationIdentity } from '../../../server/idempotency/idempotency.store.ts';
import { canonicalBodyHash } from '../../../server/idempotency/canonical-hash.ts';
import { gatewayRows, idempotencyStoreOf } from '../../helpers/journal.ts';

// Spec 01 § Idempotency contract (all writes), exercised on POST /v1/pacientes.
let stack: TestStack;
let admin: ReturnType<typeof backendAdmin>;
beforeAll(async () => {
  stack = await startTestStack({ BACKEND_TIMEOUT_MS: '1500' });
  admin = backendAdmin(stack);
});
afterAll(async () => stack?.stop());

let counter = 0;
const newPatient = () => ({
  nome: `Paciente Idempotente ${++counter} ${randomUUID().slice(0, 8)}`,
  data_nascimento: '1980-05-17',
});

const create = (body: unknown, idempotencyKey?: string, creds = stack.creds) =>
  stack.call({ method: 'POST', path: '/v1/pacientes', body, idempotencyKey }, creds);

describe('Idempotency-Key header: required on writes, 1-64 chars of [A-Za-z0-9_-]', () => {
  test('missing → 400 VAL_INVALID_PARAM with details.field', async () => {
    const res = await create(newPatient());
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VAL_INVALID_PARAM');
    expect(res.body.error.details.field).toBe('Idempotency-Key');
  });
  for (const bad of ['a'.repeat(65), 'chave com espaco', 'chave/barra', 'ção', 'a.b']) {
    test(`malformed ${JSON.stringify(bad.slice(0, 20))} → 400`, async () => {
      const res = await stack.call({
        method: 'POST',
        path: '/v1/pacientes',
        body: newPatient(),
        headers: { 'idempotency-key': bad },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.details.field).toBe('Idempotency-Key');
    });
  }
  test('64 chars and UUID v4 are accepted', async () => {
    expect((await create(newPatient(), 'a'.repeat(64))).status).toBe(201);
    expect((await create(newPatient(), randomUUID())).status).toBe(201);
  });
});

test('same key, same body → original status and body replayed; Idempotency-Replay true and meta.idempotent_replay true', async () => {
  const body = newPatient();
  const key = randomUUID();
  const first = await create(body, key);
  expect(first.status).toBe(201);
  expect(first.headers['idempotency-replay']).toBe('false');
  expect(first.headers['idempotency-key']).toBe(key);
  expect(first.body.meta.idempotent_replay).toBe(false);
  const second = await create(body, key);
  expect(second.status).toBe(201); // 201 stays 201
  expect(second.headers['idempotency-replay']).toBe('true');
  expect(second.body.meta.idempotent_replay).toBe(true);
  expect(second.body.data).toEqual(first.body.data);
  expect(second.headers.location).toBe(first.headers.location);
  expect(second.body.meta.request_id).not.toBe(first.body.meta.request_id);
  expect(countPatientsNamed(stack.dataDir, stack.tenantSlug, body.nome)).toBe(1);
});

test('the same body with other key order or whitespace is the same body', async () => {
  const key = randomUUID();
  const nome = newPatient().nome;
  await create(`{"nome":"${nome}","data_nascimento":"1980-05-17"}`, key);
  const again = await create(`{ "data_nascimento": "1980-05-17",\n  "nome": "${nome}" }`, key);
  expect(again.headers['idempotency-replay']).toBe('true');
});

test('same key, different body → 422 IDEMPOTENCY_CONFLICT', async () => {
  const key = randomUUID();
  const body = newPatient();
  expect((await create(body, key)).status).toBe(201);
  const res = await create({ ...body, nome: `${body.nome} X` }, key);
  expect(res.status).toBe(422);
  expect(res.body.error.code).toBe('IDEMPOTENCY_CONFLICT');
  expect(countPatientsNamed(stack.dataDir, stack.tenantSlug, `${body.nome} X`)).toBe(0);
});

test('scope is per API key: the same key string under two API keys never collides', async () => {
  const other = await stack.newKey();
  const key = `mesma-chave-${randomUUID()}`;
  const a = newPatient();
  const b = newPatient();
  const resA = await create(a, key);
  const resB = await create(b, key, other);
  expect(resA.status).toBe(201);
  expect(resB.status).toBe(201);
  expect(resB.headers['idempotency-replay']).toBe('false');
  expect(resB.body.data.id).not.toBe(resA.body.data.id);
});

// Issue 20 § 2. Spec § Idempotency: "Scope | per API key"; "one key per logical request"; "Same key, different
// body | 422 `IDEMPOTENCY_CONFLICT`". The key is bound to the operation the router resolved: verb, route
// pattern and path values as parsed, not the path as spelled.
describe('a key is bound to the operation the router resolved', () => {
  /** `12` → `%31%32`: the same path value, every digit percent-encoded. */
  const encodedDigits = (id: number) => [...String(id)].map((d) => `%3${d}`).join('');
  const patientId = async () => {
    const res = await create(newPatient(), randomUUID());
    expect(res.status).toBe(201);
    return res.body.data.id as number;
  };
  const addRecord = (target: string, key: string, body: unknown) =>
    stack.call({ method: 'POST', path: target, body, idempotencyKey: key });
  const recordCount = async (id: number) =>
    (await stack.call({ path: `/v1/pacientes/${id}/prontuarios` })).body.meta.total as number;

  test('the same key and body on /v1/pacientes/{id}/prontuarios spelled 1 and %31: one record, the second answer is the replay', async () => {
    const id = await patientId();
    const key = randomUUID();
    const body = { mensagem: `Retorno em 30 dias ${randomUUID()}` };
    const first = await addRecord(`/v1/pacientes/${id}/prontuarios`, key, body);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const second = await addRecord(`/v1/pacientes/${encodedDigits(id)}/prontuarios`, key, body);
    expect(second.status).toBe(201);
    expect(second.headers['idempotency-replay']).toBe('true');
    expect(second.body.data).toEqual(first.body.data);
    expect(await recordCount(id)).toBe(1);
    // And the other way round, from the encoded spelling first.
    const otherKey = randomUUID();
    const encodedFirst = await addRecord(`/v1/pacientes/${encodedDigits(id)}/prontuarios`, otherKey, body);
    expect(encodedFirst.headers['idempotency-replay']).toBe('false');
    expect((await addRecord(`/v1/pacientes/${id}/prontuarios`, otherKey, body)).headers['idempotency-replay']).toBe(
      'true',
    );
    expect(await recordCount(id)).toBe(2);
  });

  test('one key reused by one API key on another operation with another body → 422 IDEMPOTENCY_CONFLICT, nothing executed', async () => {
    const key = randomUUID();
    const patient = newPatient();
    const created = await create(patient, key);
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    const patched = await stack.call({
      method: 'PATCH',
      path: `/v1/pacientes/${id}`,
      body: { telefone: '1133334444' },
      idempotencyKey: key,
    });
    expect(patched.status).toBe(422);
    expect(patched.body.error.code).toBe('IDEMPOTENCY_CONFLICT');
    expect(patched.body.error.details.field).toBe('Idempotency-Key');
    expect((await stack.call({ path: `/v1/pacientes/${id}` })).body.data.telefone).toBeNull();
    const record = await addRecord(`/v1/pacientes/${id}/prontuarios`, key, { mensagem: 'Nao deve ser gravado' });
    expect(record.status).toBe(422);
    expect(record.body.error.code).toBe('IDEMPOTENCY_CONFLICT');
    expect(await recordCount(id)).toBe(0);
    // The key still answers its own operation.
    const again = await create(patient, key);
    expect(again.headers['idempotency-replay']).toBe('true');
    expect(again.body.data.id).toBe(id);
  });

  test('the same route with another path value is another operation: one key and one body on two patients → 422, the second untouched', async () => {
    const a = await patientId();
    const b = await patientId();
    const key = randomUUID();
    const body = { telefone: '1144445555' };
    expect((await stack.call({ method: 'PATCH', path: `/v1/pacientes/${a}`, body, idempotencyKey: key })).status).toBe(
      200,
    );
    const onB = await stack.call({ method: 'PATCH', path: `/v1/pacientes/${b}`, body, idempotencyKey: key });
    expect(onB.status).toBe(422);
    expect(onB.body.error.code).toBe('IDEMPOTENCY_CONFLICT');
    expect((await stack.call({ path: `/v1/pacientes/${b}` })).body.data.telefone).toBeNull();
  });

  test("the backend write token follows the same identity: with the gateway's entry gone (a 504 frees it), the retry spelled the other way is answered from backend-sim's record of the write", async () => {
    const id = await patientId();
    const key = randomUUID();
    const body = { mensagem: `Escrita com resposta perdida ${randomUUID()}` };
    expect((await addRecord(`/v1/pacientes/${id}/prontuarios`, key, body)).status).toBe(201);
    // What a timeout leaves: backend-sim committed the write with the token the gateway sent, the gateway freed the key.
    await gatewayRows(
      stack,
      'DELETE FROM idempotency_keys WHERE chave_id = ? AND idem_key = ?',
      stack.creds.chaveId,
      key,
    );
    const retry = await addRecord(`/v1/pacientes/${encodedDigits(id)}/prontuarios`, key, body);
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    expect(retry.headers['idempotency-replay']).toBe('true');
    expect(await recordCount(id)).toBe(1);
  });
});

test('50 concurrent requests with the same key and body execute the write exactly once', async () => {
  const body = newPatient();
  const key = randomUUID();
  const responses = await Promise.all(Array.from({ length: 50 }, () => create(body, key)));
  expect(countPatientsNamed(stack.dataDir, stack.tenantSlug, body.nome)).toBe(1);
  const firsts = responses.filter((r) => r.status === 201 && r.headers['idempotency-replay'] === 'false');
  const replays = responses.filter((r) => r.status === 201 && r.headers['idempotency-replay'] === 'true');
  const inFlight = responses.filter((r) => r.status === 409);
  expect(firsts).toHaveLength(1);
  expect(replays.length + inFlight.length).toBe(49);
  for (const r of inFlight) {
    expect(r.body.error.code).toBe('CONCURRENT_REQUEST');
    expect(r.headers['retry-after']).toBe('2');
  }
  for (const r of replays) expect(r.body.data.id).toBe(firsts[0].body.data.id);
  // Retrying with the same key and body after the first finished receives the replay.
  const retry = await create(body, key);
  expect(retry.headers['idempotency-replay']).toBe('true');
});

describe('in-flight lease', () => {
  const reserveAsCrashedRequest = async (body: unknown, key: string, at: number) =>
    idempotencyStoreOf(stack).reserve(
      {
        chaveId: stack.creds.chaveId,
        idemKey: key,
        method: 'POST',
        path: '/v1/pacientes',
        operation: operationIdentity('POST', '/v1/pacientes', {}),
      },
      canonicalBodyHash(body, Buffer.alloc(0)),
      at,
    );

  test('while the first request holds the key: 409 CONCURRENT_REQUEST with Retry-After: 2', async () => {
    const body = newPatient();
    const key = randomUUID();
    expect((await reserveAsCrashedRequest(body, key, Date.now())).kind).toBe('execute');
    const res = await create(body, key);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('CONCURRENT_REQUEST');
    expect(res.headers['retry-after']).toBe('2');
  });

  test('an entry left in flight by a crash does not block its key for 24 h: once its short lease ends the retry executes', async () => {
    const body = newPatient();
    const key = randomUUID();
    // A request reserved the key 46 s ago and its process died before completing.
    expect((await reserveAsCrashedRequest(body, key, Date.now() - 46_000)).kind).toBe('execute');
    const res = await create(body, key);
    expect(res.status).toBe(201);
    expect(res.headers['idempotency-replay']).toBe('false');
    expect(countPatientsNamed(stack.dataDir, stack.tenantSlug, body.nome)).toBe(1);
  });
});

describe('backend failures under a key', () => {
  test('a lost backend connection: the 503 is stored under the key and replayed, the write is not re-executed', async () => {
    const fault = await admin('POST', '/admin/faults', {
      tenant: stack.tenantSlug,
      route: 'POST /tenants/*/pacientes',
      kind: 'drop',
      failure_rate: 1,
    });
    expect(fault.status).toBe(201);
    const body = newPatient();
    const key = randomUUID();
    const first = await create(body, key);
    await admin('DELETE', `/admin/faults/${fault.body.data.id}`);
    expect(first.status).toBe(503);
    expect(first.body.error.code).toBe('SERVICE_UNAVAILABLE');
    const retry = await create(body, key);
    expect(retry.status).toBe(503);
    expect(retry.headers['idempotency-replay']).toBe('true');
    expect(retry.body.meta.idempotent_replay).toBe(true);
    expect(countPatientsNamed(stack.dataDir, stack.tenantSlug, body.nome)).toBe(0);
    // A new key executes.
    expect((await create(body, randomUUID())).status).toBe(201);
  });

  test('a backend timeout (504) frees the key: the retry executes (decision, docs/decisions.md)', async () => {
    const fault = await admin('POST', '/admin/faults', {
      tenant: stack.tenantSlug,
      route: 'POST /tenants/*/pacientes',
      kind: 'hang',
      failure_rate: 1,
    });
    const body = newPatient();
    const key = randomUUID();
    const first = await create(body, key);
    await admin('DELETE', `/admin/faults/${fault.body.data.id}`);
    expect(first.status).toBe(504);
    expect(first.body.error.code).toBe('SERVICE_TIMEOUT');
    const retry = await create(body, key);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotency-replay']).toBe('false');
  });
});

test('lifetime 24 h from first use: an expired record no longer replays, and the purge deletes it', async () => {
  const body = newPatient();
  const key = randomUUID();
  await create(body, key);
  const [row] = await gatewayRows<{ created_at: number; expires_at: number }>(
    stack,
    'SELECT created_at, expires_at FROM idempotency_keys WHERE idem_key = ?',
    key,
  );
  expect(row.expires_at - row.created_at).toBe(24 * 60 * 60 * 1000);
  const s = idempotencyStoreOf(stack);
  const rowsOfKey = async () =>
    (await gatewayRows(stack, 'SELECT idem_key FROM idempotency_keys WHERE idem_key = ?', key)).length;
  await s.purgeExpired(row.expires_at - 1);
  expect(await rowsOfKey()).toBe(1);
  await s.purgeExpired(row.expires_at);
  expect(await rowsOfKey()).toBe(0);
});

test('records survive a gateway restart: the replay comes from the gateway database, not memory', async () => {
  const restartable = await startTestStack();
  const body = newPatient();
  const key = randomUUID();
  const first = await restartable.call({ method: 'POST', path: '/v1/pacientes', body, idempotencyKey: key });
  expect(first.status).toBe(201);
  await restartable.close();
  const again = await startTestStack({}, { dataDir: restartable.dataDir });
  try {
    const replay = await again.call(
      { method: 'POST', path: '/v1/pacientes', body, idempotencyKey: key },
      restartable.creds,
    );
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotency-replay']).toBe('true');
    expect(replay.body.data.id).toBe(first.body.data.id);
    expect(countPatientsNamed(again.dataDir, again.tenantSlug, body.nome)).toBe(1);
  } finally {
    await again.close();
    await restartable.stop();
  }
});
