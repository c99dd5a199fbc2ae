import { mkdirSync } from 'node:fs';
import path from 'node:path';
import {
  CONNECTIONS,
  DURATION_S,
  log,
  measureBare,
  PIN,
  POST_BODY,
  runLoad,
  SERVER_CORE,
  signedHeaders,
  startServer,
  stopServer,
  serverCpuMs,
  TSX,
  writePool,
  type BareRuns,
  type Measure,
  type Server,
  type Signer,
} from './harness.ts';
import type { LoadSpec } from './load.ts';
import { createsTarget, TARGETS, verdict } from './targets.ts';

/**
 * Issue 24 § 7 and issue 25 (every row on both databases): the gateway on gateway.db beside 1 and 2 gateway
 * processes sharing PostgreSQL (bench/cluster-server.ts, as `npm run cluster` runs them): signed GET and POST pings, a
 * list and idempotent creates, each with its ratio to gateway.db, to the bare Fastify run and issue 25's target. The load is split evenly over the gateways
 * (one load process per gateway, all on the load core); the server side (gateways, backend-sim, storage and
 * PostgreSQL) is pinned to the server core, so its CPU per request is comparable with the single process's and
 * the req/s shows what one core gives each topology. CPU per request counts the PostgreSQL server's processes too.
 */
export interface TopologyRow {
  topology: string;
  /** Gateway processes sharing PostgreSQL; 0 for gateway.db. */
  instances: number;
  ping: Measure;
  post: Measure;
  list: Measure;
  create: Measure;
}

/** One measured operation of every topology, with gateway.db's target (PostgreSQL's is against gateway.db). */
interface Operation {
  key: 'ping' | 'post' | 'list' | 'create';
  label: string;
  /** gateway.db's CPU per request ≤ this × the bare run named; creates have a rate target, lists WireMock's (peers). */
  maxCpuRatio?: number;
  bare: keyof BareRuns;
}

const OPERATIONS: Operation[] = [
  { key: 'ping', label: 'signed GET /v1/ping', maxCpuRatio: TARGETS.ping.maxCpuRatio, bare: TARGETS.ping.baseline },
  {
    key: 'post',
    label: 'signed POST /v1/ping, 300 B',
    maxCpuRatio: TARGETS.post.maxCpuRatio,
    bare: TARGETS.post.baseline,
  },
  { key: 'list', label: 'signed GET /v1/pacientes?limit=50', bare: 'get' },
  { key: 'create', label: 'signed idempotent POST /v1/pacientes', bare: 'post' },
];

interface Assessed {
  measure: Measure;
  vsGatewayDb: number;
  cpuRatio: number;
  /** The row's target and verdict; none for the 2-gateway rows (the issue's targets are for one gateway). */
  target: string;
  met: boolean | null;
  verdict: string;
}

const NO_TARGET = { target: '—', met: null, verdict: '—' };

/** The operation's own target (issue 32 § 1–3), whatever the database: a rate for creates, CPU for pings. */
function ownTarget(
  measure: Measure,
  cpuRatio: number,
  op: Operation,
): Omit<Assessed, 'measure' | 'vsGatewayDb' | 'cpuRatio'> {
  if (op.key === 'create') {
    const v = verdict(measure.rps, TARGETS.createsPerSecond, true);
    return { target: createsTarget, met: v.met, verdict: v.text };
  }
  if (op.maxCpuRatio === undefined)
    return { ...NO_TARGET, target: `CPU ≤ ${TARGETS.list.maxCpuRatioToWireMock} × WireMock's (peers)` };
  const v = verdict(cpuRatio, op.maxCpuRatio);
  return { target: `CPU ≤ ${op.maxCpuRatio} × bare`, met: v.met, verdict: v.text };
}

/**
 * A row against its targets: gateway.db's own; one gateway on PostgreSQL, the same and § 4's (within 1.5 ×
 * gateway.db), both reported, met when both are (a list's own target is judged by the peers' bench).
 */
function assess(row: TopologyRow, base: TopologyRow, bare: BareRuns, op: Operation): Assessed {
  const measure = row[op.key];
  const cpuRatio = measure.cpuUs / bare[op.bare].cpuUs;
  const vsGatewayDb = measure.cpuUs / base[op.key].cpuUs;
  const assessed = { measure, vsGatewayDb, cpuRatio };
  const own = ownTarget(measure, cpuRatio, op);
  if (row === base) return { ...assessed, ...own };
  if (row.instances !== 1) return { ...assessed, ...NO_TARGET };
  const v = verdict(vsGatewayDb, TARGETS.postgresMaxRatio);
  return {
    ...assessed,
    target: `${own.target}; CPU ≤ ${TARGETS.postgresMaxRatio} × gateway.db`,
    met: own.met === null ? v.met : own.met && v.met,
    verdict: `${own.verdict}; ${v.text}`,
  };
}

export interface Topologies {
  bare: BareRuns;
  rows: TopologyRow[];
}

async function loadAll(
  server: Server,
  urls: string[],
  specOf: (url: string, i: number) => Omit<LoadSpec, 'url' | 'connections' | 'durationS'>,
  durationS = DURATION_S,
): Promise<Measure> {
  const before = serverCpuMs(server);
  const results = await Promise.all(
    urls.map((url, i) =>
      runLoad({ ...specOf(url, i), url, connections: Math.max(1, Math.round(CONNECTIONS / urls.length)), durationS }),
    ),
  );
  const cpuMs = serverCpuMs(server) - before;
  const requests = results.reduce((sum, r) => sum + r.requests, 0) || 1;
  for (const r of results) if (r.errors > 0) log(`  warning: ${r.errors} connection errors or timeouts`);
  return {
    rps: results.reduce((sum, r) => sum + r.rps, 0),
    // The slowest gateway's latencies (each load sees one gateway).
    p50: Math.max(...results.map((r) => r.p50)),
    p99: Math.max(...results.map((r) => r.p99)),
    non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
    requests,
    cpuUs: (cpuMs * 1000) / requests,
  };
}

async function measureTopology(
  topology: string,
  instances: number,
  command: string[],
  env: Record<string, string>,
  workDir: string,
): Promise<TopologyRow> {
  log(`${topology}…`);
  const server = await startServer(TSX, command, env);
  try {
    const signer = server.info as unknown as Signer;
    const urls = (server.info.urls ?? server.info.url).split(' ');
    const ping = (_url: string) => ({
      method: 'GET' as const,
      path: '/v1/ping',
      headers: signedHeaders(signer, 'GET', '/v1/ping', ''),
    });
    await loadAll(server, urls, ping, 2); // warm-up: JIT, caches, pools
    const pingMeasure = await loadAll(server, urls, ping);
    const post = (_url: string) => ({
      method: 'POST' as const,
      path: '/v1/ping',
      body: POST_BODY,
      headers: signedHeaders(signer, 'POST', '/v1/ping', POST_BODY),
    });
    const postMeasure = await loadAll(server, urls, post);
    const poolSize = Number(process.env.BENCH_WRITE_POOL ?? 60_000);
    // Each gateway gets a pool of its own: distinct keys and bodies, in a folder of its own.
    const pools = urls.map((_, i) => {
      const dir = path.join(workDir, `${topology.replace(/\W+/g, '-')}-${i}`);
      mkdirSync(dir, { recursive: true });
      return writePool(signer, Math.ceil(poolSize / urls.length), dir);
    });
    const create = await loadAll(server, urls, (_url, i) => ({
      method: 'POST',
      path: '/v1/pacientes',
      poolFile: pools[i],
    }));
    // The list of the http rows (50 patients a page) on the patients the creates left: the gateway's database is
    // read for the key only, the page comes from backend-sim.
    const list = (_url: string) => ({
      method: 'GET' as const,
      path: '/v1/pacientes?limit=50',
      headers: signedHeaders(signer, 'GET', '/v1/pacientes?limit=50', ''),
    });
    await loadAll(server, urls, list, 2);
    const listMeasure = await loadAll(server, urls, list);
    return { topology, instances, ping: pingMeasure, post: postMeasure, list: listMeasure, create };
  } finally {
    await stopServer(server);
  }
}

export async function measureTopologies(workDir: string, bareRuns?: BareRuns): Promise<Topologies> {
  const bare = bareRuns ?? (await measureBare());
  const rows: TopologyRow[] = [];
  // backend-sim's child process on the server core too, as the cluster's supervisor runs it.
  rows.push(
    await measureTopology(
      '1 gateway, gateway.db (SQLite)',
      0,
      ['bench/gateway-server.ts'],
      PIN ? { BENCH_BACKEND_CORES: SERVER_CORE } : {},
      workDir,
    ),
  );
  for (const instances of [1, 2]) {
    rows.push(
      await measureTopology(
        `${instances} gateway${instances > 1 ? 's' : ''}, PostgreSQL`,
        instances,
        ['bench/cluster-server.ts'],
        { BENCH_INSTANCES: String(instances) },
        workDir,
      ),
    );
  }
  return { bare, rows };
}

export function topologyTable({ bare, rows }: Topologies): string {
  const lines = [
    '| operation | topology | req/s | p50 ms | p99 ms | server CPU µs/req | × gateway.db | CPU × bare | target | met |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const op of OPERATIONS) {
    for (const row of rows) {
      const a = assess(row, rows[0], bare, op);
      const m = a.measure;
      lines.push(
        `| ${op.label} | ${row.topology} | ${Math.round(m.rps)} | ${m.p50} | ${m.p99} | ${Math.round(m.cpuUs)} | ${a.vsGatewayDb.toFixed(2)} | ${a.cpuRatio.toFixed(1)} | ${a.target} | ${a.verdict} |${m.non2xx ? ` ${m.non2xx} non-2xx` : ''}`,
      );
    }
  }
  return lines.join('\n');
}

/** `--json`: every topology's operations with their ratios and targets. */
export function topologyReport({ bare, rows }: Topologies): unknown {
  return {
    bare: { get_cpu_us_per_request: Math.round(bare.get.cpuUs), post_cpu_us_per_request: Math.round(bare.post.cpuUs) },
    rows: rows.map((row) => ({
      topology: row.topology,
      ...Object.fromEntries(
        OPERATIONS.map((op) => {
          const a = assess(row, rows[0], bare, op);
          return [
            op.key,
            {
              req_s: Math.round(a.measure.rps),
              p50_ms: a.measure.p50,
              p99_ms: a.measure.p99,
              server_cpu_us_per_request: Math.round(a.measure.cpuUs),
              non_2xx: a.measure.non2xx,
              cpu_ratio_to_gateway_db: a.vsGatewayDb,
              cpu_ratio_to_bare: a.cpuRatio,
              target: a.target,
              met: a.met,
            },
          ];
        }),
      ),
    })),
  };
}
