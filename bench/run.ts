import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createHmac, randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { readRuntimeFile, runtimeFilePath } from '../server/runtime-file.ts';

/**
 * `npm run bench`: the gateway beside a bare Fastify hello-world on the same machine, both driven
 * by autocannon on loopback, reported as req/s, p50 and p99 with the ratio to the baseline.
 * Each load is bounded in time (DURATION_S) and the servers stop at the end.
 */
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const TSX = path.resolve('node_modules/.bin/tsx');

interface Server {
  info: Record<string, string>;
  child: ChildProcess;
}

function startServer(script: string, env: Record<string, string> = {}): Promise<Server> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, [script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve({ info: JSON.parse(line), child }));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

async function stopServer(server: Server): Promise<void> {
  await new Promise<void>((resolve) => {
    server.child.removeAllListeners('exit');
    server.child.once('exit', () => resolve());
    server.child.kill('SIGTERM');
  });
}

interface Measure {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** Server CPU (user + system, every thread and child process) per request, in µs. */
  cpuUs: number;
}

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** CPU time in ms used so far by a process and all its descendants (tsx runs the server in a child). */
function treeCpuMs(pid: number): number {
  let ticks = 0;
  const pending = [pid];
  while (pending.length > 0) {
    const p = pending.pop()!;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
      for (const tid of readdirSync(`/proc/${p}/task`)) {
        const children = readFileSync(`/proc/${p}/task/${tid}/children`, 'utf8').trim();
        if (children) pending.push(...children.split(' ').map(Number));
      }
    } catch {
      // The process ended between two reads.
    }
  }
  return (ticks * 1000) / CLOCK_TICKS;
}

type Signer = { apiKey: string; apiSecret: string };

function signedHeaders(s: Signer, method: string, target: string, body: string): Record<string, string> {
  const ts = String(Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', s.apiSecret).update(`${ts}.${method} ${target}\n${body}`).digest('hex');
  return { 'x-api-key': s.apiKey, 'x-timestamp': ts, 'x-signature': signature, 'content-type': 'application/json' };
}

async function load(
  server: Server,
  method: 'GET' | 'POST',
  target: string,
  makeRequest?: () => { body?: string; headers: Record<string, string> },
): Promise<Measure> {
  const url = server.info.url;
  const cpuBefore = treeCpuMs(server.child.pid!);
  const result = await autocannon({
    url: url + target,
    method,
    connections: CONNECTIONS,
    duration: DURATION_S,
    requests: makeRequest
      ? [
          {
            method,
            path: target,
            setupRequest: (req: any) => {
              const r = makeRequest();
              return { ...req, body: r.body, headers: { ...req.headers, ...r.headers } };
            },
          },
        ]
      : undefined,
    ...(method === 'POST' && !makeRequest ? { body: '{"hello":"world"}', headers: { 'content-type': 'application/json' } } : {}),
  } as autocannon.Options);
  const cpuMs = treeCpuMs(server.child.pid!) - cpuBefore;
  const total = result.requests.total || 1;
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, cpuUs: (cpuMs * 1000) / total };
}

function row(name: string, m: Measure, base?: Measure): string {
  const ratio = base ? (m.rps / base.rps).toFixed(2) : '1.00';
  const cpuRatio = base ? (m.cpuUs / base.cpuUs).toFixed(1) : '1.0';
  return `| ${name} | ${Math.round(m.rps)} | ${m.p50} | ${m.p99} | ${ratio} | ${Math.round(m.cpuUs)} | ${cpuRatio} |${m.non2xx ? ` ${m.non2xx} non-2xx` : ''}`;
}

/**
 * `npm start` on a data dir that exists, the console already built: the time from spawning it to
 * the first 200 of a signed GET /v1/ping (npm, Node, module loading, opening the databases, the
 * three listeners). Every port is 0 and HOST is loopback; the URL comes from DATA_DIR/runtime.json.
 */
const SECOND_START_RUNS = Number(process.env.BENCH_SECOND_START_RUNS ?? 3);

async function timedStart(dataDir: string, limitMs: number): Promise<number> {
  const started = performance.now();
  const env = { ...process.env, DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', BACKEND_PORT: '0', S3_PORT: '0', LOG_LEVEL: 'silent' };
  // Own process group, so a start that does not stop can be ended by its group id.
  const child = spawn('npm', ['start'], { env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    while (performance.now() - started < limitMs) {
      if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}: ${stderr}`);
      const runtime = readRuntimeFile(dataDir);
      if (runtime) {
        const demo = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')).keys.demo as { api_key: string; api_secret: string };
        const res = await fetch(`${runtime.gateway.url}/v1/ping`, {
          headers: signedHeaders({ apiKey: demo.api_key, apiSecret: demo.api_secret }, 'GET', '/v1/ping', ''),
          signal: AbortSignal.timeout(2_000),
        }).catch(() => null);
        if (res?.status === 200) return performance.now() - started;
      }
      await sleep(10);
    }
    throw new Error(`no signed 200 within ${limitMs} ms: ${stderr}`);
  } finally {
    if (child.exitCode === null) {
      child.kill('SIGTERM'); // npm passes it on; the stack stops cleanly and removes runtime.json
      const stopped = await Promise.race([exited.then(() => true), sleep(20_000).then(() => false)]);
      if (!stopped) process.kill(-child.pid!, 'SIGKILL');
    }
    for (let i = 0; i < 500 && existsSync(runtimeFilePath(dataDir)) && readRuntimeFile(dataDir); i++) await sleep(20);
  }
}

async function secondStart(): Promise<number[]> {
  // Built and recorded once here, so the measured starts find it current as a developer's second start does.
  execFileSync(process.execPath, ['--import', 'tsx', 'server/build-console-if-changed.ts'], { stdio: 'inherit' });
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-bench-start-'));
  try {
    await timedStart(dataDir, 120_000); // first start: creates and seeds the data dir
    const runs: number[] = [];
    for (let i = 0; i < SECOND_START_RUNS; i++) runs.push(await timedStart(dataDir, 30_000));
    return runs;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function secondStartLine(runs: number[]): string {
  const sorted = [...runs].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  return `second \`npm start\` (data dir exists, console built) → first signed 200 on /v1/ping: ${Math.round(median)} ms median of ${runs.length} (${runs.map((r) => Math.round(r)).join(', ')} ms)`;
}

async function main(): Promise<void> {
  if (process.env.BENCH_ONLY === 'start') {
    console.log(secondStartLine(await secondStart()));
    return;
  }
  console.error(`bench: ${CONNECTIONS} connections, ${DURATION_S} s per run, loopback only`);
  const bare = await startServer('bench/bare-server.ts');
  const bareGet = await load(bare, 'GET', '/');
  const barePost = await load(bare, 'POST', '/');
  await stopServer(bare);

  const results: string[] = [];
  let auditOnGet: Measure | undefined;
  let auditOffGet: Measure | undefined;
  for (const audit of ['true', 'false']) {
    const gw = await startServer('bench/gateway-server.ts', { AUDIT_ENABLED: audit });
    const signer = gw.info as unknown as Signer;
    // Warm-up: caches, JIT, connections.
    await load(gw, 'GET', '/v1/ping', () => ({ headers: signedHeaders(signer, 'GET', '/v1/ping', '') }));
    const get = await load(gw, 'GET', '/v1/ping', () => ({ headers: signedHeaders(signer, 'GET', '/v1/ping', '') }));
    if (audit === 'true') {
      auditOnGet = get;
      const pingBody = JSON.stringify({ hello: 'world', senha: 'x' });
      const post = await load(gw, 'POST', '/v1/ping', () => ({ body: pingBody, headers: signedHeaders(signer, 'POST', '/v1/ping', pingBody) }));
      let n = 0;
      const write = await load(gw, 'POST', '/v1/pacientes', () => {
        const body = JSON.stringify({ nome: `Paciente Bench ${++n} ${randomUUID().slice(0, 8)}`, data_nascimento: '1980-01-01' });
        return { body, headers: { ...signedHeaders(signer, 'POST', '/v1/pacientes', body), 'idempotency-key': randomUUID() } };
      });
      results.push(row('bare Fastify GET /', bareGet));
      results.push(row('signed GET /v1/ping (durable audit on)', get, bareGet));
      results.push(row('bare Fastify POST /', barePost));
      results.push(row('signed POST /v1/ping (durable audit on)', post, barePost));
      results.push(row('signed idempotent POST /v1/pacientes (creates a patient)', write, barePost));
    } else {
      auditOffGet = get;
      results.push(row('signed GET /v1/ping (audit off)', get, bareGet));
    }
    await stopServer(gw);
  }

  console.log('| run | req/s | p50 ms | p99 ms | req/s × bare | server CPU µs/req | CPU × bare |');
  console.log('|---|---|---|---|---|---|---|');
  for (const line of results) console.log(line);
  if (auditOnGet && auditOffGet) {
    const cost = (1 - auditOnGet.rps / auditOffGet.rps) * 100;
    const cpu = auditOnGet.cpuUs - auditOffGet.cpuUs;
    console.log(
      `\ndurable audit (committed before each response) on signed GET /v1/ping: ${cost.toFixed(1)} % of req/s, ` +
        `${Math.round(cpu)} µs of server CPU per request (${Math.round(auditOnGet.cpuUs)} vs ${Math.round(auditOffGet.cpuUs)})`,
    );
  }
  console.log(`\n${secondStartLine(await secondStart())}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
