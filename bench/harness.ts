import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHmac, randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { startLocalPostgres, type LocalPostgres } from '../appliance/postgres.ts';
import type { LoadResult, LoadSpec } from './load.ts';

/** What `npm run bench` (bench/run.ts) and `npm run bench:profile` (bench/profile.ts) share. */
export const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 8);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
export const TSX = path.resolve('node_modules/.bin/tsx');
/** Server on core 0, load generator on core 1 (BENCH_PIN=false: let the scheduler place both). */
export const PIN = process.env.BENCH_PIN !== 'false' && cpus().length >= 2 && existsSync('/usr/bin/taskset');
export const SERVER_CORE = '0';
export const LOAD_CORE = '1';
export const log = (line: string) => process.stderr.write(`${line}\n`);

export interface Server {
  info: Record<string, string>;
  child: ChildProcess;
}

export function pinned(core: string, command: string, args: string[]): [string, string[]] {
  return PIN ? ['taskset', ['-c', core, command, ...args]] : [command, args];
}

export function startServer(command: string, args: string[], env: Record<string, string> = {}): Promise<Server> {
  return new Promise((resolve, reject) => {
    const [cmd, argv] = pinned(SERVER_CORE, command, args);
    const child = spawn(cmd, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve({ info: JSON.parse(line), child }));
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
}

export async function stopServer(server: Server): Promise<void> {
  await new Promise<void>((resolve) => {
    server.child.removeAllListeners('exit');
    server.child.once('exit', () => resolve());
    server.child.kill('SIGTERM');
  });
}

/**
 * The server process's side of startServer and stopServer: announces `info` in one JSON line on stdout; on
 * SIGTERM, `stop`s, removes its data dir and exits 0.
 */
export function serveUntilStopped(info: Record<string, unknown>, stop: () => Promise<unknown>, dataDir: string): void {
  process.stdout.write(`${JSON.stringify(info)}\n`);
  process.on(
    'SIGTERM',
    () =>
      void stop().then(() => {
        rmSync(dataDir, { recursive: true, force: true });
        process.exit(0);
      }),
  );
}

export interface Measure {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  requests: number;
  /** Server CPU (user + system, every thread and child process) per request, in µs. */
  cpuUs: number;
}

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** CPU time in ms used so far by a process and all its descendants. */
export function treeCpuMs(pid: number): number {
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

export type Signer = { apiKey: string; apiSecret: string };

export function signedHeaders(s: Signer, method: string, target: string, body: string): Record<string, string> {
  const ts = String(Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', s.apiSecret).update(`${ts}.${method} ${target}\n${body}`).digest('hex');
  return { 'x-api-key': s.apiKey, 'x-timestamp': ts, 'x-signature': signature, 'content-type': 'application/json' };
}

/** Runs bench/load.ts pinned to the load core; the server's CPU is read around it. */
export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const [cmd, argv] = pinned(LOAD_CORE, TSX, ['bench/load.ts', JSON.stringify(spec)]);
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.once('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`load exited with ${code}`)),
    );
  });
}

/**
 * The server side's CPU time (ms): the server's process tree and, for the appliance on PostgreSQL
 * (bench/cluster-server.ts announces `postgresPid`), the PostgreSQL server's, which runs as a daemon of its own.
 */
export function serverCpuMs(server: Server): number {
  const postgres = server.info.postgresPid ? treeCpuMs(Number(server.info.postgresPid)) : 0;
  return treeCpuMs(server.child.pid!) + postgres;
}

export async function load(
  server: Server,
  spec: Omit<LoadSpec, 'url' | 'connections' | 'durationS'>,
  durationS = DURATION_S,
  connections = CONNECTIONS,
): Promise<Measure> {
  // The load process loads autocannon before sending anything; measure the server from the first request.
  const cpuBefore = serverCpuMs(server);
  const result = await runLoad({ ...spec, url: server.info.url, connections, durationS });
  const cpuMs = serverCpuMs(server) - cpuBefore;
  if (result.poolExhausted)
    log(`  warning: ${spec.method} ${spec.path} used its whole pool of pre-signed requests (later ones replayed)`);
  if (result.errors > 0) log(`  warning: ${spec.method} ${spec.path}: ${result.errors} connection errors or timeouts`);
  const total = result.requests || 1;
  return {
    rps: result.rps,
    p50: result.p50,
    p99: result.p99,
    non2xx: result.non2xx,
    requests: result.requests,
    cpuUs: (cpuMs * 1000) / total,
  };
}

/** 300 bytes of JSON, a secret field included (the ping echo redacts it). */
export const POST_BODY = JSON.stringify({
  paciente: 'Maria da Silva Santos',
  observacao: 'x'.repeat(206),
  senha: 'nao aparece',
  n: 1,
});

export function writePool(signer: Signer, count: number, dir: string): string {
  const pool = [];
  for (let i = 0; i < count; i++) {
    const body = JSON.stringify({
      nome: `Paciente Bench ${i} ${randomUUID().slice(0, 8)}`,
      data_nascimento: '1980-01-01',
    });
    pool.push({
      body,
      headers: { ...signedHeaders(signer, 'POST', '/v1/pacientes', body), 'idempotency-key': randomUUID() },
    });
  }
  const file = path.join(dir, `pool-${count}.json`);
  writeFileSync(file, JSON.stringify(pool));
  return file;
}

export async function createPatients(server: Server, signer: Signer, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const body = JSON.stringify({
      nome: `Paciente Lista ${i}`,
      data_nascimento: '1975-05-05',
      email: `lista${i}@example.com`,
    });
    const res = await fetch(`${server.info.url}/v1/pacientes`, {
      method: 'POST',
      body,
      headers: { ...signedHeaders(signer, 'POST', '/v1/pacientes', body), 'idempotency-key': randomUUID() },
    });
    if (res.status !== 201)
      throw new Error(`seeding the list: POST /v1/pacientes answered ${res.status}: ${await res.text()}`);
  }
}

/** The bare Fastify runs every ratio is taken against. */
export interface BareRuns {
  get: Measure;
  post: Measure;
}

/** The bare Fastify hello-world (plain node): a GET and a 300 B POST echo, the baseline of every ratio. */
export async function measureBare(): Promise<BareRuns> {
  log('bare Fastify (plain node)…');
  const bareServer = await startServer(process.execPath, ['bench/bare-server.mjs']);
  try {
    return {
      get: await load(bareServer, { method: 'GET', path: '/' }),
      post: await load(bareServer, {
        method: 'POST',
        path: '/',
        body: POST_BODY,
        headers: { 'content-type': 'application/json' },
      }),
    };
  } finally {
    await stopServer(bareServer);
  }
}

/**
 * `work` against a PostgreSQL server of the bench's own (Debian's binaries, a fresh cluster under a temporary dir,
 * loopback), stopped and removed after it, whether it resolved or threw.
 */
export async function withOwnPostgres<T>(prefix: string, work: (server: LocalPostgres) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  try {
    const server = await startLocalPostgres({ dataDir: dir, port: 0 });
    try {
      return await work(server);
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
