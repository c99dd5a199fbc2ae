import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/postgres.ts';
import { journalRows } from '../../helpers/journal.ts';
import { runCli } from '../../helpers/cli.ts';

// Issue 24 § 4: `npm run cli -- db copy-to-postgres` moves a single-process appliance's gateway state into the
// PostgreSQL a cluster will share: keys keep working with their secrets, the journal and idempotency entries are kept.
vi.setConfig({ testTimeout: 90_000 });
let sqliteStack: TestStack;
let dataDir: string;
let target: TestDatabase;
const databases: TestDatabase[] = [];

const cli = runCli;

const patient = { nome: 'Paciente Mudanca Banco', cpf: null, data_nascimento: '1990-03-04' };
let created: { id: number; requestId: string };
let journaled: string[];

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'gw-copy-'));
  sqliteStack = await startTestStack({}, { database: 'sqlite', dataDir });
  expect(sqliteStack.database.kind).toBe('sqlite');
  const answer = await sqliteStack.call({
    method: 'POST',
    path: '/v1/pacientes',
    body: patient,
    idempotencyKey: 'mudanca-1',
  });
  expect(answer.status).toBe(201);
  created = { id: answer.body.data.id, requestId: answer.body.meta.request_id };
  expect((await sqliteStack.call({ path: '/v1/ping' })).status).toBe(200);
  journaled = journalRows(sqliteStack).map((r) => r.request_id as string);
  target = await createTestDatabase();
  databases.push(target);
});

afterAll(async () => {
  await sqliteStack?.stop().catch(() => undefined);
  for (const db of databases) await db.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('db copy-to-postgres', () => {
  it('is refused while the appliance runs on DATA_DIR', async () => {
    // A test stack writes no runtime.json; the running appliance's is what the CLI looks for.
    const { writeRuntimeFile } = await import('../../../appliance/runtime-file.ts');
    const { spawn } = await import('node:child_process');
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      writeRuntimeFile(sqliteStack.dataDir, {
        pid: sleeper.pid!,
        started_at: new Date().toISOString(),
        release: 'test',
        data_dir: sqliteStack.dataDir,
        gateway: { url: sqliteStack.gatewayUrl, port: Number(new URL(sqliteStack.gatewayUrl).port), host: '127.0.0.1' },
        backend: { url: sqliteStack.backendUrl, port: null, external: false },
        storage: {
          internal_url: sqliteStack.s3PublicUrl,
          public_url: sqliteStack.s3PublicUrl,
          embedded: true,
          port: null,
        },
      });
      const refused = await cli({ DATA_DIR: sqliteStack.dataDir }, 'db', 'copy-to-postgres', '--url', target.url);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(new RegExp(`an appliance \\(pid ${sleeper.pid}\\) is running .*stop it first`));
    } finally {
      sleeper.kill();
      const { removeRuntimeFile } = await import('../../../appliance/runtime-file.ts');
      removeRuntimeFile(sqliteStack.dataDir, sleeper.pid);
    }
  });

  it('copies every table in one transaction; on PostgreSQL the keys sign, the journal and the replays are kept, new ids follow', async () => {
    await sqliteStack.stop();
    const copied = await cli(
      { DATA_DIR: sqliteStack.dataDir },
      'db',
      'copy-to-postgres',
      '--url',
      target.url,
      '--json',
    );
    expect(copied.code, copied.stderr).toBe(0);
    const report = JSON.parse(copied.stdout) as { tables: Array<{ name: string; rows: number }> };
    const rows = Object.fromEntries(report.tables.map((t) => [t.name, t.rows]));
    expect(rows.tenants).toBeGreaterThanOrEqual(1);
    expect(rows.api_keys).toBeGreaterThanOrEqual(1);
    expect(rows.idempotency_keys).toBe(1);
    expect(rows.audit_log).toBe(journaled.length);
    expect(copied.stdout).not.toContain(new URL(target.url).password);

    const original = sqliteStack.creds;
    sqliteStack = await startTestStack({ DATABASE_URL: target.url }, { dataDir: sqliteStack.dataDir });
    expect(sqliteStack.database.kind).toBe('postgres');
    // The key made on gateway.db signs on PostgreSQL: same id, its sealed secret opens with DATA_DIR/master.key.
    expect((await sqliteStack.call({ path: '/v1/ping' }, original)).status).toBe(200);
    const replay = await sqliteStack.call(
      { method: 'POST', path: '/v1/pacientes', body: patient, idempotencyKey: 'mudanca-1' },
      original,
    );
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotency-replay']).toBe('true');
    expect(replay.body.data.id).toBe(created.id);
    // The journal kept its entries in their order, and new ones come after them.
    const ping = await sqliteStack.call({ path: '/v1/ping' }, original);
    await sqliteStack.app.auditWriter.flush();
    const after = (
      await sqliteStack.database.db.selectFrom('audit_log').select(['request_id', 'id']).orderBy('id').execute()
    ).map((r) => r.request_id);
    expect(after.slice(0, journaled.length)).toEqual(journaled);
    expect(after.at(-1)).toBe(ping.body.meta.request_id);
    // Keys created on PostgreSQL (the test stack's own, made at its start) get the next ids, not ones the copy used.
    expect(sqliteStack.creds.chaveId).toBeGreaterThan(original.chaveId);
    expect((await sqliteStack.call({ path: '/v1/ping' })).status).toBe(200);
  });

  it('is refused into a database that already holds a clinic, and leaves it as it was', async () => {
    await sqliteStack.stop();
    const again = await cli({ DATA_DIR: sqliteStack.dataDir }, 'db', 'copy-to-postgres', '--url', target.url);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already holds \d+ clinic\(s\): copy into an empty database/);
    expect(again.stderr).not.toContain(new URL(target.url).password);
    sqliteStack = await startTestStack({ DATABASE_URL: target.url }, { dataDir: sqliteStack.dataDir });
  });
});
