import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { GatewayConfig } from '../server/config.ts';
import { ApplianceClock } from '../server/clock.ts';
import { resolveStorageCredentials, startConfiguredStorage } from './stack.ts';
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
  const { instances } = options;
  if (!Number.isInteger(instances) || instances < 1 || instances > 64)
    throw new ClusterStartError(`--instances must be a whole number from 1 to 64 (got ${instances})`);
  const timeoutMs = options.startTimeoutMs ?? 60_000;
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  };

  const running = readRuntimeFile(config.dataDir);
  const hint = running
    ? `an appliance (pid ${running.pid}) is already running on this DATA_DIR at ${running.gateway.url}`
    : undefined;
  if (running) throw new ClusterStartError(`${hint}: stop it first (Ctrl-C in its terminal), or use another DATA_DIR`);
  const managedPostgres = config.database.kind !== 'postgres';
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
  const backendPort = options.backendPort ?? 0;
  if (!config.backend.external)
    planned.push({ what: 'backend-sim', variable: 'BACKEND_PORT', host: '127.0.0.1', port: backendPort });
  if (config.s3.embedded)
    planned.push({ what: 'embedded storage', variable: 'S3_PORT', host: '127.0.0.1', port: config.s3.embeddedPort });
  if (managedPostgres && options.postgres)
    planned.push({ what: 'PostgreSQL', variable: 'POSTGRES_PORT', host: '127.0.0.1', port: options.postgres.port });
  await assertClusterPortsFree(planned);

  let postgres: LocalPostgres | null = null;
  try {
    ensurePrivateDir(config.dataDir);
    // PostgreSQL first: everything else needs it, and it is the slowest to be ready.
    let databaseUrl: string;
    if (config.database.kind === 'postgres') {
      databaseUrl = config.database.url;
    } else {
      postgres = await startLocalPostgres({
        dataDir: config.dataDir,
        port: options.postgres?.port ?? 5433,
        binDir: options.postgres?.binDir,
        // Each gateway: its pool and one LISTEN connection; and room for the CLI and psql.
        maxConnections: Math.max(
          100,
          instances * (Number(options.gatewayEnv?.DATABASE_POOL_SIZE ?? process.env.DATABASE_POOL_SIZE ?? 10) + 2) + 20,
        ),
        timeoutMs,
        log,
      });
      databaseUrl = postgres.url;
      config.database = {
        kind: 'postgres',
        url: databaseUrl,
        poolSize: Number(process.env.DATABASE_POOL_SIZE ?? 10),
        diskDir: path.join(config.dataDir, 'postgres'),
      };
    }

    const clock = new ApplianceClock({ dataDir: config.dataDir, enabled: config.appEnv === 'development' });
    stops.push(async () => clock.close());
    clock.watch();

    resolveStorageCredentials(config);
    const s3 = await startConfiguredStorage(config, clock);
    if (s3) stops.push(() => s3.close());

    // Migrations run here, once, before any gateway starts; then whether this is the first start.
    const firstStart = await options.isFirstStart(config);
    let doctors: Record<string, number[]> = {};
    if (firstStart && config.seedOnFirstStart && options.seedDefaultData) {
      log(`First start: seeding demo, sandbox and clinica-b into ${path.join(config.dataDir, 'backend')}…`);
      doctors = await options.seedDefaultData(config);
    }

    let backendSim: RunningBackendSim | null = null;
    let backendUrl = config.backend.url;
    if (!config.backend.external) {
      backendSim = await startBackendSim({
        dataDir: config.dataDir,
        internalToken: backendTokenFor(config.dataDir, config.backend.token),
        port: backendPort,
        s3: {
          ...config.s3.internal,
          accessKey: config.s3.accessKey,
          secretKey: config.s3.secretKey,
          bucket: config.s3.bucket,
          region: config.s3.region,
        },
        // No `now`: each gateway pushes the appliance clock's offset to it (PUT /admin/clock), as to any backend it did not start.
      });
      stops.push(() => backendSim!.close());
      backendUrl = backendSim.url;
      config.backend = { ...config.backend, url: backendUrl, port: backendSim.port, external: false };
    }

    const s3Internal = config.s3.internal;
    const s3Url = (e: typeof s3Internal) => `${e.useSSL ? 'https' : 'http'}://${e.endPoint}:${e.port}`;
    const childEnv = (index: number, port: number): NodeJS.ProcessEnv => ({
      ...process.env,
      ...options.gatewayCommand.env,
      ...options.gatewayEnv,
      DATA_DIR: config.dataDir,
      PORT: String(port),
      HOST: config.host,
      DATABASE_URL: databaseUrl,
      GATEWAY_INSTANCE_ID: instanceIdOf(index),
      BACKEND_URL: backendUrl,
      ...(config.s3.embedded
        ? {
            S3_ENDPOINT: s3Url(s3Internal),
            S3_PUBLIC_ENDPOINT: s3Url(config.s3.public),
            S3_ACCESS_KEY: config.s3.accessKey,
            S3_SECRET_KEY: config.s3.secretKey,
          }
        : {}),
    });

    const gateways: ClusterGateway[] = [];
    let stopping = false;
    const spawnGateway = (index: number, port: number, bootstrap?: ClusterBootstrap): Promise<ClusterGateway> =>
      new Promise((resolve, reject) => {
        const env = childEnv(index, port);
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
            void exited.then(({ code, signal }) => {
              if (!stopping && gateways[index - 1] === gateway) options.onGatewayExit?.(gateway, code, signal);
            });
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

    const stopGateways = async (): Promise<ClusterStopReport['gateways']> => {
      const bound = config.drainTimeoutMs + 5_000;
      return Promise.all(
        gateways.map(async (g) => {
          if (g.child.exitCode !== null || g.child.signalCode !== null)
            return { index: g.index, code: g.child.exitCode, signal: g.child.signalCode, forced: false };
          g.child.kill('SIGTERM');
          const timer = setTimeout(() => g.child.kill('SIGKILL'), bound);
          const { code, signal } = await g.exited;
          clearTimeout(timer);
          return { index: g.index, code, signal, forced: signal === 'SIGKILL' };
        }),
      );
    };
    stops.push(async () => {
      stopping = true;
      await stopGateways();
    });

    const portOf = (index: number) => (config.port === 0 ? 0 : config.port + index - 1);
    // The first gateway alone (it makes the default clinics, operator and keys on a first start), then the others together.
    gateways.push(await spawnGateway(1, portOf(1), firstStart ? { doctors } : undefined));
    const rest = await Promise.allSettled(
      Array.from({ length: instances - 1 }, (_, i) => spawnGateway(i + 2, portOf(i + 2))),
    );
    for (const result of rest) if (result.status === 'fulfilled') gateways.push(result.value);
    gateways.sort((a, b) => a.index - b.index);
    const failed = rest.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;

    const database = { kind: 'postgres' as const, url: redactDatabaseUrl(databaseUrl), managed: postgres !== null };
    const s3PublicUrl = s3Url(config.s3.public);
    const writeRuntime = () => {
      if (options.runtimeFile === false) return;
      const info: RuntimeInfo = {
        pid: process.pid,
        started_at: new Date(started).toISOString(),
        release: config.release,
        data_dir: config.dataDir,
        gateway: { url: gateways[0].url, port: gateways[0].port, host: config.host },
        backend: {
          url: backendUrl,
          port: config.backend.external ? null : config.backend.port,
          external: config.backend.external,
        },
        storage: {
          internal_url: s3Url(s3Internal),
          public_url: s3PublicUrl,
          embedded: config.s3.embedded,
          port: config.s3.embedded ? s3Internal.port : null,
        },
        gateways: gateways.map((g) => ({ url: g.url, port: g.port, pid: g.pid })),
        database,
      };
      writeRuntimeFile(config.dataDir, info);
    };
    writeRuntime();

    let stopped: Promise<ClusterStopReport> | null = null;
    return {
      config,
      gateways,
      backendUrl,
      s3PublicUrl,
      databaseUrl,
      database,
      postgres,
      firstStart,
      restartGateway: async (index: number) => {
        const previous = gateways[index - 1];
        if (!previous) throw new Error(`no gateway ${index}`);
        if (previous.child.exitCode === null && previous.child.signalCode === null)
          throw new Error(`gateway ${index} (pid ${previous.pid}) is still running`);
        const again = await spawnGateway(index, previous.port);
        gateways[index - 1] = again;
        writeRuntime();
        return again;
      },
      stop: () =>
        (stopped ??= (async () => {
          const t0 = Date.now();
          stopping = true;
          const report = await stopGateways();
          // Then backend-sim, the storage and the clock; PostgreSQL last.
          for (const stop of stops.reverse()) {
            await stop().catch((error: unknown) =>
              log(`warning: while stopping: ${error instanceof Error ? error.message : String(error)}`),
            );
          }
          stops.length = 0;
          let postgresStopped = postgres === null;
          if (postgres) {
            await postgres.stop().then(
              () => (postgresStopped = true),
              (error: unknown) =>
                log(`warning: PostgreSQL did not stop: ${error instanceof Error ? error.message : String(error)}`),
            );
          }
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

/** The data dir already holds a single-process appliance's state (gateway.db) that PostgreSQL does not have. */
export const hasSqliteGatewayState = (dataDir: string): boolean => existsSync(path.join(dataDir, 'gateway.db'));
