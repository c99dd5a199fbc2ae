import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openGatewayDb } from '../server/db/database.ts';
import { openPostgresDb } from '../server/db/postgres.ts';
import type { GatewayDb } from '../server/db/database.ts';
import { sqliteBatchCommitter, type AuditRecord, type BatchCommitter } from '../server/audit/audit-writer.ts';
import { postgresBatchCommitter } from '../server/audit/postgres-journal.ts';
import { keyTrafficStats, trafficStats } from '../server/audit/journal-stats.ts';
import { currentAlerts } from '../server/alerts/alerts.ts';
import { log, withOwnPostgres } from './harness.ts';

/**
 * Issue 31 § 3: each chart query at 1,000,000 journal entries (BENCH_JOURNAL_ENTRIES to change it), on gateway.db
 * and on a PostgreSQL of its own. The entries go in through the journal's own batch committers (5,000 a batch, the
 * rollup with them), spread over the last 24 hours, 4 clinics of 50 keys each; then each query runs
 * BENCH_STATS_RUNS times (default 20) and its median and slowest are reported against the 200 ms target.
 * `BENCH_ONLY=journal-stats npm run bench`.
 */

const ENTRIES = Number(process.env.BENCH_JOURNAL_ENTRIES ?? 1_000_000);
const RUNS = Number(process.env.BENCH_STATS_RUNS ?? 20);
const BATCH = 5000;
const CLINICS = 4;
const KEYS_PER_CLINIC = 50;
const TARGET_MS = 200;

export interface StatsQueryTime {
  database: 'sqlite' | 'postgres';
  query: string;
  median_ms: number;
  max_ms: number;
  met: boolean;
}

export interface JournalStatsBench {
  entries: number;
  fill_s: Record<string, number>;
  rollup_rows: Record<string, number>;
  queries: StatsQueryTime[];
}

/** The entries of the last 24 hours, oldest first: mostly 2xx, some 4xx with their codes, a few 5xx. */
function* entries(now: number): Generator<AuditRecord[]> {
  const span = 86_400_000;
  let batch: AuditRecord[] = [];
  for (let i = 0; i < ENTRIES; i++) {
    const tenant = 1 + (i % CLINICS);
    const key = (tenant - 1) * KEYS_PER_CLINIC + 1 + ((Math.floor(i / CLINICS) * 7) % KEYS_PER_CLINIC);
    const r = (i * 2654435761) % 1000;
    const status = r < 880 ? 200 : r < 900 ? 201 : r < 940 ? 404 : r < 970 ? 400 : r < 990 ? 401 : 503;
    batch.push({
      request_id: `bench-${i}`,
      ts: new Date(now - span + Math.floor((i / ENTRIES) * span)).toISOString(),
      source: 'api',
      tenant_id: tenant,
      tenant_slug: `bench-${tenant}`,
      chave_id: key,
      operator_id: null,
      method: 'GET',
      path: '/v1/pacientes?limit=20',
      status,
      error_code:
        status === 404
          ? 'RES_NOT_FOUND'
          : status === 400
            ? 'VAL_INVALID_PARAM'
            : status === 401
              ? 'AUTH_INVALID_SIGNATURE'
              : status === 503
                ? 'BACKEND_UNAVAILABLE'
                : null,
      duracao_ms: 1 + (r % 97) + (r > 990 ? 1500 : 0),
      client_ip: '127.0.0.1',
      body: null,
      detail: null,
      error_message: null,
      response_body: null,
      request_headers: null,
      journal_class: status === 401 ? 'unverified' : 'verified',
    });
    if (batch.length === BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

async function fill(committer: BatchCommitter<any>, now: number): Promise<number> {
  const start = performance.now();
  let done = 0;
  for (const batch of entries(now)) {
    await committer.commit(batch, []);
    done += batch.length;
    if (done % 200_000 === 0) log(`  ${done.toLocaleString('en')} entries`);
  }
  return (performance.now() - start) / 1000;
}

async function time(database: 'sqlite' | 'postgres', query: string, run: () => Promise<unknown>) {
  await run();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  const max = times[times.length - 1];
  return { database, query, median_ms: round(median), max_ms: round(max), met: max <= TARGET_MS };
}

const round = (ms: number) => Math.round(ms * 10) / 10;

async function queries(database: 'sqlite' | 'postgres', db: GatewayDb, now: number): Promise<StatsQueryTime[]> {
  const clinic = { tenantId: 1, tenantSlug: 'bench-1', chaveId: null };
  const key = { ...clinic, chaveId: 1 };
  return [
    await time(database, 'clinic, 1 h (1-minute buckets)', () => trafficStats(db, clinic, '1h', now)),
    await time(database, 'clinic, 24 h (15-minute buckets)', () => trafficStats(db, clinic, '24h', now)),
    await time(database, 'key, 1 h', () => trafficStats(db, key, '1h', now)),
    await time(database, 'key, 24 h', () => trafficStats(db, key, '24h', now)),
    await time(database, 'sparklines of the clinic keys, 1 h', () => keyTrafficStats(db, 1, '1h', now)),
    await time(database, 'alerts (every clinic)', () => currentAlerts(db, now)),
  ];
}

async function rollupRows(db: GatewayDb): Promise<number> {
  const row = await db
    .selectFrom('journal_minutes')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function measureJournalStats(): Promise<JournalStatsBench> {
  const now = Date.now();
  const result: JournalStatsBench = { entries: ENTRIES, fill_s: {}, rollup_rows: {}, queries: [] };
  const sqliteDir = mkdtempSync(path.join(tmpdir(), 'gw-bench-stats-sqlite-'));
  try {
    log(`journal stats on gateway.db: ${ENTRIES.toLocaleString('en')} entries…`);
    const opened = await openGatewayDb(sqliteDir);
    try {
      result.fill_s.sqlite = round(await fill(sqliteBatchCommitter(opened.sqlite), now));
      result.rollup_rows.sqlite = await rollupRows(opened.db);
      result.queries.push(...(await queries('sqlite', opened.db, now)));
    } finally {
      await opened.close();
    }
  } finally {
    rmSync(sqliteDir, { recursive: true, force: true });
  }
  log(`journal stats on PostgreSQL: ${ENTRIES.toLocaleString('en')} entries…`);
  await withOwnPostgres('gw-bench-stats-pg-', async (server) => {
    const opened = await openPostgresDb({ url: server.url, poolSize: 4, applicationName: 'bench journal-stats' });
    const committer = postgresBatchCommitter(opened.pool);
    try {
      result.fill_s.postgres = round(await fill(committer, now));
      result.rollup_rows.postgres = await rollupRows(opened.db);
      result.queries.push(...(await queries('postgres', opened.db, now)));
    } finally {
      await committer.close();
      await opened.close();
    }
  });
  return result;
}

export function journalStatsTable(r: JournalStatsBench): string {
  const lines = [
    `Chart queries at ${r.entries.toLocaleString('en')} journal entries (last 24 h, ${CLINICS} clinics × ${KEYS_PER_CLINIC} keys; median and slowest of ${RUNS}, target ≤ ${TARGET_MS} ms)`,
    `filled through the journal's committers: gateway.db ${r.fill_s.sqlite} s, PostgreSQL ${r.fill_s.postgres} s; rollup rows: ${r.rollup_rows.sqlite} / ${r.rollup_rows.postgres}`,
    '| database | query | median | slowest | ≤ 200 ms |',
    '|---|---|---:|---:|---|',
    ...r.queries.map(
      (q) => `| ${q.database} | ${q.query} | ${q.median_ms} ms | ${q.max_ms} ms | ${q.met ? 'yes' : '**no**'} |`,
    ),
  ];
  return lines.join('\n');
}

/** `BENCH_ONLY=journal-stats npm run bench [-- --json]`. */
export async function reportJournalStats(json: boolean): Promise<void> {
  const r = await measureJournalStats();
  console.log(json ? JSON.stringify({ journal_stats: r }, null, 2) : journalStatsTable(r));
}
