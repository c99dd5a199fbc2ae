import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { canonicalBodyHash } from '../../../server/idempotency/canonical-hash.ts';
import { backendWriteToken } from '../../../server/idempotency/backend-write-token.ts';
import { operationIdentity } from '../../../server/idempotency/idempotency.store.ts';
import { backendAdmin } from '../../helpers/fixtures.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { idempotencyStoreOf } from '../../helpers/journal.ts';

// Exactly once across crashes (issue 12 item 1, docs/architecture.md), in process: the gateway's
// record and backend-sim's marker meet on the token. The SIGKILL of the whole stack is crash.test.ts.
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ BACKEND_TIMEOUT_MS: '1500' });
});
afterAll(async () => stack?.stop());

const newPatient = () => ({ nome: `Exatamente Uma Vez ${randomUUID().slice(0, 8)}`, data_nascimento: '1979-03-21' });

function patientIds(dataDir: string, slug: string, nome: string): number[] {
  const db = new SQLite(path.join(dataDir, 'backend', `${slug}.db`), { readonly: true });
  try {
    return (
      db.prepare('SELECT id FROM pacientes WHERE nome = ? ORDER BY id').all(nome.toUpperCase()) as { id: number }[]
    ).map((r) => r.id);
  } finally {
    db.close();
  }
}

const create = (s: TestStack, body: unknown, key: string, creds = s.creds) =>
  s.call({ method: 'POST', path: '/v1/pacientes', body, idempotencyKey: key }, creds);

/** The entry of a patient create under `key`, as the gateway's idempotency plugin names it. */
const createEntry = (chaveId: number, idemKey: string) => ({
  chaveId,
  idemKey,
  method: 'POST',
  path: '/v1/pacientes',
  operation: operationIdentity('POST', '/v1/pacientes', {}),
});

test('the token the gateway sends names (API key id, Idempotency-Key, resolved operation, write number) and nothing else', () => {
  const op = {
    chaveId: 7,
    idemKey: 'k-1',
    method: 'POST',
    path: '/v1/pacientes/1/prontuarios',
    operation: operationIdentity('POST', '/v1/pacientes/:id/prontuarios', { id: 1 }),
  };
  expect(backendWriteToken(op, 0)).toMatch(/^[0-9a-f]{64}$/);
  expect(backendWriteToken(op, 0)).toBe(backendWriteToken({ ...op }, 0));
  for (const other of [
    { ...op, chaveId: 8 },
    { ...op, idemKey: 'k-2' },
    { ...op, operation: operationIdentity('POST', '/v1/pacientes/:id/prontuarios', { id: 2 }) },
    { ...op, operation: operationIdentity('PATCH', '/v1/pacientes/:id', { id: 1 }) },
  ])
    expect(backendWriteToken(other, 0)).not.toBe(backendWriteToken(op, 0));
  expect(backendWriteToken(op, 1)).not.toBe(backendWriteToken(op, 0));
  // The spelling of the path the first request came by is not part of it (issue 20 § 2).
  expect(backendWriteToken({ ...op, path: '/v1/pacientes/%31/prontuarios' }, 0)).toBe(backendWriteToken(op, 0));
  // An entry of an earlier release (no operation) keeps the token it executed with: method and raw path.
  const legacy = { ...op, operation: null };
  expect(backendWriteToken(legacy, 0)).not.toBe(backendWriteToken(op, 0));
  expect(backendWriteToken({ ...legacy, path: '/v1/pacientes/%31/prontuarios' }, 0)).not.toBe(
    backendWriteToken(legacy, 0),
  );
});

/** What a gateway process did before it lost the answer: backend-sim executed the write under the key's token. */
async function commitInBackend(s: TestStack, body: unknown, key: string): Promise<number> {
  const op = createEntry(s.creds.chaveId, key);
  const token = readFileSync(path.join(s.dataDir, 'backend.token'), 'utf8').trim();
  const res = await fetch(`${s.backendUrl}/tenants/${s.tenantSlug}/pacientes`, {
    method: 'POST',
    headers: {
      'x-internal-token': token,
      'x-chave-id': String(s.creds.chaveId),
      'content-type': 'application/json',
      'x-idempotency-token': backendWriteToken(op, 0),
    },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: { id: number } }).data.id;
}

test('a write backend-sim committed whose answer was lost (504: the key was freed): the retry gets it back as a replay, never a second one', async () => {
  const body = newPatient();
  const key = randomUUID();
  const id = await commitInBackend(stack, body, key);
  const retry = await create(stack, body, key);
  expect(retry.status).toBe(201);
  expect(retry.body.data.id).toBe(id);
  expect(retry.headers['idempotency-replay']).toBe('true');
  expect(retry.body.meta.idempotent_replay).toBe(true);
  expect(patientIds(stack.dataDir, stack.tenantSlug, body.nome)).toEqual([id]);
  // From now on the gateway's own record answers.
  const again = await create(stack, body, key);
  expect(again.headers['idempotency-replay']).toBe('true');
  expect(again.body.data).toEqual(retry.body.data);
});

test('a backend failure before any write: backend-sim records nothing, the stored 503 stays the answer of the key', async () => {
  const admin = backendAdmin(stack);
  const fault = await admin('POST', '/admin/faults', {
    tenant: stack.tenantSlug,
    route: 'POST /tenants/*/pacientes',
    kind: 'http500',
  });
  const body = newPatient();
  const key = randomUUID();
  try {
    // backend-sim's 500 is the spec's 503, stored under the key (nothing was written, no marker).
    expect((await create(stack, body, key)).status).toBe(503);
  } finally {
    await admin('DELETE', `/admin/faults/${fault.body.data.id}`);
  }
  const retry = await create(stack, body, key);
  expect(retry.status).toBe(503);
  expect(retry.headers['idempotency-replay']).toBe('true');
  expect(patientIds(stack.dataDir, stack.tenantSlug, body.nome)).toEqual([]);
});

describe('a gateway record left in flight by a dead process', () => {
  let first: TestStack;
  let body: ReturnType<typeof newPatient>;
  let lostBody: ReturnType<typeof newPatient>;
  const key = randomUUID();
  const lostKey = randomUUID();
  let committedId = 0;

  beforeAll(async () => {
    first = await startTestStack();
    body = newPatient();
    lostBody = newPatient();
    const store = idempotencyStoreOf(first);
    const reserveLikeTheDeadProcess = async (b: unknown, k: string) => {
      const op = createEntry(first.creds.chaveId, k);
      expect((await store.reserve(op, canonicalBodyHash(b, Buffer.alloc(0)))).kind).toBe('execute');
    };
    // `key`: backend-sim committed the write, its answer never reached the gateway.
    await reserveLikeTheDeadProcess(body, key);
    committedId = await commitInBackend(first, body, key);
    // `lostKey`: the process died before backend-sim committed anything.
    await reserveLikeTheDeadProcess(lostBody, lostKey);
  });
  afterAll(async () => first?.stop());

  test('while that process could still be running, the key answers 409 CONCURRENT_REQUEST', async () => {
    const res = await create(first, body, key);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('CONCURRENT_REQUEST');
  });

  test('after a restart the retry goes to backend-sim at once (no lease wait) and gets the committed write, marked as a replay', async () => {
    await first.close();
    const restarted = await startTestStack({}, { dataDir: first.dataDir });
    try {
      const started = Date.now();
      const retry = await create(restarted, body, key, first.creds);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(retry.status).toBe(201);
      expect(retry.body.data.id).toBe(committedId);
      expect(retry.headers['idempotency-replay']).toBe('true');
      expect(patientIds(first.dataDir, first.tenantSlug, body.nome)).toEqual([committedId]);

      const lost = await create(restarted, lostBody, lostKey, first.creds);
      expect(lost.status).toBe(201);
      expect(lost.headers['idempotency-replay']).toBe('false');
      expect(patientIds(first.dataDir, first.tenantSlug, lostBody.nome)).toEqual([lost.body.data.id]);
      const lostAgain = await create(restarted, lostBody, lostKey, first.creds);
      expect(lostAgain.headers['idempotency-replay']).toBe('true');
      expect(lostAgain.body.data.id).toBe(lost.body.data.id);
    } finally {
      await restarted.close();
    }
  });
});
