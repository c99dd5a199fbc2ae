import { describe, expect, it } from 'vitest';
import { topologyReport, type TopologyRow } from '../../bench/cluster.ts';
import type { Measure } from '../../bench/harness.ts';

// `npm run bench`'s topologies (bench/cluster.ts): every target of a row is reported with its verdict, on both
// databases (issue 32's Done when). The measuring itself is the bench run; this is the judging of its figures.
const m = (cpuUs: number, rps = 1000): Measure => ({ rps, p50: 1, p99: 2, non2xx: 0, requests: 10_000, cpuUs });
const row = (topology: string, instances: number, cpu: number, creates: number): TopologyRow => ({
  topology,
  instances,
  ping: m(cpu),
  post: m(cpu * 1.5),
  list: m(cpu * 6),
  create: m(cpu * 10, creates),
});
const bare = { get: m(20), post: m(25) };

describe('the topologies judged against their targets', () => {
  const report = topologyReport({
    bare,
    rows: [row('gateway.db', 0, 100, 1400), row('1 gateway, PostgreSQL', 1, 300, 300), row('2 gateways', 2, 600, 200)],
  }) as { rows: Array<Record<string, { target: string; met: boolean | null; cpu_ratio_to_gateway_db: number }>> };
  const [sqlite, postgres, two] = report.rows;

  it('gateway.db answers to its own targets: CPU against bare for pings, creates per second', () => {
    expect(sqlite.ping).toMatchObject({ target: 'CPU ≤ 2.5 × bare', met: false });
    expect(sqlite.create).toMatchObject({ target: '≥ 2500 creates/s', met: false });
  });

  it('one gateway on PostgreSQL answers to the same targets and to 1.5 × gateway.db, both in its row', () => {
    expect(postgres.ping.target).toBe('CPU ≤ 2.5 × bare; CPU ≤ 1.5 × gateway.db');
    expect(postgres.ping.cpu_ratio_to_gateway_db).toBe(3);
    expect(postgres.ping.met).toBe(false);
    expect(postgres.create.target).toBe('≥ 2500 creates/s; CPU ≤ 1.5 × gateway.db');
    // The list's own target is WireMock's, judged by bench:peers: the row is met or not on its 1.5 × alone.
    expect(postgres.list.target).toBe("CPU ≤ 1 × WireMock's (peers); CPU ≤ 1.5 × gateway.db");
    expect(postgres.list.met).toBe(false);
  });

  it('PostgreSQL within 1.5 × but over its own target is not met; within both is', () => {
    const close = topologyReport({
      bare,
      rows: [row('gateway.db', 0, 40, 3000), row('1 gateway, PostgreSQL', 1, 48, 2600)],
    }) as typeof report;
    const [, pg] = close.rows;
    expect(pg.ping.met).toBe(true);
    expect(pg.list.met).toBe(true);
    expect(pg.create.met).toBe(true);
    const over = topologyReport({
      bare,
      rows: [row('gateway.db', 0, 100, 3000), row('1 gateway, PostgreSQL', 1, 110, 2600)],
    }) as typeof report;
    expect(over.rows[1].ping.met).toBe(false);
    expect(over.rows[1].ping.cpu_ratio_to_gateway_db).toBeCloseTo(1.1, 10);
  });

  it('two gateways have no target of their own (the issue’s targets are for one)', () => {
    expect(two.ping).toMatchObject({ target: '—', met: null });
  });
});
