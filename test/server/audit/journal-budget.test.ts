import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { spawnStack, stopStack } from '../../helpers/child-stack.ts';
import { rawRequest } from '../../helpers/signed-client.ts';
import { journalRows, unattributedGroups } from '../../helpers/journal.ts';
import {
  DEFAULT_AUDIT_MAX_BYTES,
  DEFAULT_AUDIT_MAX_ROWS,
  DEFAULT_AUDIT_MIN_FREE_BYTES,
  loadConfig,
} from '../../../server/config.ts';
import { NOISE_SHARE } from '../../../server/audit/journal-budget.ts';
import { JOURNAL_TABLES, journalPagesOf } from '../../../server/audit/sqlite-journal.ts';
import { JOURNAL_LIMITS } from '../../../server/audit/bounded.ts';
import { ensureOperator } from '../../../server/operators/index.ts';
import { ConsoleClient } from '../admin/console-client.ts';

/**
 * Issue 19: outsiders cannot fill the journal, evict it or slip past it. Each test starts its own stack
 * with the budget it needs and drives it with real HTTP from several loopback addresses (127.0.0.x).
 */

const longQuery = (n: number) => `/v1/ping?x=${'a'.repeat(n)}`;
const addresses = (n: number) => Array.from({ length: n }, (_, i) => `127.0.0.${i + 2}`);
const verifiedIds = (s: TestStack) =>
  journalRows(s)
    .filter((r) => r.verified === 1)
    .map((r) => r.request_id as string);
/** Settles the budget's shedding (it runs in short chunks after the commits that pushed past the budget). */
async function settle(s: TestStack): Promise<void> {
  s.app.auditWriter.flush();
  await s.app.auditWriter.budget.shed({ pauseMs: 0 });
}

test('AUDIT_MAX_BYTES, AUDIT_MAX_ROWS, AUDIT_MIN_FREE_BYTES, UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: documented defaults, bad values refused', () => {
  const config = loadConfig({});
  expect(config.audit).toMatchObject({
    maxBytes: DEFAULT_AUDIT_MAX_BYTES,
    maxRows: DEFAULT_AUDIT_MAX_ROWS,
    minFreeBytes: DEFAULT_AUDIT_MIN_FREE_BYTES,
  });
  expect([DEFAULT_AUDIT_MAX_BYTES, DEFAULT_AUDIT_MAX_ROWS, DEFAULT_AUDIT_MIN_FREE_BYTES]).toEqual([
    2 * 1024 ** 3,
    5_000_000,
    64 * 1024 ** 2,
  ]);
  expect(config.rateLimit.unauthenticatedPerMinute).toBe(600);
  expect(loadConfig({ AUDIT_MAX_BYTES: '1048576' }).audit.maxBytes).toBe(1_048_576);
  expect(() => loadConfig({ AUDIT_MAX_BYTES: '1000' })).toThrow(/AUDIT_MAX_BYTES/);
  // Below 1 MiB the fixed part (the WAL's share, its index, the empty tables, the margin) would leave little room.
  expect(() => loadConfig({ AUDIT_MAX_BYTES: String(512 * 1024) })).toThrow(/AUDIT_MAX_BYTES/);
  expect(() => loadConfig({ AUDIT_MAX_ROWS: '0' })).toThrow(/AUDIT_MAX_ROWS/);
  expect(() => loadConfig({ AUDIT_MIN_FREE_BYTES: '-1' })).toThrow(/AUDIT_MIN_FREE_BYTES/);
  expect(() => loadConfig({ UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: '0' })).toThrow(
    /UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE/,
  );
});

describe('bounded entries: a 15 KB query', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.stop());

  test('signed: the entry keeps 2 KB of the path and marks the cut', async () => {
    const res = await stack.call({ path: longQuery(15_000) });
    // Refused (ping takes no `x`), yet authenticated: a verified entry, bounded.
    expect(res.status).toBe(400);
    const row = journalRows(stack).find((r) => r.request_id === res.body.meta.request_id)!;
    expect(row.path.length).toBeLessThan(JOURNAL_LIMITS.path + 40);
    expect(row.path).toMatch(/…\[truncado: 15011 caracteres\]$/);
    expect(row.bytes).toBeLessThan(4096);
  });

  test('unsigned, 200 of them: one group with a count and one sample, not 200 rows of 15 KB', async () => {
    const before = journalRows(stack).length;
    for (let i = 0; i < 200; i++) expect((await stack.raw({ path: longQuery(15_000) })).status).toBe(401);
    expect(journalRows(stack).length).toBe(before);
    const groups = unattributedGroups(stack, { status: 401, error_code: 'AUTH_MISSING_HEADER' });
    expect(groups.reduce((sum, g) => sum + g.count, 0)).toBe(200);
    // One group per minute (the run may straddle a minute boundary).
    expect(groups.length).toBeLessThanOrEqual(2);
    for (const g of groups) {
      expect(g.sample.path.length).toBeLessThan(JOURNAL_LIMITS.samplePath + 40);
      expect(g.bytes).toBeLessThan(2048);
    }
  });
});

describe('outsiders cannot evict history (AUDIT_MAX_ROWS=1000)', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ AUDIT_MAX_ROWS: '1000' });
  });
  afterAll(async () => stack?.stop());

  test('3 signed reads, then 1,200 unauthenticated 401s and 1,200 bad signatures under the real key, then a purge: 3 of 3 signed entries left', async () => {
    const signed: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await stack.call({ path: '/v1/pacientes?limit=1' });
      expect(res.status).toBe(200);
      signed.push(res.body.meta.request_id);
    }
    const from = addresses(12);
    await Promise.all(
      from.map(async (localAddress) => {
        for (let i = 0; i < 100; i++) {
          expect((await stack.raw({ path: '/v1/pacientes', localAddress })).status).toBe(401);
          const bad = await stack.call({ path: '/v1/pacientes', localAddress, signature: 'f'.repeat(64) });
          expect([401, 429]).toContain(bad.status);
        }
      }),
    );
    await settle(stack);
    const kept = verifiedIds(stack);
    for (const id of signed) expect(kept).toContain(id);
    // The noise stayed within its share of the cap.
    const { totals } = stack.app.auditWriter.budget.status();
    expect(totals.unverified.rows + totals.unattributed.rows).toBeLessThanOrEqual(1000 * NOISE_SHARE);
    // …and was there: the refusals were journaled (then shed, oldest first).
    expect(stack.app.auditWriter.budget.status().shed_rows_total).toBeGreaterThan(0);
  });

  test("noise shed: the journal warns, still serving; /readyz is ready and says why in the journal's avisos", async () => {
    expect(stack.app.auditWriter.budget.status()).toMatchObject({
      state: 'warning',
      accepting: true,
      reasons: expect.arrayContaining(['noise_shed']),
    });
    expect((await stack.call({ path: '/v1/ping' })).status).toBe(200);
    const ready = await stack.raw({ path: '/readyz' });
    expect(ready.status, ready.text).toBe(200);
    expect(ready.body.data.componentes.journal).toMatchObject({ status: 'up' });
    expect(ready.body.data.componentes.journal.avisos.join(' ')).toMatch(/Ruido nao autenticado descartado/);
  });
});

/**
 * The journal's share of DATA_DIR, read from the files as they are (no checkpoint forced): gateway.db less
 * the pages its other tables take (SQLite's page map; free pages count as the journal's), and the WAL and
 * its index whole. gateway.db is taken at the larger of its file size and its size in pages (pages still
 * only in the WAL are then counted twice: an upper bound).
 */
function journalShareOfDataDir(s: TestStack): { total: number; wal: number } {
  const size = (suffix: string) => {
    const file = path.join(s.dataDir, `gateway.db${suffix}`);
    return existsSync(file) ? statSync(file).size : 0;
  };
  const db = s.gatewayDb.sqlite;
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const journal = db
    .prepare(`SELECT name FROM sqlite_schema WHERE tbl_name IN (${JOURNAL_TABLES.map(() => '?').join(', ')})`)
    .pluck()
    .all(...JOURNAL_TABLES) as string[];
  const others = db
    .prepare(`SELECT count(*) FROM dbstat WHERE name NOT IN (${journal.map(() => '?').join(', ')})`)
    .pluck()
    .get(...journal) as number;
  const database = Math.max(size(''), (db.pragma('page_count', { simple: true }) as number) * pageSize);
  return { total: database - others * pageSize + size('-wal') + size('-shm'), wal: size('-wal') };
}

/** A verified entry of about 10 KB or more: a signed write refused for its 15 unknown fields of 500 characters, its body kept. */
const heavySignedEntry = (s: TestStack, n: number, timestamp?: number) =>
  s.call({
    method: 'POST',
    timestamp,
    path: '/v1/pacientes',
    body: Object.fromEntries(
      Array.from({ length: 15 }, (_, i) => [`campo_${i}`, `${n}:${i}:`.padEnd(500, 'abcdefghij')]),
    ),
    idempotencyKey: randomUUID(),
  });

describe('a 30-minute flood at a small budget (AUDIT_MAX_BYTES=1 MiB), minutes moved on the appliance clock', () => {
  const MAX_BYTES = 1024 * 1024;
  let stack: TestStack;
  beforeAll(async () => {
    // The address limiter out of the way: every refusal reaches the journal, more entries per address and minute than
    // a flood at the bench's top rate leaves (there, past 600 refusals a minute, one 429 group a minute per address).
    stack = await startTestStack({
      AUDIT_MAX_BYTES: String(MAX_BYTES),
      UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: '100000',
    });
  });
  afterAll(async () => stack?.stop());

  test("no attributed entry is pushed out; the journal's files on DATA_DIR (its pages, the WAL and its index) never pass the budget", async () => {
    const signed: string[] = [];
    const from = addresses(8);
    let refused = 0;
    let largest = 0;
    let largestWal = 0;
    const measure = () => {
      const share = journalShareOfDataDir(stack);
      largest = Math.max(largest, share.total);
      largestWal = Math.max(largestWal, share.wal);
    };
    measure();
    for (let minute = 0; minute < 30; minute++) {
      const ts = Math.floor(stack.clock.now() / 1000);
      const res = await stack.call({ method: 'POST', path: '/v1/ping', body: { minuto: minute }, timestamp: ts });
      expect(res.status, res.text).toBe(200);
      signed.push(res.body.meta.request_id);
      await Promise.all(
        from.map(async (localAddress) => {
          for (let i = 0; i < 6; i++) {
            const unsigned = await stack.raw({ path: longQuery(15_000), localAddress });
            refused += unsigned.status === 401 ? 1 : 0;
            const bad = await stack.call({
              method: 'POST',
              path: '/v1/pacientes',
              localAddress,
              timestamp: ts,
              body: { lixo: 'x'.repeat(7000), i },
              signature: '0'.repeat(64),
            });
            refused += bad.status === 401 ? 1 : 0;
          }
        }),
      );
      await stack.clock.advance(60_000);
      measure();
    }
    await settle(stack);
    measure();
    expect(refused).toBe(30 * 8 * 12);
    // Every attributed (signed) entry is still there.
    const kept = verifiedIds(stack);
    for (const id of signed) expect(kept).toContain(id);
    // On DATA_DIR, measured on the files after every minute: never past the budget, the WAL within its share.
    expect(largest).toBeLessThanOrEqual(MAX_BYTES);
    // The budget's own count of its pages is SQLite's (nothing drifted), and the weights are the rows' own.
    const status = stack.app.auditWriter.budget.status();
    const pageSize = stack.gatewayDb.sqlite.pragma('page_size', { simple: true }) as number;
    expect(status.disk.pages_bytes).toBe(journalPagesOf(stack.gatewayDb.sqlite) * pageSize);
    expect(status.disk.footprint_bytes).toBeLessThanOrEqual(MAX_BYTES);
    expect(largestWal).toBeLessThanOrEqual(status.disk.wal_share_bytes);
    const { totals } = status;
    const all = totals.verified.bytes + totals.unverified.bytes + totals.unattributed.bytes;
    expect(all).toBeLessThanOrEqual(MAX_BYTES);
    expect(totals.unverified.bytes + totals.unattributed.bytes).toBeLessThanOrEqual(MAX_BYTES * NOISE_SHARE);
    const sum = stack.gatewayDb.sqlite.prepare('SELECT coalesce(SUM(bytes), 0) FROM audit_log').pluck().get() as number;
    const groups = stack.gatewayDb.sqlite
      .prepare('SELECT coalesce(SUM(bytes), 0) FROM audit_unattributed')
      .pluck()
      .get() as number;
    expect(sum + groups).toBe(all);
    // The noise was there, and was shed (oldest first) to stay within the budget.
    expect(status.shed_rows_total).toBeGreaterThan(0);
  }, 120_000);
});

describe('verified history meets the disk line (AUDIT_MAX_BYTES=1 MiB): refused, never evicted, the files within the budget', () => {
  const MAX_BYTES = 1024 * 1024;
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ AUDIT_MAX_BYTES: String(MAX_BYTES) });
  });
  afterAll(async () => stack?.stop());

  test("entries of 10 KB and more, with noise beside them, until /v1 answers 503: the journal's files stay under AUDIT_MAX_BYTES and /readyz names disk_full", async () => {
    const signed: string[] = [];
    let largest = 0;
    let res = await heavySignedEntry(stack, 0);
    for (let n = 1; res.status === 400 && n < 400; n++) {
      signed.push(res.body.meta.request_id);
      // Noise beside it: bad signatures under the real key, each an unverified entry of several KB.
      for (let i = 0; i < 2; i++) {
        const bad = await stack.call({
          method: 'POST',
          path: '/v1/pacientes',
          localAddress: '127.0.0.90',
          body: { lixo: 'x'.repeat(7000), n, i },
          signature: '0'.repeat(64),
        });
        expect(bad.status).toBe(401);
      }
      largest = Math.max(largest, journalShareOfDataDir(stack).total);
      res = await heavySignedEntry(stack, n);
    }
    await settle(stack);
    largest = Math.max(largest, journalShareOfDataDir(stack).total);
    expect(res.status, res.text).toBe(503);
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    const status = stack.app.auditWriter.budget.status();
    expect(status.reasons).toContain('disk_full');
    // The disk line came first: by weight, verified entries are still under the budget.
    expect(status.totals.verified.bytes).toBeLessThan(MAX_BYTES);
    // …and it sheds noise below its own share by weight: all of it, once verified history alone reaches the line.
    expect(status.shed_rows_total).toBeGreaterThan(0);
    expect(status.totals.unverified.rows + status.totals.unattributed.rows).toBe(0);
    expect(largest).toBeLessThanOrEqual(MAX_BYTES);
    const kept = verifiedIds(stack);
    for (const id of signed) expect(kept).toContain(id);
    const ready = await stack.raw({ path: '/readyz' });
    expect(ready.status).toBe(503);
    expect(ready.body.error.details.componentes.journal).toMatchObject({ status: 'down', erro: 'journal_full' });
    expect(ready.body.error.details.componentes.journal.avisos.join(' ')).toMatch(/AUDIT_MAX_BYTES/);
  }, 120_000);
});

describe('verified history fills the budget (AUDIT_MAX_ROWS=25): refused, never evicted', () => {
  const PASSWORD = 'journal-full-password';
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ AUDIT_MAX_ROWS: '25' });
    await ensureOperator(stack.gatewayDb.db, 'operador', PASSWORD);
  });
  afterAll(async () => stack?.stop());

  test('at the cap /v1 answers 503 SERVICE_UNAVAILABLE with Retry-After, executes nothing, deletes nothing; the console and /readyz say why', async () => {
    const signed: string[] = [];
    let res = await stack.call({ path: '/v1/ping' });
    while (res.status === 200 && signed.length < 100) {
      signed.push(res.body.meta.request_id);
      res = await stack.call({ path: '/v1/ping' });
    }
    await settle(stack);
    expect(signed.length).toBeGreaterThanOrEqual(24);
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    // A write is not executed: its Idempotency-Key is free afterwards and no patient was created.
    const key = randomUUID();
    const write = await stack.call({
      method: 'POST',
      path: '/v1/pacientes',
      body: { nome: 'Paciente Recusado', data_nascimento: '1980-01-01' },
      idempotencyKey: key,
    });
    expect(write.status).toBe(503);
    expect(
      stack.gatewayDb.sqlite.prepare('SELECT COUNT(*) FROM idempotency_keys WHERE idem_key = ?').pluck().get(key),
    ).toBe(0);
    // Nothing verified was deleted to make room.
    const kept = verifiedIds(stack);
    for (const id of signed) expect(kept).toContain(id);
    // The refusals themselves are unattributed noise (they cannot grow verified history; at this cap they are shed at once).
    expect(journalRows(stack).filter((r) => r.status === 503)).toEqual([]);
    const console = new ConsoleClient(stack.gatewayUrl);
    expect((await console.login('operador', PASSWORD)).status).toBe(200);
    const storage = await console.call('GET', '/admin/api/audit/storage');
    expect(storage.body.data.journal).toMatchObject({ state: 'full', accepting: false });
    expect(storage.body.data.journal.avisos.join(' ')).toMatch(/cheio/);
    const ready = await stack.raw({ path: '/readyz' });
    expect(ready.status).toBe(503);
    expect(ready.body.error.details.componentes.journal).toMatchObject({ status: 'down', erro: 'journal_full' });
    // The wait /v1's refusals give (issue 21 § 4).
    expect(ready.headers['retry-after']).toBe('30');
  });
});

describe('free-space guard (AUDIT_MIN_FREE_BYTES above what the disk has)', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ AUDIT_MIN_FREE_BYTES: String(2 ** 53 - 1) });
  });
  afterAll(async () => stack?.stop());

  test('noise is shed, a warning is raised, and /v1 is refused while gateway.db has no free page to grow into', async () => {
    for (let i = 0; i < 20; i++) await stack.raw({ path: '/v1/ping' });
    await settle(stack);
    expect(unattributedGroups(stack)).toEqual([]);
    const status = stack.app.auditWriter.budget.status();
    expect(status.avisos.join(' ')).toMatch(/Pouco espaco livre/);
    const res = await stack.call({ path: '/v1/ping' });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    const ready = await stack.raw({ path: '/readyz' });
    expect(ready.body.error.details.componentes.journal).toMatchObject({ status: 'down', erro: 'journal_full' });
  });
});

describe('the warning in the log of the appliance (its own process, LOG_LEVEL=warn as in production)', () => {
  let dataDir: string;
  let child: ChildProcess | undefined;
  let baseUrl: string;
  let output = '';
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'gw-journal-log-'));
    ({ child, baseUrl } = await spawnStack(
      dataDir,
      { LOG_LEVEL: 'warn', AUDIT_MAX_ROWS: '100' },
      { output: (chunk) => (output += chunk) },
    ));
  }, 60_000);
  afterAll(async () => {
    await stopStack(child);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('unauthenticated noise past its share (10 of 100 rows) is shed: one line says so and one the change of state, with the reason', async () => {
    // 15 addresses, one group each: past the noise share of AUDIT_MAX_ROWS.
    for (const localAddress of Array.from({ length: 15 }, (_, i) => `127.0.0.${120 + i}`)) {
      expect((await rawRequest(baseUrl, { path: '/v1/ping', localAddress })).status).toBe(401);
    }
    for (let i = 0; i < 100 && !/state ok -> warning/.test(output); i++) await sleep(100);
    expect(output).toMatch(/audit journal: \d+ unauthenticated entries shed to keep the journal within its budget/);
    expect(output).toMatch(/audit journal: state ok -> warning: Ruido nao autenticado descartado/);
    // The warning is in /readyz too, and the appliance still serves.
    const ready = await rawRequest(baseUrl, { path: '/readyz' });
    expect(ready.status).toBe(200);
    expect(ready.body.data.componentes.journal.avisos.join(' ')).toMatch(/Ruido nao autenticado descartado/);
  });
});
