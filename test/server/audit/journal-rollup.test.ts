import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openGatewayDb } from '../../../server/db/database.ts';
import { openPostgresDb } from '../../../server/db/postgres.ts';
import type { OpenedGatewayDatabase } from '../../../server/db/gateway-database.ts';
import { sqliteBatchCommitter, type AuditRecord, type BatchCommitter } from '../../../server/audit/audit-writer.ts';
import { postgresBatchCommitter } from '../../../server/audit/postgres-journal.ts';
import { CLINIC_ROW } from '../../../server/audit/journal-rollup.ts';
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from '../../helpers/postgres.ts';

/**
 * The rollup as the journal's committers write it (migration 026), on the database of the vitest project: the sweep
 * past 25 hours, and on PostgreSQL two gateways' committers writing the same minutes at once add up.
 */

let database: OpenedGatewayDatabase;
let dataDir: string;
let pg: TestDatabase | null = null;
const committers: Array<BatchCommitter<any>> = [];

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'gw-rollup-'));
  if (testDatabaseUrl()) {
    pg = await createTestDatabase();
    database = await openPostgresDb({ url: pg.url, poolSize: 4 });
  } else database = await openGatewayDb(dataDir);
});
afterAll(async () => {
  for (const c of committers) await c.close?.();
  await database?.close();
  await pg?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

function committer(): BatchCommitter<any> {
  const made =
    database.kind === 'sqlite' ? sqliteBatchCommitter(database.sqlite) : postgresBatchCommitter(database.pool);
  committers.push(made);
  return made;
}

let seq = 0;
const entry = (ts: string, tenant: number, chave: number, status: number, code: string | null = null): AuditRecord => ({
  request_id: `rollup-${++seq}`,
  ts,
  source: 'api',
  tenant_id: tenant,
  tenant_slug: `t${tenant}`,
  chave_id: chave,
  operator_id: null,
  method: 'GET',
  path: '/v1/ping',
  status,
  error_code: code,
  duracao_ms: 12,
  client_ip: '127.0.0.1',
  body: null,
  detail: null,
  error_message: null,
  response_body: null,
  request_headers: null,
  journal_class: 'verified',
});

async function rows(tenant: number) {
  return (
    await database.db
      .selectFrom('journal_minutes')
      .select(['chave_id', 'minute', 'calls', 's2xx', 's4xx'])
      .where('tenant_id', '=', tenant)
      .orderBy('chave_id')
      .orderBy('minute')
      .execute()
  ).map((r) => ({
    ...r,
    chave_id: Number(r.chave_id),
    calls: Number(r.calls),
    s2xx: Number(r.s2xx),
    s4xx: Number(r.s4xx),
  }));
}

describe('the rollup as the committers write it', () => {
  it('a batch 26 hours later sweeps the minutes past 25 hours, keeps the rest', async () => {
    const c = committer();
    await c.commit(
      [entry('2026-12-01T08:00:10.000Z', 1, 1, 200), entry('2026-12-01T08:00:20.000Z', 1, 1, 404, 'RES_NOT_FOUND')],
      [],
    );
    await c.commit([entry('2026-12-01T20:00:00.000Z', 1, 1, 200)], []);
    expect((await rows(1)).map((r) => r.minute)).toEqual([
      '2026-12-01T08:00',
      '2026-12-01T20:00',
      '2026-12-01T08:00',
      '2026-12-01T20:00',
    ]);
    await c.commit([entry('2026-12-02T10:00:00.000Z', 1, 2, 200)], []);
    // PostgreSQL sweeps just after the batch, off its transaction.
    await expect
      .poll(async () => (await rows(1)).map((r) => `${r.chave_id} ${r.minute}`))
      .toEqual([
        `${CLINIC_ROW} 2026-12-01T20:00`,
        `${CLINIC_ROW} 2026-12-02T10:00`,
        '1 2026-12-01T20:00',
        '2 2026-12-02T10:00',
      ]);
    // The codes' sweep is its own statement: wait for it too.
    await expect
      .poll(async () => database.db.selectFrom('journal_minute_codes').selectAll().where('tenant_id', '=', 1).execute())
      .toEqual([]);
  });

  it.runIf(testDatabaseUrl())('two gateways committing the same minutes at once add up (PostgreSQL)', async () => {
    const a = committer();
    const b = committer();
    const minute = '2026-12-02T11:00';
    const batch = (n: number) =>
      Array.from({ length: n }, (_, i) =>
        entry(
          `${minute}:${String(i % 60).padStart(2, '0')}.000Z`,
          2,
          1 + (i % 3),
          i % 4 === 0 ? 404 : 200,
          i % 4 === 0 ? 'RES_NOT_FOUND' : null,
        ),
      );
    // Small batches take the one-statement path, large ones (over 1,000 entries) the transaction's: both at once.
    await Promise.all([
      ...Array.from({ length: 10 }, () => a.commit(batch(40), [])),
      ...Array.from({ length: 10 }, () => b.commit(batch(40), [])),
      a.commit(batch(1200), []),
      b.commit(batch(1200), []),
    ]);
    const total = 20 * 40 + 2 * 1200;
    const all = await rows(2);
    const clinic = all.find((r) => r.chave_id === CLINIC_ROW)!;
    expect(clinic.calls).toBe(total);
    expect(all.filter((r) => r.chave_id > 0).reduce((n, r) => n + r.calls, 0)).toBe(total);
    expect(clinic.s4xx).toBe(20 * 10 + 2 * 300);
    const codes = await database.db
      .selectFrom('journal_minute_codes')
      .select(['count'])
      .where('tenant_id', '=', 2)
      .where('chave_id', '=', CLINIC_ROW)
      .execute();
    expect(codes.map((c) => Number(c.count))).toEqual([clinic.s4xx]);
  });
});
