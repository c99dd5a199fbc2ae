import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { OPENAPI_FILE } from '../appliance/openapi-export.ts';
import { findPostgresBinaries } from '../appliance/postgres.ts';
import {
  CONNECTIONS,
  createPatients,
  DURATION_S,
  load,
  LOAD_CORE,
  log,
  PIN,
  SERVER_CORE,
  signedHeaders,
  startServer,
  stopServer,
  TSX,
  writePool,
  type Measure,
  type Server,
  type Signer,
} from './harness.ts';
import type { LoadSpec } from './load.ts';
import { mappingFileName, wireMockMapping, type RecordedExchange } from './peers/mappings.ts';
import { ensureInstalled, freePort, missingRuntime, PRISM, startPeer, WIREMOCK } from './peers/runtime.ts';
import {
  combineRounds,
  evaluatePeerTargets,
  type CpuByOperation,
  type PeerOperation,
  type PeerServer,
  type PeerTargetResult,
} from './peers/targets.ts';

/**
 * `npm run bench:peers` (`-- --json` for JSON): the appliance beside the mocks an integrator would run instead,
 * WireMock 3.13.2 (static stubs recorded from the appliance, default request journal) and Prism 5.16.0 (mock mode on
 * our OpenAPI document), by the method of `npm run bench`'s HTTP rows: each server's process tree pinned to core 0,
 * the load generator (bench/load.ts) on core 1, 16 connections, every request signed before its run, the server's
 * CPU per request from /proc. For each operation, each server warms up, then the measured rounds alternate between
 * the servers (BENCH_PEER_WARM_UP_S, 4; BENCH_PEER_ROUNDS, 2). Each load is bounded in time (BENCH_DURATION_S). The peers are installed on
 * first use into a cache outside the repository (bench/peers/runtime.ts); a peer whose runtime is missing is skipped.
 * The appliance runs twice: on gateway.db, and one gateway on PostgreSQL (bench/cluster-server.ts, its own cluster
 * from Debian's binaries; its CPU includes PostgreSQL's processes), skipped in one line when PostgreSQL is not
 * installed. BENCH_PEERS=wiremock,prism,postgres picks the peers and the PostgreSQL run.
 */
const JSON_OUTPUT = process.argv.includes('--json');
const ROUNDS = Number(process.env.BENCH_PEER_ROUNDS ?? 2);
// Longer than `npm run bench`'s 2 s: a JVM's JIT needs more requests than Node's to reach its steady state.
const WARM_UP_S = Number(process.env.BENCH_PEER_WARM_UP_S ?? 4);
const WANTED = (process.env.BENCH_PEERS ?? 'wiremock,prism,postgres').split(',').map((s) => s.trim());

const OPERATIONS: { id: PeerOperation; name: string; method: 'GET' | 'POST'; path: string }[] = [
  { id: 'ping', name: 'GET /v1/ping', method: 'GET', path: '/v1/ping' },
  { id: 'list', name: 'GET /v1/pacientes?limit=50 (300 patients)', method: 'GET', path: '/v1/pacientes?limit=50' },
  { id: 'create', name: 'POST /v1/pacientes (unique body and key)', method: 'POST', path: '/v1/pacientes' },
];
const SERVER_NAMES: Record<PeerServer, string> = {
  appliance: 'appliance (signed, backend-sim, durable journal)',
  'appliance-postgres': 'appliance, one gateway on PostgreSQL (the same, its state in PostgreSQL)',
  wiremock: 'WireMock 3.13.2 (stubs recorded from the appliance)',
  prism: 'Prism 5.16.0 mock (our OpenAPI document)',
};

interface Row {
  operation: PeerOperation;
  server: PeerServer;
  measure: Measure;
  /** CPU µs per request of each round. */
  roundsCpuUs: number[];
  /** What one request outside the load answered (status, body bytes). */
  answer: { status: number; bytes: number };
}

interface Skipped {
  peer: PeerServer;
  reason: string;
}

/** The create pool a run of `seconds` needs on `server` (WireMock answers ~10× faster; a replay only warns). */
function poolSize(server: PeerServer, seconds: number): number {
  if (process.env.BENCH_WRITE_POOL) return Number(process.env.BENCH_WRITE_POOL);
  return Math.max(5_000, Math.ceil(seconds * (server === 'wiremock' ? 25_000 : 7_500)));
}

/** The appliance on PostgreSQL beside the one on gateway.db, its 300 patients seeded; null (and why) when skipped. */
async function startPostgresAppliance(skipped: Skipped[]): Promise<Server | null> {
  try {
    findPostgresBinaries();
  } catch (error) {
    log(`appliance on PostgreSQL skipped: ${(error as Error).message}`);
    skipped.push({ peer: 'appliance-postgres', reason: (error as Error).message });
    return null;
  }
  log('appliance on PostgreSQL (bench/cluster-server.ts, one gateway, its own cluster; 300 patients seeded)…');
  const server = await startServer(TSX, ['bench/cluster-server.ts'], { BENCH_INSTANCES: '1' });
  await createPatients(server, server.info as unknown as Signer, 300);
  return server;
}

/** The load of one operation, signed now (a timestamp is good for ±300 s); creates get a fresh pool of their own. */
function specFor(
  op: (typeof OPERATIONS)[number],
  signer: Signer,
  server: PeerServer,
  seconds: number,
  workDir: string,
): Omit<LoadSpec, 'url' | 'connections' | 'durationS'> {
  if (op.method === 'POST')
    return { method: 'POST', path: op.path, poolFile: writePool(signer, poolSize(server, seconds), workDir) };
  return { method: 'GET', path: op.path, headers: signedHeaders(signer, 'GET', op.path, '') };
}

/** One real signed request outside any load: what the server answers, headers and body. */
async function exchange(url: string, op: (typeof OPERATIONS)[number], signer: Signer): Promise<RecordedExchange> {
  const body =
    op.method === 'POST'
      ? JSON.stringify({ nome: `Paciente Peers ${randomUUID().slice(0, 8)}`, data_nascimento: '1980-01-01' })
      : '';
  const headers: Record<string, string> = signedHeaders(signer, op.method, op.path, body);
  if (op.method === 'POST') headers['idempotency-key'] = randomUUID();
  const res = await fetch(url + op.path, { method: op.method, headers, body: op.method === 'POST' ? body : undefined });
  return {
    method: op.method,
    url: op.path,
    status: res.status,
    headers: Object.fromEntries(res.headers),
    body: await res.text(),
  };
}

async function startWireMock(recorded: RecordedExchange[], workDir: string): Promise<Server> {
  const jar = path.join(ensureInstalled(WIREMOCK), 'build', `wiremock-standalone-${WIREMOCK.version}.jar`);
  const root = path.join(workDir, 'wiremock');
  mkdirSync(path.join(root, 'mappings'), { recursive: true });
  mkdirSync(path.join(root, '__files'), { recursive: true });
  for (const ex of recorded)
    writeFileSync(path.join(root, 'mappings', mappingFileName(ex)), JSON.stringify(wireMockMapping(ex), null, 2));
  const port = await freePort();
  // As a user runs it: the default request journal (unbounded; reset between our bounded runs), default threads.
  return startPeer(
    'WireMock',
    'java',
    ['-jar', jar, '--port', String(port), '--bind-address', '127.0.0.1', '--root-dir', root, '--disable-banner'],
    `http://127.0.0.1:${port}`,
    '/__admin/health',
  );
}

async function startPrism(): Promise<Server> {
  const cli = path.join(ensureInstalled(PRISM), 'dist', 'index.js');
  const port = await freePort();
  // Mock mode on the document `npm run openapi` writes, static examples (no --dynamic), default log level.
  return startPeer(
    'Prism',
    process.execPath,
    [cli, 'mock', '--host', '127.0.0.1', '--port', String(port), '--errors', 'false', OPENAPI_FILE],
    `http://127.0.0.1:${port}`,
    '/v1/ping',
  );
}

/** WireMock keeps every request in its journal by default: emptied between runs, so a bounded run stays bounded. */
async function betweenRuns(server: PeerServer, s: Server): Promise<void> {
  if (server === 'wiremock') await fetch(`${s.info.url}/__admin/requests`, { method: 'DELETE' }).then((r) => r.text());
}

function fmt(n: number): string {
  return String(Number(n.toFixed(1)));
}

function table(rows: Row[], appliance: Partial<Record<PeerOperation, number>>): string {
  const lines = [
    '| operation | server | req/s | p50 ms | p99 ms | server CPU µs/req | appliance (gateway.db) CPU ÷ this | answer |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const m = r.measure;
    const op = OPERATIONS.find((o) => o.id === r.operation)!;
    const ratio = appliance[r.operation] === undefined ? '—' : (appliance[r.operation]! / m.cpuUs).toFixed(2);
    lines.push(
      `| ${op.name} | ${SERVER_NAMES[r.server]} | ${Math.round(m.rps)} | ${fmt(m.p50)} | ${fmt(m.p99)} | ${Math.round(m.cpuUs)} | ${ratio} | ${r.answer.status}, ${r.answer.bytes} B |${m.non2xx ? ` ${m.non2xx} non-2xx` : ''}`,
    );
  }
  return lines.join('\n');
}

function targetsTable(results: PeerTargetResult[]): string {
  const lines = [
    '| target | appliance CPU µs/req | WireMock CPU µs/req | appliance ÷ WireMock | target ratio | met |',
    '|---|---|---|---|---|---|',
  ];
  for (const t of results) {
    const cpu = (v: number | null) => (v === null ? '—' : String(Math.round(v)));
    const met = t.met === null ? '— (not measured)' : t.met ? 'yes' : `**no** (${t.times_over!.toFixed(1)}× over)`;
    lines.push(
      `| ${t.target} | ${cpu(t.appliance_cpu_us)} | ${cpu(t.peer_cpu_us)} | ${t.ratio === null ? '—' : t.ratio.toFixed(2)} | ≤ ${t.max_ratio.toFixed(1)} | ${met} |`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  log(
    `bench:peers: ${CONNECTIONS} connections, ${DURATION_S} s per run, ${ROUNDS} rounds alternating between the servers, loopback only, ${PIN ? `server on core ${SERVER_CORE}, load generator on core ${LOAD_CORE}` : 'not pinned'}`,
  );
  const workDir = mkdtempSync(path.join(tmpdir(), 'gw-bench-peers-'));
  const servers = new Map<PeerServer, Server>();
  const skipped: Skipped[] = [];
  try {
    log('appliance (bench/gateway-server.ts, durable audit on)…');
    const gw = await startServer(TSX, ['bench/gateway-server.ts'], { AUDIT_ENABLED: 'true' });
    servers.set('appliance', gw);
    const signer = gw.info as unknown as Signer;
    // The stubs' answers: real signed requests to the appliance, the list after its 300 patients, then one create.
    log('recording the appliance’s answers (300 patients seeded for the list)…');
    const recorded: RecordedExchange[] = [];
    recorded.push(await exchange(gw.info.url, OPERATIONS[0], signer));
    await createPatients(gw, signer, 300);
    recorded.push(await exchange(gw.info.url, OPERATIONS[1], signer));
    recorded.push(await exchange(gw.info.url, OPERATIONS[2], signer));
    for (const ex of recorded)
      if (ex.status >= 300) throw new Error(`recording ${ex.method} ${ex.url}: the appliance answered ${ex.status}`);

    if (WANTED.includes('postgres')) {
      const postgres = await startPostgresAppliance(skipped);
      if (postgres) servers.set('appliance-postgres', postgres);
    }
    // Each appliance checks its own keys; the peers check no signature, so they take the first appliance's.
    const signerOf = (name: PeerServer): Signer =>
      name === 'appliance-postgres' ? (servers.get(name)!.info as unknown as Signer) : signer;

    if (WANTED.includes('wiremock')) {
      const missing = missingRuntime('java', ['-version']);
      if (missing) {
        log(`WireMock skipped: ${missing} (it runs on Java 11+)`);
        skipped.push({ peer: 'wiremock', reason: missing });
      } else {
        try {
          log('WireMock: stubs recorded from the appliance…');
          servers.set('wiremock', await startWireMock(recorded, workDir));
        } catch (error) {
          log(`WireMock skipped: ${(error as Error).message}`);
          skipped.push({ peer: 'wiremock', reason: (error as Error).message });
        }
      }
    }
    if (WANTED.includes('prism')) {
      try {
        log(`Prism: mock mode on ${path.relative(process.cwd(), OPENAPI_FILE)}…`);
        servers.set('prism', await startPrism());
      } catch (error) {
        log(`Prism skipped: ${(error as Error).message}`);
        skipped.push({ peer: 'prism', reason: (error as Error).message });
      }
    }

    const order = [...servers.keys()];
    const rows: Row[] = [];
    for (const op of OPERATIONS) {
      log(`${op.name}: warm-up, then ${ROUNDS} rounds of ${order.join(', ')}…`);
      const rounds = new Map<PeerServer, Measure[]>(order.map((s) => [s, []]));
      const answers = new Map<PeerServer, { status: number; bytes: number }>();
      for (const name of order) {
        const s = servers.get(name)!;
        const probe = name === 'appliance' ? recorded.find((r) => r.url === op.path && r.method === op.method)! : null;
        const answer = probe ?? (await exchange(s.info.url, op, signerOf(name)));
        answers.set(name, { status: answer.status, bytes: Buffer.byteLength(answer.body) });
        await load(s, specFor(op, signerOf(name), name, WARM_UP_S, workDir), WARM_UP_S); // JIT, caches, connections
        await betweenRuns(name, s);
      }
      for (let round = 0; round < ROUNDS; round++) {
        // Each round starts with the next server, so none always runs first.
        for (let i = 0; i < order.length; i++) {
          const name = order[(i + round) % order.length];
          const s = servers.get(name)!;
          rounds.get(name)!.push(await load(s, specFor(op, signerOf(name), name, DURATION_S, workDir)));
          await betweenRuns(name, s);
        }
      }
      for (const name of order)
        rows.push({
          operation: op.id,
          server: name,
          measure: combineRounds(rounds.get(name)!),
          roundsCpuUs: rounds.get(name)!.map((m) => m.cpuUs),
          answer: answers.get(name)!,
        });
    }

    const cpu: CpuByOperation = {};
    for (const r of rows) cpu[r.operation] = { ...cpu[r.operation], [r.server]: r.measure.cpuUs };
    const appliance = Object.fromEntries(
      rows.filter((r) => r.server === 'appliance').map((r) => [r.operation, r.measure.cpuUs]),
    );
    const targets = evaluatePeerTargets(cpu);
    if (JSON_OUTPUT) {
      console.log(
        JSON.stringify(
          {
            date: new Date().toISOString(),
            cores: cpus().length,
            pinned: PIN,
            connections: CONNECTIONS,
            duration_s: DURATION_S,
            rounds: ROUNDS,
            skipped,
            rows: rows.map((r) => ({
              operation: OPERATIONS.find((o) => o.id === r.operation)!.name,
              server: r.server,
              req_s: Math.round(r.measure.rps),
              p50_ms: r.measure.p50,
              p99_ms: r.measure.p99,
              server_cpu_us_per_request: Math.round(r.measure.cpuUs),
              server_cpu_us_per_round: r.roundsCpuUs.map(Math.round),
              requests: r.measure.requests,
              non_2xx: r.measure.non2xx,
              answer_status: r.answer.status,
              answer_bytes: r.answer.bytes,
              appliance_cpu_ratio:
                appliance[r.operation] === undefined ? null : appliance[r.operation] / r.measure.cpuUs,
            })),
            targets,
          },
          null,
          2,
        ),
      );
      return;
    }
    console.log(table(rows, appliance));
    console.log(`\n${targetsTable(targets)}`);
    console.log(
      '\nreq/s, p50 and p99: mean of the rounds; CPU: every request of every round (per round in --json). "answer": one' +
        ' request outside the load. Prism answers from the document’s examples and validates each request against it:' +
        ' what it refuses (401/422) is counted as non-2xx on its row.',
    );
    for (const s of skipped) console.log(`${s.peer} not measured: ${s.reason}`);
  } finally {
    for (const s of servers.values()) if (s.child.exitCode === null && s.child.signalCode === null) await stopServer(s);
    rmSync(workDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
