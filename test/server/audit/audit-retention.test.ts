import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { ensureOperator } from '../../../server/admin/operators.ts';
import { loadConfig } from '../../../server/config.ts';
import { DEFAULT_AUDIT_MAX_ROWS, enforceAuditRowCap } from '../../../server/audit/audit-retention.ts';
import { ConsoleClient } from '../admin/console-client.ts';

// Issue 12 § Bounded audit storage: a row cap (AUDIT_MAX_ROWS) on top of the 30-day retention, oldest
// first, enforced with the gateway's purge (at start and every 10 minutes), shown in the console.

const CAP = 40;
const PASSWORD = 'audit-retention-password';
let stack: TestStack;

const ids = (s: TestStack = stack) => {
  s.app.auditWriter.flush();
  return (s.gatewayDb.sqlite.prepare('SELECT id FROM audit_log ORDER BY id').all() as { id: number }[]).map((r) => r.id);
};
const tsOf = (id: number, s: TestStack = stack) => (s.gatewayDb.sqlite.prepare('SELECT ts FROM audit_log WHERE id = ?').get(id) as { ts: string }).ts;

beforeAll(async () => {
  stack = await startTestStack({ AUDIT_MAX_ROWS: String(CAP) });
  await ensureOperator(stack.gatewayDb.db, 'operador', PASSWORD);
});
afterAll(async () => stack?.stop());

test('AUDIT_MAX_ROWS: a positive integer, 1,000,000 by default', () => {
  expect(loadConfig({}).audit.maxRows).toBe(DEFAULT_AUDIT_MAX_ROWS);
  expect(DEFAULT_AUDIT_MAX_ROWS).toBe(1_000_000);
  expect(loadConfig({ AUDIT_MAX_ROWS: '250' }).audit.maxRows).toBe(250);
  expect(() => loadConfig({ AUDIT_MAX_ROWS: '0' })).toThrow(/AUDIT_MAX_ROWS/);
  expect(() => loadConfig({ AUDIT_MAX_ROWS: 'lots' })).toThrow(/AUDIT_MAX_ROWS/);
});

test('over the cap, the gateway purge deletes the oldest entries and keeps the newest; the console API reports it', async () => {
  for (let i = 0; i < CAP + 30; i++) expect((await stack.call({ path: '/v1/ping' })).status).toBe(200);
  const before = ids();
  expect(before.length).toBeGreaterThanOrEqual(CAP + 30);

  const client = new ConsoleClient(stack.gatewayUrl);
  expect((await client.login('operador', PASSWORD)).status).toBe(200);
  const over = await client.call('GET', '/admin/api/audit/storage');
  expect(over.status).toBe(200);
  expect(over.body.data).toMatchObject({ max_rows: CAP, retention_days: 30, oldest_ts: tsOf(before[0]) });
  expect(over.body.data.rows).toBeGreaterThanOrEqual(CAP + 30);
  expect(over.body.data.database_bytes).toBeGreaterThan(0);

  // The purge runs when the gateway starts and every 10 minutes: a restart on the same DATA_DIR runs it now.
  await stack.close();
  const file = new SQLite(path.join(stack.dataDir, 'gateway.db'), { readonly: true });
  const beforePurge = (file.prepare('SELECT id FROM audit_log ORDER BY id').all() as { id: number }[]).map((r) => r.id);
  file.close();
  expect(beforePurge.length).toBeGreaterThanOrEqual(CAP + 30);
  stack = await startTestStack({ AUDIT_MAX_ROWS: String(CAP) }, { dataDir: stack.dataDir });
  // Exactly the newest CAP entries are left, before any new request arrives.
  expect(ids()).toEqual(beforePurge.slice(-CAP));

  const again = new ConsoleClient(stack.gatewayUrl);
  expect((await again.login('operador', PASSWORD)).status).toBe(200);
  const after = await again.call('GET', '/admin/api/audit/storage');
  const now = ids();
  expect(after.body.data).toMatchObject({ rows: now.length, max_rows: CAP, oldest_ts: tsOf(now[0]), newest_ts: tsOf(now[now.length - 1]) });
  // Only what came after the restart (this login) sits on top of the cap until the next purge.
  expect(after.body.data.rows).toBeLessThanOrEqual(CAP + 1);
});

describe('enforceAuditRowCap', () => {
  const insertRows = (n: number) => {
    const insert = stack.gatewayDb.sqlite.prepare(
      `INSERT INTO audit_log (request_id, ts, source, method, path, status, duracao_ms, client_ip)
       VALUES (?, ?, 'api', 'GET', '/v1/ping', 200, 1, '127.0.0.1')`,
    );
    const base = Date.parse('2026-01-01T00:00:00Z');
    stack.gatewayDb.sqlite.transaction(() => {
      for (let i = 0; i < n; i++) insert.run(`synthetic-${i}`, new Date(base + i * 1000).toISOString());
    })();
  };

  test('deletes in chunks (one synchronous, the rest after pauses), oldest first, down to the cap exactly', async () => {
    stack.app.auditWriter.flush();
    insertRows(5000);
    const all = ids();
    const run = enforceAuditRowCap(stack.gatewayDb.sqlite, 1000, { chunkRows: 300, pauseMs: 1 });
    // The first chunk is done when the call returns; the others wait for their turn.
    expect(ids().length).toBe(all.length - 300);
    // A second run while one is going does nothing.
    expect(await enforceAuditRowCap(stack.gatewayDb.sqlite, 1000)).toBe(0);
    expect(await run).toBe(all.length - 1000);
    expect(ids()).toEqual(all.slice(-1000));
  });

  test('under the cap: nothing deleted', async () => {
    const all = ids();
    expect(await enforceAuditRowCap(stack.gatewayDb.sqlite, all.length + 1)).toBe(0);
    expect(await enforceAuditRowCap(stack.gatewayDb.sqlite, all.length)).toBe(0);
    expect(ids()).toEqual(all);
  });
});
