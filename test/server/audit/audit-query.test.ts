import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openGatewayDb, type OpenedGatewayDb } from '../../../server/db/database.ts';
import { auditPageQuery, queryAuditPage, type RangeBounds } from '../../../server/audit/audit-query.ts';
import { auditQuerySchema } from '../../../contracts/admin/audit.ts';

const ROWS = 1_000_000;
let dir: string;
let opened: OpenedGatewayDb;

/** The plan SQLite would run for the console's page query with these filters. */
function plan(filters: Record<string, string>, tenantId?: number, bounds: RangeBounds = 'exact'): string {
  const q = auditQuerySchema.parse(filters);
  const compiled = auditPageQuery(opened.db, { ...q, tenantId }, bounds).compile();
  const rows = opened.sqlite
    .prepare(`EXPLAIN QUERY PLAN ${compiled.sql}`)
    .all(...(compiled.parameters as unknown[])) as Array<{ detail: string }>;
  return rows.map((r) => r.detail).join('\n');
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'gw-audit-1m-'));
  opened = await openGatewayDb(dir);
  // One transaction, one prepared statement: a million rows in a few seconds.
  const insert = opened.sqlite.prepare(
    `INSERT INTO audit_log (request_id, ts, source, tenant_id, tenant_slug, chave_id, operator_id, method, path, status,
      error_code, duracao_ms, client_ip, body, detail) VALUES (?, ?, 'api', ?, ?, ?, NULL, ?, ?, ?, ?, ?, '10.0.0.1', NULL, NULL)`,
  );
  const start = Date.parse('2026-10-25T00:00:00.000Z');
  opened.sqlite.transaction(() => {
    for (let i = 0; i < ROWS; i++) {
      const tenant = (i % 5) + 1;
      const status = i % 50 === 0 ? 401 : i % 97 === 0 ? 503 : 200;
      insert.run(
        i.toString(16).padStart(24, '0'),
        new Date(start + i * 2000).toISOString(),
        tenant,
        `clinica-${tenant}`,
        (i % 40) + 1,
        i % 3 === 0 ? 'POST' : 'GET',
        i % 3 === 0 ? '/v1/pacientes' : `/v1/exames/${i}`,
        status,
        status === 401 ? 'AUTH_INVALID_SIGNATURE' : status === 503 ? 'SERVICE_UNAVAILABLE' : null,
        i % 200,
      );
    }
  })();
  opened.sqlite.exec('ANALYZE');
}, 240_000);

afterAll(async () => {
  await opened?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('audit browser over a million rows', () => {
  it.each([
    // No filter, and a success status (not in the partial status index): the primary key, newest id first.
    [{}, undefined, 'SCAN audit_log'],
    [{ status: '200' }, undefined, 'SCAN audit_log'],
    [{ tenant: 'clinica-3' }, 3, 'audit_tenant_id_idx (tenant_id=?)'],
    [{ chave_id: '7' }, undefined, 'audit_key_id_idx (chave_id=?)'],
    [{ status: '401' }, undefined, 'audit_status_id_idx (status=?)'],
    [{ error_code: 'SERVICE_UNAVAILABLE' }, undefined, 'audit_error_id_idx (error_code=?)'],
    [{ request_id: '0000000000000000000f4240' }, undefined, 'audit_request_id_idx (request_id=?)'],
    // A time range bounds the walk to the ids found in the ts index (covering: no row is read for them).
    [
      { tenant: 'clinica-3', from: '2026-11-01T00:00:00Z', to: '2026-11-02T00:00:00Z', method: 'POST' },
      3,
      'audit_tenant_id_idx (tenant_id=? AND id>? AND id<?)',
    ],
    [
      { chave_id: '7', from: '2026-10-26T00:00:00Z', to: '2026-10-27T00:00:00Z' },
      undefined,
      'audit_key_id_idx (chave_id=? AND id>? AND id<?)',
    ],
    [
      { from: '2026-11-01T00:00:00Z', to: '2026-11-02T00:00:00Z' },
      undefined,
      'USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)',
    ],
    [{ to: '2026-10-26T00:00:00Z' }, undefined, 'USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)'],
  ] as Array<[Record<string, string>, number | undefined, string]>)(
    'filters %j read an index in arrival order and never sort',
    (filters, tenantId, index) => {
      const text = plan(filters, tenantId);
      expect(text).toContain(index);
      // Newest first is the order of the index itself: no sort, whatever the filters.
      expect(text).not.toMatch(/TEMP B-TREE/);
      if (filters.from || filters.to) {
        expect(text.match(/USING COVERING INDEX audit_ts_idx/g)).toHaveLength(2);
      }
      // Only the unfiltered list and a success status walk the whole table (and stop after one page).
      if (Object.keys(filters).length > 0 && filters.status !== '200') expect(text).not.toMatch(/^SCAN audit_log$/m);
    },
  );

  it.each([
    [{ from: '2026-10-26T00:00:00Z' }, undefined, 'SCAN audit_log', 0],
    [
      { tenant: 'clinica-3', from: '2026-10-26T00:00:00Z', to: '2026-11-10T00:00:00Z' },
      3,
      'audit_tenant_id_idx (tenant_id=? AND id<?)',
      1,
    ],
  ] as Array<[Record<string, string>, number | undefined, string, number]>)(
    'a wide range %j only caps the walk at its newest id, when it has an end',
    (filters, tenantId, index, subqueries) => {
      const text = plan(filters, tenantId, 'upper');
      expect(text).toContain(index);
      expect(text).not.toMatch(/TEMP B-TREE/);
      expect(text.match(/USING COVERING INDEX audit_ts_idx/g) ?? []).toHaveLength(subqueries);
    },
  );

  it.each([
    // Narrow (one day, ~43,000 rows of which a fortieth are key 7's): exact bounds.
    { chave_id: '7', from: '2026-10-26T00:00:00Z', to: '2026-10-26T06:00:00Z' },
    // Wide (everything since the first day, or 15 days ending long ago): the walk from the newest, capped.
    { tenant: 'clinica-3', from: '2026-10-26T00:00:00Z' },
    { chave_id: '7', from: '2026-10-25T00:00:00Z', to: '2026-11-10T00:00:00Z' },
  ])('a time range %j answers exactly its rows, newest arrival first', async (filters) => {
    const q = auditQuerySchema.parse({ ...filters, limit: '60' });
    const tenantId = filters.tenant ? 3 : undefined;
    const page = await queryAuditPage(opened.db, { ...q, tenantId });
    // The same rows read without any index trick.
    const where = [
      ...(tenantId ? [`tenant_id = ${tenantId}`] : []),
      ...(filters.chave_id ? [`chave_id = ${Number(filters.chave_id)}`] : []),
      `ts >= '${new Date(filters.from).toISOString()}'`,
      ...(filters.to ? [`ts <= '${new Date(filters.to).toISOString()}'`] : []),
    ].join(' AND ');
    const expected = opened.sqlite
      .prepare(`SELECT id FROM audit_log NOT INDEXED WHERE ${where} ORDER BY id DESC LIMIT 60`)
      .all() as Array<{ id: number }>;
    expect(page.items.map((i) => i.id)).toEqual(expected.map((r) => r.id));
    expect(page.items).toHaveLength(60);
  });

  it('pages with a cursor without gaps or repeats', async () => {
    const q = auditQuerySchema.parse({ tenant: 'clinica-2', status: '200', limit: '100' });
    const seen = new Set<number>();
    let cursor: string | undefined;
    for (let page = 0; page < 5; page++) {
      const result = await queryAuditPage(opened.db, { ...q, tenantId: 2, cursor });
      expect(result.items).toHaveLength(100);
      for (const item of result.items) {
        expect(item.tenant_id).toBe(2);
        expect(seen.has(item.id)).toBe(false);
        seen.add(item.id);
      }
      cursor = result.next_cursor ?? undefined;
    }
    const ids = [...seen];
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
  });
});

describe('arrival order after the appliance clock was moved back', () => {
  let small: OpenedGatewayDb;
  let smallDir: string;

  beforeAll(async () => {
    smallDir = mkdtempSync(path.join(tmpdir(), 'gw-audit-order-'));
    small = await openGatewayDb(smallDir);
    const insert = small.sqlite.prepare(
      `INSERT INTO audit_log (request_id, ts, source, tenant_id, tenant_slug, chave_id, method, path, status, duracao_ms, client_ip)
       VALUES (?, ?, 'api', 1, 'demo', 9, 'GET', '/v1/ping', 200, 1, '127.0.0.1')`,
    );
    // Real time, then 25 h ahead (clock moved), then real time again (clock reset): ts goes back, ids go on.
    insert.run('before-shift', '2026-11-25T10:00:00.000Z');
    insert.run('while-shifted-1', '2026-11-26T11:00:00.000Z');
    insert.run('while-shifted-2', '2026-11-26T11:00:05.000Z');
    insert.run('after-reset-1', '2026-11-25T10:05:00.000Z');
    insert.run('after-reset-2', '2026-11-25T10:06:00.000Z');
  });

  afterAll(async () => {
    await small?.close();
    if (smallDir) rmSync(smallDir, { recursive: true, force: true });
  });

  const requestIds = (page: { items: Array<{ request_id: string }> }) => page.items.map((i) => i.request_id);
  const arrival = ['after-reset-2', 'after-reset-1', 'while-shifted-2', 'while-shifted-1', 'before-shift'];

  it.each([{}, { tenant: 'demo' }, { chave_id: '9' }])(
    'the newest arrival comes first, whatever its ts (filters %j)',
    async (filters) => {
      const q = auditQuerySchema.parse(filters);
      const page = await queryAuditPage(small.db, { ...q, tenantId: filters.tenant ? 1 : undefined });
      expect(requestIds(page)).toEqual(arrival);
    },
  );

  it('pages by arrival: the cursor continues below the last id shown', async () => {
    const first = await queryAuditPage(small.db, auditQuerySchema.parse({ limit: '2' }));
    expect(requestIds(first)).toEqual(arrival.slice(0, 2));
    const second = await queryAuditPage(small.db, {
      ...auditQuerySchema.parse({ limit: '2' }),
      cursor: first.next_cursor!,
    });
    expect(requestIds(second)).toEqual(arrival.slice(2, 4));
  });

  it('a time range keeps the rows whose ts is in it, in arrival order, shifted rows included', async () => {
    const q = auditQuerySchema.parse({ from: '2026-11-25T10:00:00Z', to: '2026-11-25T10:05:30Z' });
    expect(requestIds(await queryAuditPage(small.db, q))).toEqual(['after-reset-1', 'before-shift']);
    const shifted = auditQuerySchema.parse({ from: '2026-11-26T00:00:00Z' });
    expect(requestIds(await queryAuditPage(small.db, shifted))).toEqual(['while-shifted-2', 'while-shifted-1']);
    const none = auditQuerySchema.parse({ from: '2027-01-01T00:00:00Z' });
    expect(requestIds(await queryAuditPage(small.db, none))).toEqual([]);
  });

  it('reads a cursor of the previous release (ts|id) by its id', async () => {
    const all = await queryAuditPage(small.db, auditQuerySchema.parse({}));
    const third = all.items[2];
    const legacy = Buffer.from(`${third.ts}|${third.id}`).toString('base64url');
    const page = await queryAuditPage(small.db, { ...auditQuerySchema.parse({}), cursor: legacy });
    expect(requestIds(page)).toEqual(arrival.slice(3));
  });
});
