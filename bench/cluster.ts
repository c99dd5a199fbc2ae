import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { CONNECTIONS, DURATION_S, log, PIN, runLoad, SERVER_CORE, signedHeaders, startServer, stopServer, treeCpuMs, TSX, writePool, type Measure, type Server, type Signer } from './harness.ts';
import type { LoadSpec } from './load.ts';

/**
 * Issue 24 § 7: the gateway on gateway.db beside 1 and 2 gateway processes sharing PostgreSQL (bench/cluster-server.ts,
 * as `npm run cluster` runs them): a signed ping and idempotent creates. The load is split evenly over the gateways
 * (one load process per gateway, all on the load core); the server side (gateways, backend-sim, storage and
 * PostgreSQL) is pinned to the server core, so its CPU per request is comparable with the single process's and
 * the req/s shows what one core gives each topology. CPU per request counts the PostgreSQL server's processes too.
 */
export interface TopologyRow {
  topology: string;
  ping: Measure;
  list: Measure;
  create: Measure;
}

async function loadAll(server: Server, urls: string[], specOf: (url: string, i: number) => Omit<LoadSpec, 'url' | 'connections' | 'durationS'>, durationS = DURATION_S): Promise<Measure> {
  const pids = [server.child.pid!, ...(server.info.postgresPid ? [Number(server.info.postgresPid)] : [])];
  const cpu = () => pids.reduce((sum, pid) => sum + treeCpuMs(pid), 0);
  const before = cpu();
  const results = await Promise.all(
    urls.map((url, i) => runLoad({ ...specOf(url, i), url, connections: Math.max(1, Math.round(CONNECTIONS / urls.length)), durationS })),
  );
  const cpuMs = cpu() - before;
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

async function measureTopology(topology: string, command: string[], env: Record<string, string>, workDir: string): Promise<TopologyRow> {
  log(`${topology}…`);
  const server = await startServer(TSX, command, env);
  try {
    const signer = server.info as unknown as Signer;
    const urls = (server.info.urls ?? server.info.url).split(' ');
    const ping = (url: string) => ({ method: 'GET' as const, path: '/v1/ping', headers: signedHeaders(signer, 'GET', '/v1/ping', '') });
    await loadAll(server, urls, ping, 2); // warm-up: JIT, caches, pools
    const pingMeasure = await loadAll(server, urls, ping);
    const poolSize = Number(process.env.BENCH_WRITE_POOL ?? 60_000);
    // Each gateway gets a pool of its own: distinct keys and bodies, in a folder of its own.
    const pools = urls.map((_, i) => {
      const dir = path.join(workDir, `${topology.replace(/\W+/g, '-')}-${i}`);
      mkdirSync(dir, { recursive: true });
      return writePool(signer, Math.ceil(poolSize / urls.length), dir);
    });
    const create = await loadAll(server, urls, (_url, i) => ({ method: 'POST', path: '/v1/pacientes', poolFile: pools[i] }));
    // The list of the http rows (50 patients a page) on the patients the creates left: the gateway's database is
    // read for the key only, the page comes from backend-sim.
    const list = (_url: string) => ({ method: 'GET' as const, path: '/v1/pacientes?limit=50', headers: signedHeaders(signer, 'GET', '/v1/pacientes?limit=50', '') });
    await loadAll(server, urls, list, 2);
    const listMeasure = await loadAll(server, urls, list);
    return { topology, ping: pingMeasure, list: listMeasure, create };
  } finally {
    await stopServer(server);
  }
}

export async function measureTopologies(workDir: string): Promise<TopologyRow[]> {
  const rows: TopologyRow[] = [];
  // backend-sim's child process on the server core too, as the cluster's supervisor runs it.
  rows.push(await measureTopology('1 gateway, gateway.db (SQLite)', ['bench/gateway-server.ts'], PIN ? { BENCH_BACKEND_CORES: SERVER_CORE } : {}, workDir));
  for (const instances of [1, 2]) {
    rows.push(await measureTopology(`${instances} gateway${instances > 1 ? 's' : ''}, PostgreSQL`, ['bench/cluster-server.ts'], { BENCH_INSTANCES: String(instances) }, workDir));
  }
  return rows;
}

export function topologyTable(rows: TopologyRow[]): string {
  const base = rows[0];
  const lines = [
    '| topology | signed GET /v1/ping req/s | CPU µs/req | × gateway.db | list ?limit=50 req/s | CPU µs/req | × gateway.db | idempotent creates/s | CPU µs/create | × gateway.db |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.topology} | ${Math.round(r.ping.rps)} | ${Math.round(r.ping.cpuUs)} | ${(r.ping.cpuUs / base.ping.cpuUs).toFixed(2)} | ${Math.round(r.list.rps)} | ${Math.round(r.list.cpuUs)} | ${(r.list.cpuUs / base.list.cpuUs).toFixed(2)} | ${Math.round(r.create.rps)} | ${Math.round(r.create.cpuUs)} | ${(r.create.cpuUs / base.create.cpuUs).toFixed(2)} |` +
        `${r.ping.non2xx + r.list.non2xx + r.create.non2xx ? ` ${r.ping.non2xx + r.list.non2xx + r.create.non2xx} non-2xx` : ''}`,
    );
  }
  return lines.join('\n');
}
