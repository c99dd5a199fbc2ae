import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { GatewayConfig } from '../server/config.ts';
import { ApplianceClock } from '../server/clock.ts';
import { backendSimStorage, backendSimTracing, resolveStorageCredentials, startConfiguredStorage } from './stack.ts';
import { backendTokenFor, ensurePrivateDir } from '../server/secrets-files.ts';
import { startBackendSim, type RunningBackendSim } from '../backend-sim/main.ts';
import { redactDatabaseUrl, startLocalPostgres, type LocalPostgres } from './postgres.ts';
import {
  clientHost,
  httpUrl,
  readRuntimeFile,
  removeRuntimeFile,
  writeRuntimeFile,
  type RuntimeInfo,
} from './runtime-file.ts';
import type { ClusterGatewayMessage, ClusterBootstrap } from './cluster-gateway.ts';

/**
 * `npm run cluster -- --instances N` (appliance/cluster-main.ts) and the cluster tests and bench: one PostgreSQL
 * (the cluster's own under DATA_DIR/postgres, or DATABASE_URL's), the storage and backend-sim once, in this
 * process, and N gateways, each its own process (appliance/cluster-gateway.ts) on PORT…PORT+N-1 with
 * DATABASE_URL and GATEWAY_INSTANCE_ID, all pointed at the one backend-sim (BACKEND_URL) and storage
 * (S3_ENDPOINT). Stopping: the gateways drain, then backend-sim and the storage close, then PostgreSQL stops.
 */
export class ClusterStartError extends Error {}

export interface ClusterOptions {
  /** loadConfig() of the cluster's environment: PORT is the first gateway's port (0: each gateway a free one). */
  config: GatewayConfig;
  instances: number;
  /** The cluster's own PostgreSQL, when config.database is not postgres: POSTGRES_PORT (0: a free port) and POSTGRES_BIN_DIR. */
  postgres?: { port: number; binDir?: string };
  /** BACKEND_PORT was set: backend-sim listens there; otherwise on a free loopback port (PORT+1 is a gateway's). */
  backendPort?: number;
  /** How a gateway process is started; the instance's arguments are appended. */
  gatewayCommand: { command: string; args: string[]; env?: NodeJS.ProcessEnv };
  /** First start (no clinic yet): seed the default clinics' data before backend-sim opens them (SEED_ON_FIRST_START). */
  seedDefaultData?: (config: GatewayConfig) => Promise<Record<string, number[]>>;
  /** Whether the gateway database has no clinic yet (first start): the default clinics, operator and keys are then made. */
  isFirstStart: (config: GatewayConfig) => Promise<boolean>;
  /** Environment passed to every gateway on top of the cluster's (tests: rate limits, drain bound). */
  gatewayEnv?: Record<string, string>;
  /** Each gateway's and PostgreSQL's start (ms). */
  startTimeoutMs?: number;
  /** Writes DATA_DIR/runtime.json (default true). */
  runtimeFile?: boolean;
  /** Lines for the person at the terminal (and gateways' own output, prefixed). */
  log?: (line: string) => void;
  /** A gateway exited while the cluster was up (not during stop). */
  onGatewayExit?: (gateway: ClusterGateway, code: number | null, signal: NodeJS.Signals | null) => void;
}

export interface ClusterGateway {
  /** 1…N: GATEWAY_INSTANCE_ID is `gateway-<index>`. */
  index: number;
  instanceId: string;
  url: string;
  port: number;
  pid: number;
  child: ChildProcess;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface RunningCluster {
  config: GatewayConfig;
  gateways: ClusterGateway[];
  backendUrl: string;
  s3PublicUrl: string;
  /** The URL the gateways use (password included): never print it; `database.url` is redacted. */
  databaseUrl: string;
  database: { kind: 'postgres'; url: string; managed: boolean };
  postgres: LocalPostgres | null;
  firstStart: boolean;
  /** Starts gateway `index` again (after a kill), same port and instance id. */
  restartGateway(index: number): Promise<ClusterGateway>;
  /** Gateways (SIGTERM: drain, bounded by DRAIN_TIMEOUT_MS, then SIGKILL), backend-sim and storage, PostgreSQL. */
  stop(): Promise<ClusterStopReport>;
}

export interface ClusterStopReport {
  gateways: Array<{ index: number; code: number | null; signal: NodeJS.Signals | null; forced: boolean }>;
  postgresStopped: boolean;
  ms: number;
}

export const instanceIdOf = (index: number): string => `gateway-${index}`;

/** The URL clients on this machine use for a listener bound to `host`. */
const localUrl = (host: string, port: number) => httpUrl(clientHost(host), port);

function probe(host: string, port: number): Promise<'free' | 'in-use' | 'denied' | 'other'> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) =>
      resolve(error.code === 'EADDRINUSE' ? 'in-use' : error.code === 'EACCES' ? 'denied' : 'other'),
    );
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve('free')));
  });
}

interface PlannedPort {
  what: string;
  variable: string;
  host: string;
  port: number;
}

/** Every fixed port the cluster will listen on, checked before anything starts: a clash names the variable to change. */
async function assertClusterPortsFree(planned: PlannedPort[], hint?: string): Promise<void> {
  const fixed = planned.filter((p) => p.port !== 0);
  for (let i = 0; i < fixed.length; i++) {
    const clash = fixed.slice(i + 1).find((p) => p.port === fixed[i].port);
    if (clash)
      throw new ClusterStartError(
        `${fixed[i].what} and ${clash.what} would both use port ${clash.port}: set ${clash.variable} (or ${fixed[i].variable}) to another port`,
      );
  }
  for (const p of fixed) {
    const result = await probe(p.host, p.port);
    if (result === 'in-use')
      throw new ClusterStartError(
        `port ${p.port} (${p.what}) is in use: set ${p.variable} to another port${hint ? ` (${hint})` : ''}`,
      );
    if (result === 'denied')
      throw new ClusterStartError(
        `port ${p.port} (${p.what}) needs privileges this process does not have: set ${p.variable} to a port above 1023`,
      );
  }
}

export async function startCluster(options: ClusterOptions): Promise<RunningCluster> {
  const started = Date.now();
  const log = options.log ?? (() => undefined);
  const config: GatewayConfig = structuredClone(options.config);
  await checkClusterStart(config, options);
  const timeoutMs = options.startTimeoutMs ?? 60_000;
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  };

  let postgres: LocalPostgres | null = null;
  try {
    ensurePrivateDir(config.dataDir);
    // PostgreSQL first: everything else needs it, and it is the slowest to be ready.
    const database = await clusterDatabase(config, options, timeoutMs, log);
    postgres = database.postgres;
    const { databaseUrl } = database;

    stops.push(...(await startClockAndStorage(config)));

    const { firstStart, doctors } = await seedOnFirstStart(config, options, log);

    const backendSim = await clusterBackendSim(config, options.backendPort ?? 0);
    if (backendSim) stops.push(() => backendSim.close());

    const gateways: ClusterGateway[] = [];
    let stopping = false;
    const spawner: GatewaySpawner = {
      options,
      config,
      timeoutMs,
      log,
      env: (index, port) => gatewayEnvironment(options, config, databaseUrl, index, port),
      onExit: (gateway, code, signal) => {
        // News while the cluster runs, and only for the gateway in its slot (not one restarted since).
        if (!stopping && gateways[gateway.index - 1] === gateway) options.onGatewayExit?.(gateway, code, signal);
      },
    };
    stops.push(async () => {
      stopping = true;
      await stopGateways(gateways, config.drainTimeoutMs + 5_000);
    });
    await spawnAllGateways(spawner, gateways, options.instances, firstStart ? { doctors } : undefined);

    const redacted = { kind: 'postgres' as const, url: redactDatabaseUrl(databaseUrl), managed: postgres !== null };
    const writeRuntime = () => {
      if (options.runtimeFile !== false)
        writeRuntimeFile(config.dataDir, clusterRuntimeInfo(config, started, gateways, redacted));
    };
    writeRuntime();

    const managed = postgres;
    let stopped: Promise<ClusterStopReport> | null = null;
    return {
      config,
      gateways,
      backendUrl: config.backend.url,
      s3PublicUrl: s3Url(config.s3.public),
      databaseUrl,
      database: redacted,
      postgres,
      firstStart,
      restartGateway: async (index: number) => {
        const previous = gateways[index - 1];
        if (!previous) throw new Error(`no gateway ${index}`);
        if (previous.child.exitCode === null && previous.child.signalCode === null)
          throw new Error(`gateway ${index} (pid ${previous.pid}) is still running`);
        const again = await spawnGateway(spawner, index, previous.port);
        gateways[index - 1] = again;
        writeRuntime();
        return again;
      },
      stop: () =>
        (stopped ??= (async () => {
          const t0 = Date.now();
          stopping = true;
          const report = await stopGateways(gateways, config.drainTimeoutMs + 5_000);
          const postgresStopped = await stopTheRest(stops, managed, log);
          if (options.runtimeFile !== false) removeRuntimeFile(config.dataDir);
          return { gateways: report, postgresStopped, ms: Date.now() - t0 };
        })()),
    };
  } catch (error) {
    await stopAll();
    await postgres?.stop().catch(() => undefined);
    throw error;
  }
}

/** Refuses what cannot start, before anything does: a bad count, a running appliance, a fixed port in use. */
async function checkClusterStart(config: GatewayConfig, options: ClusterOptions): Promise<void> {
  const { instances } = options;
  if (!Number.isInteger(instances) || instances < 1 || instances > 64)
    throw new ClusterStartError(`--instances must be a whole number from 1 to 64 (got ${instances})`);
  const running = readRuntimeFile(config.dataDir);
  if (running)
    throw new ClusterStartError(
      `an appliance (pid ${running.pid}) is already running on this DATA_DIR at ${running.gateway.url}: stop it first (Ctrl-C in its terminal), or use another DATA_DIR`,
    );
  const planned: PlannedPort[] = [];
  for (let i = 0; i < instances; i++) {
    planned.push({
      what: `gateway ${i + 1}`,
      variable: 'PORT',
      host: config.host,
      port: config.port === 0 ? 0 : config.port + i,
    });
  }
  if (config.port !== 0 && config.port + instances - 1 > 65535)
    throw new ClusterStartError(
      `PORT=${config.port} leaves no room for ${instances} gateways (PORT…PORT+${instances - 1})`,
    );
  if (!config.backend.external)
    planned.push({ what: 'backend-sim', variable: 'BACKEND_PORT', host: '127.0.0.1', port: options.backendPort ?? 0 });
  if (config.s3.embedded)
    planned.push({ what: 'embedded storage', variable: 'S3_PORT', host: '127.0.0.1', port: config.s3.embeddedPort });
  if (config.database.kind !== 'postgres' && options.postgres)
    planned.push({ what: 'PostgreSQL', variable: 'POSTGRES_PORT', host: '127.0.0.1', port: options.postgres.port });
  await assertClusterPortsFree(planned);
}

/** DATABASE_URL's server, or the cluster's own PostgreSQL under DATA_DIR (started here); `config` then names it. */
async function clusterDatabase(
  config: GatewayConfig,
  options: ClusterOptions,
  timeoutMs: number,
  log: (line: string) => void,
): Promise<{ databaseUrl: string; postgres: LocalPostgres | null }> {
  if (config.database.kind === 'postgres') return { databaseUrl: config.database.url, postgres: null };
  const postgres = await startLocalPostgres({
    dataDir: config.dataDir,
    port: options.postgres?.port ?? 5433,
    binDir: options.postgres?.binDir,
    // Each gateway: its pool and one LISTEN connection; and room for the CLI and psql.
    maxConnections: Math.max(
      100,
      options.instances * (Number(options.gatewayEnv?.DATABASE_POOL_SIZE ?? process.env.DATABASE_POOL_SIZE ?? 10) + 2) +
        20,
    ),
    timeoutMs,
    log,
  });
  config.database = {
    kind: 'postgres',
    url: postgres.url,
    poolSize: Number(process.env.DATABASE_POOL_SIZE ?? 10),
    diskDir: path.join(config.dataDir, 'postgres'),
  };
  return { databaseUrl: postgres.url, postgres };
}

/** The appliance clock (followed from clock.json) and the embedded storage: what stops them. */
async function startClockAndStorage(config: GatewayConfig): Promise<Array<() => Promise<void>>> {
  const clock = new ApplianceClock({ dataDir: config.dataDir, enabled: config.appEnv === 'development' });
  clock.watch();
  const stops = [async () => clock.close()];
  try {
    resolveStorageCredentials(config);
    const s3 = await startConfiguredStorage(config, clock);
    if (s3) stops.push(() => s3.close());
    return stops;
  } catch (error) {
    clock.close();
    throw error;
  }
}

/** Migrations run here, once, before any gateway starts; then whether this is the first start, seeded if so. */
async function seedOnFirstStart(
  config: GatewayConfig,
  options: ClusterOptions,
  log: (line: string) => void,
): Promise<{ firstStart: boolean; doctors: Record<string, number[]> }> {
  const firstStart = await options.isFirstStart(config);
  if (!firstStart || !config.seedOnFirstStart || !options.seedDefaultData) return { firstStart, doctors: {} };
  log(`First start: seeding demo, sandbox and clinica-b into ${path.join(config.dataDir, 'backend')}…`);
  return { firstStart, doctors: await options.seedDefaultData(config) };
}

/** backend-sim in this process, unless BACKEND_URL names one; `config.backend` then names it. */
async function clusterBackendSim(config: GatewayConfig, port: number): Promise<RunningBackendSim | null> {
  if (config.backend.external) return null;
  const backendSim = await startBackendSim({
    dataDir: config.dataDir,
    internalToken: backendTokenFor(config.dataDir, config.backend.token),
    port,
    s3: backendSimStorage(config),
    tracing: backendSimTracing(config),
    // No `now`: each gateway pushes the appliance clock's offset to it (PUT /admin/clock), as to any backend it did not start.
  });
  config.backend = { ...config.backend, url: backendSim.url, port: backendSim.port, external: false };
  return backendSim;
}

const s3Url = (e: GatewayConfig['s3']['internal']) => `${e.useSSL ? 'https' : 'http'}://${e.endPoint}:${e.port}`;

/** A gateway's environment: the cluster's, pointed at the one database, backend-sim and storage. */
function gatewayEnvironment(
  options: ClusterOptions,
  config: GatewayConfig,
  databaseUrl: string,
  index: number,
  port: number,
): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...options.gatewayCommand.env,
    ...options.gatewayEnv,
    DATA_DIR: config.dataDir,
    PORT: String(port),
    HOST: config.host,
    DATABASE_URL: databaseUrl,
    GATEWAY_INSTANCE_ID: instanceIdOf(index),
    BACKEND_URL: config.backend.url,
    ...(config.s3.embedded
      ? {
          S3_ENDPOINT: s3Url(config.s3.internal),
          S3_PUBLIC_ENDPOINT: s3Url(config.s3.public),
          S3_ACCESS_KEY: config.s3.accessKey,
          S3_SECRET_KEY: config.s3.secretKey,
        }
      : {}),
  };
}

/** What starting a gateway process needs. */
interface GatewaySpawner {
  options: ClusterOptions;
  config: GatewayConfig;
  timeoutMs: number;
  log: (line: string) => void;
  env(index: number, port: number): NodeJS.ProcessEnv;
  onExit(gateway: ClusterGateway, code: number | null, signal: NodeJS.Signals | null): void;
}

/** The first gateway alone (it makes the default clinics, operator and keys on a first start), then the others together. */
async function spawnAllGateways(
  spawner: GatewaySpawner,
  gateways: ClusterGateway[],
  instances: number,
  bootstrap: ClusterBootstrap | undefined,
): Promise<void> {
  const { config } = spawner;
  const portOf = (index: number) => (config.port === 0 ? 0 : config.port + index - 1);
  gateways.push(await spawnGateway(spawner, 1, portOf(1), bootstrap));
  const rest = await Promise.allSettled(
    Array.from({ length: instances - 1 }, (_, i) => spawnGateway(spawner, i + 2, portOf(i + 2))),
  );
  for (const result of rest) if (result.status === 'fulfilled') gateways.push(result.value);
  gateways.sort((a, b) => a.index - b.index);
  const failed = rest.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/** Starts gateway `index` and resolves once it listens (its 'ready' message); rejects if it fails or exits first. */
function spawnGateway(
  spawner: GatewaySpawner,
  index: number,
  port: number,
  bootstrap?: ClusterBootstrap,
): Promise<ClusterGateway> {
  const { options, config, timeoutMs, log } = spawner;
  return new Promise((resolve, reject) => {
    const env = spawner.env(index, port);
    if (bootstrap) env.CLUSTER_BOOTSTRAP = JSON.stringify(bootstrap);
    // Its own process group: the terminal's Ctrl-C reaches the supervisor, which stops the gateways in order.
    const child = spawn(
      options.gatewayCommand.command,
      [...options.gatewayCommand.args, `--gateway-instance=${index}`],
      {
        env,
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
        detached: true,
      },
    );
    const prefix = `[gateway ${index}] `;
    for (const stream of [child.stdout!, child.stderr!])
      createInterface({ input: stream }).on('line', (line) => log(prefix + line));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
      child.once('exit', (code, signal) => done({ code, signal })),
    );
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new ClusterStartError(`gateway ${index} did not start within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('message', (message: ClusterGatewayMessage) => {
      if (message.type === 'ready') {
        clearTimeout(timer);
        const gateway: ClusterGateway = {
          index,
          instanceId: instanceIdOf(index),
          url: localUrl(config.host, message.port),
          port: message.port,
          pid: child.pid!,
          child,
          exited,
        };
        void exited.then(({ code, signal }) => spawner.onExit(gateway, code, signal));
        resolve(gateway);
      } else if (message.type === 'failed') {
        clearTimeout(timer);
        reject(new ClusterStartError(`gateway ${index}: ${message.error}`));
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new ClusterStartError(`gateway ${index} exited (${code ?? signal}) before it was ready`));
    });
  });
}

/** SIGTERM to each gateway (a drain), SIGKILL past `boundMs`. */
function stopGateways(gateways: ClusterGateway[], boundMs: number): Promise<ClusterStopReport['gateways']> {
  return Promise.all(
    gateways.map(async (g) => {
      if (g.child.exitCode !== null || g.child.signalCode !== null)
        return { index: g.index, code: g.child.exitCode, signal: g.child.signalCode, forced: false };
      g.child.kill('SIGTERM');
      const timer = setTimeout(() => g.child.kill('SIGKILL'), boundMs);
      const { code, signal } = await g.exited;
      clearTimeout(timer);
      return { index: g.index, code, signal, forced: signal === 'SIGKILL' };
    }),
  );
}

/** After the gateways: backend-sim, the storage and the clock; PostgreSQL last. Whether PostgreSQL stopped. */
async function stopTheRest(
  stops: Array<() => Promise<void>>,
  postgres: LocalPostgres | null,
  log: (line: string) => void,
): Promise<boolean> {
  for (const stop of stops.reverse()) {
    await stop().catch((error: unknown) =>
      log(`warning: while stopping: ${error instanceof Error ? error.message : String(error)}`),
    );
  }
  stops.length = 0;
  if (!postgres) return true;
  return postgres.stop().then(
    () => true,
    (error: unknown) => {
      log(`warning: PostgreSQL did not stop: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    },
  );
}

/** DATA_DIR/runtime.json of a running cluster. */
function clusterRuntimeInfo(
  config: GatewayConfig,
  started: number,
  gateways: ClusterGateway[],
  database: RuntimeInfo['database'],
): RuntimeInfo {
  const s3Internal = config.s3.internal;
  return {
    pid: process.pid,
    started_at: new Date(started).toISOString(),
    release: config.release,
    data_dir: config.dataDir,
    gateway: { url: gateways[0].url, port: gateways[0].port, host: config.host },
    backend: {
      url: config.backend.url,
      port: config.backend.external ? null : config.backend.port,
      external: config.backend.external,
    },
    storage: {
      internal_url: s3Url(s3Internal),
      public_url: s3Url(config.s3.public),
      embedded: config.s3.embedded,
      port: config.s3.embedded ? s3Internal.port : null,
    },
    gateways: gateways.map((g) => ({ url: g.url, port: g.port, pid: g.pid })),
    database,
  };
}

/** The data dir already holds a single-process appliance's state (gateway.db) that PostgreSQL does not have. */
export const hasSqliteGatewayState = (dataDir: string): boolean => existsSync(path.join(dataDir, 'gateway.db'));
