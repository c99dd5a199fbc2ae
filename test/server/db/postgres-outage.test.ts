import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { testDatabaseUrl } from '../../helpers/postgres.ts';
import { journalEntries } from '../../helpers/journal.ts';

// Issue 24 with issue 19's rule: when the shared database cannot be reached, a request is refused (503 with
// Retry-After), never served unrecorded, and never a 500; when it is back, the gateway serves again by itself.
let stack: TestStack;
let admin: pg.Client;
let name: string;

beforeAll(async () => {
  stack = await startTestStack();
  expect(stack.database.kind).toBe('postgres');
  name = new URL((stack.config.database as { url: string }).url).pathname.slice(1);
  admin = new pg.Client({ connectionString: testDatabaseUrl() });
  await admin.connect();
});

afterAll(async () => {
  await admin?.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`).catch(() => undefined);
  await admin?.end();
  await stack?.stop();
});

it('the database unreachable: 503 SERVICE_UNAVAILABLE with Retry-After, nothing executed; back: served and journaled', async () => {
  expect((await stack.call({ path: '/v1/ping' })).status).toBe(200);
  const fresh = await stack.newKey();
  // Cut every connection of the gateway to its database and refuse new ones, as a server gone away does.
  await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
  await admin.query(
    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [name],
  );

  const answers = [
    await stack.call({ path: '/v1/ping' }),
    await stack.call({ path: '/v1/pacientes?limit=1' }, fresh),
    await stack.call({
      method: 'POST',
      path: '/v1/pacientes',
      body: { nome: 'Paciente Durante Queda', cpf: null, data_nascimento: '1980-01-01' },
      idempotencyKey: 'queda-banco-1',
    }),
  ];
  for (const answer of answers) {
    expect(answer.status, answer.text).toBe(503);
    expect(answer.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
    expect(answer.text).not.toMatch(/terminat|ECONN|postgres|pg_/i);
  }
  expect((await stack.call({ path: '/readyz' })).status).toBe(503);

  await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
  let back = await stack.call({ path: '/v1/ping' });
  for (let i = 0; i < 40 && back.status !== 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    back = await stack.call({ path: '/v1/ping' });
  }
  expect(back.status).toBe(200);
  const created = await stack.call({
    method: 'POST',
    path: '/v1/pacientes',
    body: { nome: 'Paciente Durante Queda', cpf: null, data_nascimento: '1980-01-01' },
    idempotencyKey: 'queda-banco-1',
  });
  expect(created.status).toBe(201);
  expect(created.headers['idempotency-replay']).toBe('false');
  const journal = await journalEntries(stack);
  expect(journal.map((e) => e.request_id)).toContain(created.body.meta.request_id);
  // None of the refused requests was served: no 2xx entry carries their ids.
  for (const refused of answers)
    expect(journal.find((e) => e.request_id === refused.body.meta.request_id && e.status < 400)).toBeUndefined();
});
