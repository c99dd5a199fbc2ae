import { afterAll, beforeAll, expect, test } from 'vitest';
import { randomUUID } from 'node:crypto';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { countPatientsNamed } from '../../helpers/fixtures.ts';
import { IdempotencyStore, operationIdentity } from '../../../server/idempotency/idempotency.store.ts';
import { canonicalBodyHash } from '../../../server/idempotency/canonical-hash.ts';
import { loadMasterKey } from '../../../server/keys/secret-box.ts';

// Rows gateway.db kept from releases before migration 018 (no operation, sealed again when a store opens the
// file): a SQLite-only story, since PostgreSQL support starts after it (rows copied from gateway.db are sealed first).
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => stack?.stop());

const newPatient = () => ({ nome: `Paciente Legado ${randomUUID().slice(0, 8)}`, data_nascimento: '1980-05-17' });

const create = (body: unknown, idempotencyKey?: string) =>
  stack.call({ method: 'POST', path: '/v1/pacientes', body, idempotencyKey });

test('an entry written before keys were bound to an operation (migration 018) still replays on its verb and raw path, and is a conflict elsewhere', async () => {
  const key = randomUUID();
  const patient = newPatient();
  const first = await create(patient, key);
  expect(first.status).toBe(201);
  // Made into a row of an earlier release: no operation, plaintext response and bare SHA-256 (sealed again,
  // with the associated data of its time, when a store opens gateway.db).
  const bodyHash = canonicalBodyHash(patient, Buffer.alloc(0));
  const opened = new IdempotencyStore(stack.gatewayDb.sqlite, 45_000, loadMasterKey(stack.dataDir)).reserve(
    {
      chaveId: stack.creds.chaveId,
      idemKey: key,
      method: 'POST',
      path: '/v1/pacientes',
      operation: operationIdentity('POST', '/v1/pacientes', {}),
    },
    bodyHash,
  );
  if (opened.kind !== 'replay') throw new Error(`expected a replay, got ${opened.kind}`);
  stack.gatewayDb.sqlite
    .prepare(
      `UPDATE idempotency_keys SET operation = NULL, seal_version = 0, body_hash = ?, response_headers = ?, response_body = ?, response_sealed = NULL
       WHERE chave_id = ? AND idem_key = ?`,
    )
    .run(bodyHash, opened.record.response_headers, opened.record.response_body, stack.creds.chaveId, key);
  new IdempotencyStore(stack.gatewayDb.sqlite, 45_000, loadMasterKey(stack.dataDir));
  const row = stack.gatewayDb.sqlite
    .prepare('SELECT operation, seal_version FROM idempotency_keys WHERE chave_id = ? AND idem_key = ?')
    .get(stack.creds.chaveId, key);
  expect(row).toEqual({ operation: null, seal_version: 1 });

  const replay = await create(patient, key);
  expect(replay.status).toBe(201);
  expect(replay.headers['idempotency-replay']).toBe('true');
  expect(replay.body.data).toEqual(first.body.data);
  const elsewhere = await stack.call({
    method: 'PATCH',
    path: `/v1/pacientes/${first.body.data.id}`,
    body: { telefone: '1133334444' },
    idempotencyKey: key,
  });
  expect(elsewhere.status).toBe(422);
  expect(elsewhere.body.error.code).toBe('IDEMPOTENCY_CONFLICT');
  expect(countPatientsNamed(stack.dataDir, stack.tenantSlug, patient.nome)).toBe(1);
});
