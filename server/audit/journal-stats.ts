import { sql } from 'kysely';
import type { GatewayDb } from '../db/database.ts';
import { isPostgres } from '../db/dialect.ts';
import { CLINIC_ROW, LATENCY_BOUNDS_MS, LATENCY_BUCKETS, LATENCY_COLUMNS } from './journal-rollup.ts';
import {
  BUCKET_SECONDS,
  WINDOW_SECONDS,
  type KeyStats,
  type StatsAnswer,
  type StatsWindow,
} from '../../contracts/admin/stats.ts';

// The traffic charts' queries (issue 31 § 3): read the journal's rollup (journal-rollup.ts), never audit_log, so
// each one reads at most (keys × minutes of the window) rows whatever the journal holds (bench/journal-stats.ts).

const minuteOf = (ms: number): string => new Date(ms).toISOString().slice(0, 16);
const msOfMinute = (minute: string): number => Date.parse(`${minute}:00.000Z`);

/** p-quantile (0–1) of a latency histogram, interpolated inside its bucket; null without calls. */
export function quantileMs(histogram: ArrayLike<number>, q: number): number | null {
  let total = 0;
  for (let i = 0; i < histogram.length; i++) total += histogram[i];
  if (total === 0) return null;
  const target = q * total;
  let below = 0;
  for (let i = 0; i < histogram.length; i++) {
    const count = histogram[i];
    if (count > 0 && below + count >= target) {
      const lower = i === 0 ? 0 : LATENCY_BOUNDS_MS[i - 1];
      // The open last bucket answers its lower bound: "at least 10 s".
      if (i >= LATENCY_BOUNDS_MS.length) return lower;
      const upper = LATENCY_BOUNDS_MS[i];
      return Math.round((lower + ((upper - lower) * (target - below)) / count) * 10) / 10;
    }
    below += count;
  }
  return LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1];
}

/** The window's buckets: aligned on the bucket size, the last one holding `now`. */
export function windowOf(window: StatsWindow, now: number): { from: number; to: number; bucketMs: number } {
  const bucketMs = BUCKET_SECONDS[window] * 1000;
  const to = (Math.floor(now / bucketMs) + 1) * bucketMs;
  return { from: to - WINDOW_SECONDS[window] * 1000, to, bucketMs };
}

interface MinuteRow {
  minute: string;
  calls: number | string;
  s2xx: number | string;
  s3xx: number | string;
  s4xx: number | string;
  s5xx: number | string;
  [lat: string]: number | string;
}

/**
 * gateway.db's planner, without statistics, would rather walk the primary key in GROUP BY order than range over
 * the few minutes asked: it is told which index (PostgreSQL's planner has its statistics).
 */
const indexedBy = (db: GatewayDb, index: string) => (isPostgres(db) ? sql`` : sql.raw(` INDEXED BY ${index}`));

const latencySums = sql.raw(LATENCY_COLUMNS.map((c) => `sum(${c}) AS ${c}`).join(', '));

/** Calls per status class, refusals per code, p50/p95 per bucket and over the window, of a clinic or one of its keys. */
export async function trafficStats(
  db: GatewayDb,
  scope: { tenantId: number; tenantSlug: string; chaveId: number | null },
  window: StatsWindow,
  now: number,
): Promise<StatsAnswer> {
  const { from, to, bucketMs } = windowOf(window, now);
  const fromMinute = minuteOf(from);
  const toMinute = minuteOf(to);
  // A clinic's chart reads its own row per minute (CLINIC_ROW), a key's its row: one row a minute either way.
  const key = sql` AND chave_id = ${scope.chaveId ?? CLINIC_ROW}`;
  const [minutes, codes] = await Promise.all([
    sql<MinuteRow>`SELECT minute, sum(calls) AS calls, sum(s2xx) AS s2xx, sum(s3xx) AS s3xx, sum(s4xx) AS s4xx,
      sum(s5xx) AS s5xx, ${latencySums}
      FROM journal_minutes WHERE tenant_id = ${scope.tenantId}${key} AND minute >= ${fromMinute} AND minute < ${toMinute}
      GROUP BY minute`.execute(db),
    sql<{ code: string; count: number | string }>`SELECT code, sum(count) AS count FROM journal_minute_codes
      WHERE tenant_id = ${scope.tenantId}${key} AND minute >= ${fromMinute} AND minute < ${toMinute}
      GROUP BY code`.execute(db),
  ]);
  const buckets = Math.round((to - from) / bucketMs);
  const classes = Array.from({ length: buckets }, () => [0, 0, 0, 0]);
  const histograms = Array.from({ length: buckets }, () => new Array<number>(LATENCY_BUCKETS).fill(0));
  const total = new Array<number>(LATENCY_BUCKETS).fill(0);
  let calls = 0;
  for (const row of minutes.rows) {
    const i = Math.floor((msOfMinute(row.minute) - from) / bucketMs);
    if (i < 0 || i >= buckets) continue;
    classes[i][0] += Number(row.s2xx);
    classes[i][1] += Number(row.s3xx);
    classes[i][2] += Number(row.s4xx);
    classes[i][3] += Number(row.s5xx);
    calls += Number(row.calls);
    for (let b = 0; b < LATENCY_BUCKETS; b++) {
      const n = Number(row[LATENCY_COLUMNS[b]]);
      histograms[i][b] += n;
      total[b] += n;
    }
  }
  const refusals = codes.rows
    .map((r) => ({ code: r.code, count: Number(r.count) }))
    .filter((r) => r.count > 0)
    .sort((a, b) => b.count - a.count || (a.code < b.code ? -1 : 1));
  return {
    window,
    bucket_seconds: bucketMs / 1000,
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    tenant_slug: scope.tenantSlug,
    chave_id: scope.chaveId,
    series: classes.map(([s2xx, s3xx, s4xx, s5xx], i) => ({
      t: new Date(from + i * bucketMs).toISOString(),
      s2xx,
      s3xx,
      s4xx,
      s5xx,
      p50_ms: quantileMs(histograms[i], 0.5),
      p95_ms: quantileMs(histograms[i], 0.95),
    })),
    refusals,
    totals: {
      calls,
      refusals: refusals.reduce((sum, r) => sum + r.count, 0),
      p50_ms: quantileMs(total, 0.5),
      p95_ms: quantileMs(total, 0.95),
    },
  };
}

/** Per key of the clinic with calls in the window: its calls per bucket (sparklines), calls and refusals. */
export async function keyTrafficStats(
  db: GatewayDb,
  tenantId: number,
  window: StatsWindow,
  now: number,
): Promise<KeyStats[]> {
  const { from, to, bucketMs } = windowOf(window, now);
  const { rows } = await sql<{
    chave_id: number;
    minute: string;
    calls: number | string;
    refusals: number | string;
  }>`SELECT chave_id, minute, sum(calls) AS calls, sum(s4xx + s5xx) AS refusals FROM journal_minutes${indexedBy(db, 'journal_minutes_tenant_idx')}
    WHERE tenant_id = ${tenantId} AND chave_id > 0 AND minute >= ${minuteOf(from)} AND minute < ${minuteOf(to)}
    GROUP BY chave_id, minute`.execute(db);
  const buckets = Math.round((to - from) / bucketMs);
  const byKey = new Map<number, KeyStats>();
  for (const row of rows) {
    const id = Number(row.chave_id);
    let stats = byKey.get(id);
    if (!stats) {
      stats = { chave_id: id, calls: 0, refusals: 0, points: new Array<number>(buckets).fill(0) };
      byKey.set(id, stats);
    }
    const i = Math.floor((msOfMinute(row.minute) - from) / bucketMs);
    if (i < 0 || i >= buckets) continue;
    stats.points[i] += Number(row.calls);
    stats.calls += Number(row.calls);
    stats.refusals += Number(row.refusals);
  }
  return [...byKey.values()].sort((a, b) => a.chave_id - b.chave_id);
}

/** Calls and refusals per key (every clinic) over the minutes from `sinceMinute` on: the alerts' failure ratio. */
export async function recentKeyCalls(
  db: GatewayDb,
  sinceMinute: string,
  minCalls: number,
): Promise<Array<{ tenant_id: number; chave_id: number; calls: number; refusals: number }>> {
  const { rows } = await sql<{
    tenant_id: number;
    chave_id: number;
    calls: number | string;
    refusals: number | string;
  }>`SELECT tenant_id, chave_id, sum(calls) AS calls, sum(s4xx + s5xx) AS refusals FROM journal_minutes${indexedBy(db, 'journal_minutes_minute_idx')}
    WHERE minute >= ${sinceMinute} AND chave_id > 0
    GROUP BY tenant_id, chave_id HAVING sum(calls) >= ${minCalls}`.execute(db);
  return rows.map((r) => ({
    tenant_id: Number(r.tenant_id),
    chave_id: Number(r.chave_id),
    calls: Number(r.calls),
    refusals: Number(r.refusals),
  }));
}
