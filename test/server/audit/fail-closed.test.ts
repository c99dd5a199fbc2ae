import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { randomUUID } from 'node:crypto';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import type { SignedResponse } from '../../helpers/signed-client.ts';
import { ensureOperator } from '../../../server/operators/index.ts';
import { ConsoleClient } from '../admin/console-client.ts';
import { backendAdmin } from '../../helpers/fixtures.ts';
import { journalRow } from '../../helpers/journal.ts';
import SQLite from 'better-sqlite3';
import path from 'node:path';

/**
 * Issue 19 § Fail closed: no response leaves without its journal entry committed. The disk is made
 * full for gateway.db the way SQLite itself bounds a file (`PRAGMA max_page_count`): every write past
 * the last page fails with SQLITE_FULL, exactly as on a full file system.
 */

const PASSWORD = 'fail-closed-password';
let stack: TestStack;
const sqlite = () => stack.gatewayDb.sqlite;
const fillDisk = () => sqlite().pragma(`max_page_count = ${sqlite().pragma('page_count', { simple: true })}`);
const freeDisk = () => sqlite().pragma('max_page_count = 1073741823');

beforeAll(async () => {
  stack = await startTestStack();
  await ensureOperator(stack.gatewayDb.db, 'operador', PASSWORD);
});
afterAll(async () => {
  freeDisk();
  await stack?.stop();
});

/** Read straight from the clinic's database file (not through the gateway, whose journal is under test). */
function patientIds(nome: string): number[] {
  const db = new SQLite(path.join(stack.dataDir, 'backend', `${stack.tenantSlug}.db`), { readonly: true });
  try {
    return (
      db.prepare('SELECT id FROM pacientes WHERE nome = ? ORDER BY id').all(nome.toUpperCase()) as { id: number }[]
    ).map((r) => r.id);
  } finally {
    db.close();
  }
}

const patientsNamed = async (nome: string): Promise<number> => {
  const res = await stack.call({ path: `/v1/pacientes?nome=${encodeURIComponent(nome)}` });
  expect(res.status, res.text).toBe(200);
  return res.body.data.length;
};

test('disk full: reads, writes and the console login answer 503 SERVICE_UNAVAILABLE, nothing is served unrecorded, nothing executed twice; it recovers', async () => {
  const nome = `Paciente Disco Cheio ${randomUUID().slice(0, 8)}`;
  expect(await patientsNamed(nome)).toBe(0);

  fillDisk();
  // Requests use up the free pages left in the file; then a commit fails.
  let res = await stack.call({ path: '/v1/pacientes?limit=5' });
  for (let i = 0; i < 5000 && res.status === 200; i++) res = await stack.call({ path: '/v1/pacientes?limit=5' });
  expect(res.status).toBe(503);
  expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
  // Not served: no clinic data in a refused read.
  expect(res.body.data).toBeNull();
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);

  // Reads keep being refused while the journal cannot commit.
  const read = await stack.call({ path: '/v1/pacientes?limit=5' });
  expect(read.status).toBe(503);
  expect(read.body.data).toBeNull();

  // A write is refused before it runs.
  const key = randomUUID();
  const body = { nome, data_nascimento: '1979-03-04' };
  const write = await stack.call({ method: 'POST', path: '/v1/pacientes', body, idempotencyKey: key });
  expect(write.status).toBe(503);
  expect(write.body.error.code).toBe('SERVICE_UNAVAILABLE');

  // The console: 503, not 500.
  const console = new ConsoleClient(stack.gatewayUrl);
  const login = await console.login('operador', PASSWORD);
  expect(login.status).toBe(503);
  expect(login.body.error?.code).toBe('SERVICE_UNAVAILABLE');

  // /readyz names the journal.
  const ready = await stack.raw({ path: '/readyz' });
  expect(ready.status).toBe(503);
  expect(ready.body.error.details.componentes.journal).toMatchObject({ status: 'down', erro: 'journal_write_failed' });

  freeDisk();
  // Within a second the journal's probe finds that the file takes writes again.
  const deadline = Date.now() + 5000;
  while (stack.app.auditWriter.budget.status().state === 'failing' && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  expect(stack.app.auditWriter.budget.status().state).not.toBe('failing');
  expect(await patientsNamed(nome)).toBe(0);
  // The refused write's key was never taken: the retry executes, once.
  const retry = await stack.call({ method: 'POST', path: '/v1/pacientes', body, idempotencyKey: key });
  expect(retry.status, retry.text).toBe(201);
  expect(retry.headers['idempotency-replay']).toBe('false');
  expect(await patientsNamed(nome)).toBe(1);
  expect((await console.login('operador', PASSWORD)).status).toBe(200);
});

test('a write whose journal commit fails after it ran: 503, its key released, and the retry answers from the backend record (exactly once)', async () => {
  const nome = `Paciente Commit Falhou ${randomUUID().slice(0, 8)}`;
  const key = randomUUID();
  const body = { nome, data_nascimento: '1981-05-06' };
  // backend-sim takes 400 ms over this write: gateway.db stops taking writes while the write is in
  // flight, after its reservation and before its journal commit.
  const admin = backendAdmin(stack);
  const fault = await admin('POST', '/admin/faults', {
    tenant: stack.tenantSlug,
    route: 'POST /tenants/*/pacientes',
    latency_ms: 400,
  });
  expect(fault.status).toBe(201);
  let res: SignedResponse;
  try {
    const pending = stack.call({ method: 'POST', path: '/v1/pacientes', body, idempotencyKey: key });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(sqlite().prepare('SELECT state FROM idempotency_keys WHERE idem_key = ?').pluck().get(key)).toBe(
      'in_flight',
    );
    // The file stops taking writes (as a file system remounted read-only would): SQLite's query_only.
    sqlite().pragma('query_only = ON');
    res = await pending;
  } finally {
    sqlite().pragma('query_only = OFF');
    await admin('DELETE', `/admin/faults/${fault.body.data.id}`);
  }
  expect(res.status, res.text).toBe(503);
  expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
  expect(res.body.data).toBeNull();
  expect(res.headers.location).toBeUndefined();
  // It did run in backend-sim (one patient).
  expect(patientIds(nome)).toHaveLength(1);
  // Once gateway.db takes writes again (the journal's probe finds it within a second), the key is released.
  const deadline = Date.now() + 5000;
  while (stack.app.auditWriter.budget.status().state === 'failing' && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  expect(sqlite().prepare('SELECT COUNT(*) FROM idempotency_keys WHERE idem_key = ?').pluck().get(key)).toBe(0);
  // The retry is answered from backend-sim's record of the same write: the same patient, not a second one.
  const retry = await stack.call({ method: 'POST', path: '/v1/pacientes', body, idempotencyKey: key });
  expect(retry.status, retry.text).toBe(201);
  expect(retry.headers['idempotency-replay']).toBe('true');
  expect(patientIds(nome)).toEqual([retry.body.data.id]);
});

describe('SQLITE_FULL in the idempotency reservation itself, while the journal can still commit', () => {
  /**
   * The reservation's INSERT is made to need more pages than the file may grow by: a temporary trigger
   * (this connection only) writes a ballast blob larger than the pages left under `max_page_count`, so
   * that very statement fails with SQLITE_FULL, as on a full disk, while the journal's small entries
   * still fit in the pages left.
   */
  function reservationNeedsMoreThanTheDiskHas(): () => void {
    const db = sqlite();
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const pages = db.pragma('page_count', { simple: true }) as number;
    const free = db.pragma('freelist_count', { simple: true }) as number;
    const headroom = 64;
    db.exec('CREATE TABLE IF NOT EXISTS test_ballast (b BLOB)');
    db.exec(
      `CREATE TEMP TRIGGER reservation_needs_room BEFORE INSERT ON main.idempotency_keys
       BEGIN INSERT INTO main.test_ballast VALUES (randomblob(${(free + headroom + 16) * pageSize * 2})); END`,
    );
    db.pragma(`max_page_count = ${pages + headroom}`);
    return () => {
      db.exec('DROP TRIGGER temp.reservation_needs_room');
      freeDisk();
      db.exec('DROP TABLE test_ballast');
    };
  }

  const recordsOf = (pacienteId: number): number => {
    const db = new SQLite(path.join(stack.dataDir, 'backend', `${stack.tenantSlug}.db`), { readonly: true });
    try {
      return db.prepare('SELECT COUNT(*) FROM prontuarios WHERE paciente_id = ?').pluck().get(pacienteId) as number;
    } finally {
      db.close();
    }
  };

  test('a patient create and a patient record write: 503 SERVICE_UNAVAILABLE (never 500), journaled, nothing executed, the keys free; the retries execute once', async () => {
    const nome = `Paciente Reserva Cheia ${randomUUID().slice(0, 8)}`;
    const owner = await stack.call({
      method: 'POST',
      path: '/v1/pacientes',
      body: { nome: `${nome} Dono`, data_nascimento: '1970-01-01' },
      idempotencyKey: randomUUID(),
    });
    expect(owner.status, owner.text).toBe(201);
    const pacienteId = owner.body.data.id as number;
    const writes = [
      {
        method: 'POST',
        path: '/v1/pacientes',
        body: { nome, data_nascimento: '1985-07-08' },
        idempotencyKey: randomUUID(),
      },
      {
        method: 'POST',
        path: `/v1/pacientes/${pacienteId}/prontuarios`,
        body: { mensagem: 'Retorno em 15 dias' },
        idempotencyKey: randomUUID(),
      },
    ];
    const restore = reservationNeedsMoreThanTheDiskHas();
    const refused = [];
    try {
      for (const write of writes) refused.push(await stack.call(write));
    } finally {
      restore();
    }
    for (const res of refused) {
      expect(res.status, res.text).toBe(503);
      expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(res.body.data).toBeNull();
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      // Journaled: the entry of the refusal itself committed (the journal was never failing).
      expect(journalRow(stack, res.body.meta.request_id)).toMatchObject({
        status: 503,
        error_code: 'SERVICE_UNAVAILABLE',
        chave_id: stack.creds.chaveId,
      });
    }
    expect(stack.app.auditWriter.budget.status().last_write_error).toBeNull();
    // Nothing executed, and no key was taken.
    expect(patientIds(nome)).toEqual([]);
    expect(recordsOf(pacienteId)).toBe(0);
    for (const write of writes)
      expect(
        sqlite().prepare('SELECT COUNT(*) FROM idempotency_keys WHERE idem_key = ?').pluck().get(write.idempotencyKey),
      ).toBe(0);
    // Room again: the same requests execute, once.
    for (const write of writes) {
      const retry = await stack.call(write);
      expect(retry.status, retry.text).toBe(201);
      expect(retry.headers['idempotency-replay']).toBe('false');
    }
    expect(patientIds(nome)).toHaveLength(1);
    expect(recordsOf(pacienteId)).toBe(1);
  });
});
