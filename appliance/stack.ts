import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { isPublishedS3Secret, type GatewayConfig } from '../server/config.ts';
import { openGatewayDatabase, type OpenedGatewayDatabase } from '../server/db/gateway-database.ts';
import { loadMasterKey, SecretBox } from '../server/keys/secret-box.ts';
import { KeysService } from '../server/keys/keys.service.ts';
import { postgresKeySource, sqliteKeySource } from '../server/keys/key-sources.ts';
import { PostgresIdempotencyStore } from '../server/idempotency/postgres-idempotency.store.ts';
import { TenantsService } from '../server/tenants/tenants.service.ts';
import { BackendClient } from '../server/backend/client.ts';
import { buildApp } from '../server/app.ts';
import { startEmbeddedS3, type EmbeddedS3 } from './storage/embedded-s3.ts';
import { startBackendSim, type RunningBackendSim } from '../backend-sim/main.ts';
import { spawnBackendSim, type BackendSimProcess } from './backend-sim-process.ts';
import type { BackendSimChildConfig } from './backend-sim-child.ts';
import { backendTokenFor, ensurePrivateDir, storageCredentialsFor } from '../server/secrets-files.ts';
import { ApplianceClock, formatDuration } from '../server/clock.ts';
import { drainable, type DrainResult } from '../server/drain.ts';
import { IdempotencyStore } from '../server/idempotency/idempotency.store.ts';
import { checkIdempotencyConsistency, type ConsistencyReport } from '../server/integrity/idempotency-consistency.ts';
import { integrityStatusFor } from '../server/integrity/integrity-status.ts';
import { applianceDatabases, startQuickCheck, type QuickCheckReport } from '../server/integrity/quick-check.ts';
import { z } from 'zod';
import { backendSimServiceName, type TracingSettings } from '../shared-node/otel.ts';
import { startTrace } from './start-trace.mjs';
import { holdWritesUntil } from './hold-writes.ts';

/** What the gateway needs from its data dir, without listening: used by the stack and the CLI. */
export interface GatewayServices {
  gatewayDb: OpenedGatewayDatabase;
  keys: KeysService;
  tenants: TenantsService;
  backend: BackendClient;
  close(): Promise<void>;
}

export async function openGatewayServices(
  config: GatewayConfig,
  backendUrl = config.backend.url,
): Promise<GatewayServices> {
  return gatewayServicesOn(await openGatewayDatabase(config), config, backendUrl);
}

function gatewayServicesOn(
  gatewayDb: OpenedGatewayDatabase,
  config: GatewayConfig,
  backendUrl: string,
): GatewayServices {
  const box = new SecretBox(loadMasterKey(config.dataDir, config.masterKeyHex));
  const keys = new KeysService(
    gatewayDb.db,
    box,
    gatewayDb.kind === 'sqlite' ? sqliteKeySource(gatewayDb.sqlite) : postgresKeySource(gatewayDb),
  );
  const backend = new BackendClient(
    backendUrl,
    backendTokenFor(config.dataDir, config.backend.token),
    config.backend.timeoutMs,
  );
  // The CLI's keys: expiries by DATA_DIR's appliance clock (clock.json in development mode); buildApp hands the
  // running gateway's clock over instead.
  const clock = new ApplianceClock({ dataDir: config.dataDir, enabled: config.appEnv === 'development' });
  keys.setClock(() => clock.now());
  const tenants = new TenantsService(gatewayDb.db, backend, () => keys.invalidate());
  return {
    gatewayDb,
    keys,
    tenants,
    backend,
    close: async () => {
      await backend.close();
      await gatewayDb.close();
    },
  };
}

export interface RunningStack extends GatewayServices {
  config: GatewayConfig;
  app: FastifyInstance;
  gatewayUrl: string;
  backendUrl: string;
  s3PublicUrl: string;
  /** The backend-sim this stack started (null with BACKEND_URL). */
  backendSim: StackBackendSim | null;
  /** The appliance clock (development mode: movable from the console, the CLI and the admin API). */
  clock: ApplianceClock;
  /** What the start-time checks found (server/integrity/); also in `/readyz`'s `integrity` component. */
  integrity: {
    /**
     * Idempotency entries against backend-sim's markers, begun before the gateway listened and still running when
     * the stack is returned: until it settles no write nor replay reaches the gateway (appliance/hold-writes.ts).
     * A rejection is a failed start.
     */
    consistency: Promise<ConsistencyReport>;
    /** The databases' `PRAGMA quick_check`, run in the background from the moment the gateway listens; null if it could not run. */
    quickCheck: Promise<QuickCheckReport | null>;
  };
  /**
   * Graceful drain (server/drain.ts), bounded by DRAIN_TIMEOUT_MS: the gateway, then the embedded storage,
   * stop accepting and answer what they already received. close() drains first.
   */
  drain(): Promise<StackDrainResult>;
  close(): Promise<void>;
}

export interface StackDrainResult {
  gateway: DrainResult;
  storage: DrainResult | null;
}

/** Where backend-sim runs when BACKEND_URL is not set: its own child process (npm start), or this process. */
export type BackendSimMode = 'process' | 'in-process';

export interface StackBackendSim extends RunningBackendSim {
  mode: BackendSimMode;
  /** Its process: a child of this one, or this one. */
  readonly pid: number;
  /** Called when backend-sim's process is back after an unexpected exit (another pid); never in-process. */
  onRestart(listener: () => void): void;
}

export interface StackOptions {
  /** Runs after storage is up and before backend-sim opens the tenant databases (first-start seeding). */
  beforeBackend?: (config: GatewayConfig) => Promise<void>;
  /** The real clock, pinned by tests: backend-sim must then run in this process to read it. */
  now?: () => number;
  /**
   * Default `process`: the gateway and backend-sim each have an event loop (two cores work on a create).
   * `in-process` starts faster (no second Node) and reads a pinned `now`: most tests use it.
   */
  backendSim?: BackendSimMode;
  /**
   * Runs once the gateway is built and before it listens (a first start registers its clinics and keys here).
   * What it returns runs synchronously the moment the port is bound, with the real port, before the gateway takes
   * a connection: a file it writes (the first start's credentials) exists before the port or `/readyz` answers.
   */
  beforeListen?: (
    services: GatewayServices & { config: GatewayConfig },
  ) => Promise<((port: number) => void) | undefined>;
}

/**
 * Starts S3 (embedded unless S3_ENDPOINT is set), backend-sim (unless BACKEND_URL is set) and the gateway.
 * Port 0 anywhere picks a free port; the returned config holds the real ones.
 */
export async function startStack(input: GatewayConfig, options: StackOptions = {}): Promise<RunningStack> {
  const config: GatewayConfig = structuredClone(input);
  const mode: BackendSimMode | null = config.backend.external ? null : (options.backendSim ?? 'process');
  // Another process cannot read a pinned clock; it is told the appliance clock's offset from real time instead.
  if (mode === 'process' && options.now)
    throw new Error('startStack: a pinned clock (now) needs backendSim: "in-process"');
  const warn = (line: string) => config.logLevel !== 'silent' && console.warn(`warning: ${line}`);
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  };
  try {
    // Private from the first file on (the embedded S3 writes under DATA_DIR before anything else does).
    ensurePrivateDir(config.dataDir);
    resolveStorageCredentials(config);
    const clock = new ApplianceClock({
      dataDir: config.dataDir,
      enabled: config.appEnv === 'development',
      base: options.now,
      onError: (error) => warn(`clock: ${error instanceof Error ? error.message : String(error)}`),
    });
    stops.push(async () => clock.close());
    // First: Node and the bundle load in the child while this process starts the storage and seeds.
    const spawned =
      mode === 'process'
        ? spawnBackendSim({ log: (line) => config.logLevel !== 'silent' && console.error(line) })
        : null;
    if (spawned) stops.push(() => spawned.kill());
    const s3 = await startConfiguredStorage(config, clock);
    if (s3) stops.push(() => s3.close());
    startTrace('server', 'storage up');

    await options.beforeBackend?.(config);

    let backendSim: StackBackendSim | null = null;
    let backendUrl = config.backend.url;
    let gatewayDb: OpenedGatewayDatabase;
    const backendConfig: BackendSimChildConfig = {
      dataDir: config.dataDir,
      internalToken: backendTokenFor(config.dataDir, config.backend.token),
      port: config.backend.port,
      s3: backendSimStorage(config),
      tracing: backendSimTracing(config),
    };
    if (spawned) {
      const starting = spawned.start(backendConfig);
      starting.catch(() => undefined); // awaited below, after the gateway's database is open
      // While the child opens the clinics and listens, this process opens the gateway's database.
      gatewayDb = await openGatewayDatabase(config);
      stops.push(() => gatewayDb.close());
      startTrace('server', 'gateway.db open');
      backendSim = inChildProcess(await starting);
      startTrace('server', 'backend-sim ready');
    } else {
      if (mode === 'in-process') {
        const sim = await startBackendSim({
          ...backendConfig,
          // Same process: backend-sim reads the appliance clock itself ("today", markers' 24 h).
          now: () => new Date(clock.now()),
        });
        backendSim = { ...sim, mode, pid: process.pid, onRestart: () => undefined };
      }
      gatewayDb = await openGatewayDatabase(config);
      stops.push(() => gatewayDb.close());
    }
    if (backendSim) {
      const running = backendSim;
      stops.push(() => running.close());
      backendUrl = running.url;
      config.backend = { ...config.backend, url: backendUrl, port: running.port };
    }

    const services = gatewayServicesOn(gatewayDb, config, backendUrl);
    stops.push(() => services.backend.close());
    // A backend-sim in another process is told the appliance clock's offset before any call reaches it.
    if (mode !== 'in-process') {
      const follower = followedBackendClock(services.backend, clock, { fresh: mode === 'process' });
      stops.push(follower.stop);
      // Its own child answers at once; a BACKEND_URL may be down, and is told again within 5 s.
      if (mode === 'process') await follower.first;
      backendSim?.onRestart(() => void follower.push().catch(() => undefined));
    }
    // While the gateway is built (backend-sim answers on its own core meanwhile); awaited before it listens (T32-4).
    const synced = services.tenants.syncAllToBackend().then((unsynced) => {
      startTrace('server', 'tenants synced');
      return unsynced;
    });
    synced.catch(() => undefined); // awaited below

    // No key replays a success for a write backend-sim lost: writes wait for this check (below).
    const integrity = integrityStatusFor(gatewayDb.kind === 'sqlite' ? gatewayDb.sqlite : gatewayDb.pool);
    const masterKey = loadMasterKey(config.dataDir, config.masterKeyHex);
    const leaseMs = config.backend.timeoutMs + 15_000;
    let store: IdempotencyStore | PostgresIdempotencyStore;
    if (gatewayDb.kind === 'sqlite') {
      store = new IdempotencyStore(gatewayDb.sqlite, leaseMs, masterKey, () => clock.now());
    } else {
      store = new PostgresIdempotencyStore(gatewayDb.pool, {
        leaseMs,
        masterKey,
        instanceId: config.instance.id,
        clock: () => clock.now(),
      });
      // One gateway.db has one process, which frees every reservation at open; on a shared database an instance
      // frees only those it left itself (its GATEWAY_INSTANCE_ID): the others' are theirs until their lease ends.
      if (config.instance.fromEnvironment) await store.freeOwnReservations();
    }
    // After the gateway listens (decision T32-3): while it runs, no write nor replay reaches the gateway (holdWritesUntil
    // below); a stop waits for it before the databases close.
    const checkStore = store;
    const consistency = synced
      .then(() => checkIdempotencyConsistency({ db: gatewayDb.db, store: checkStore, backend: services.backend }))
      .then((report) => {
        integrity.consistencyChecked(report);
        startTrace('server', 'idempotency checked');
        return report;
      });
    consistency.catch(() => undefined); // the caller's (main.ts: the start fails); the held writes are refused
    stops.push(() => consistency.catch(() => undefined).then(() => undefined));

    const app = await buildApp(config, {
      database: services.gatewayDb,
      keys: services.keys,
      tenants: services.tenants,
      backend: services.backend,
      now: options.now,
      clock,
    });
    stops.push(() => app.close());
    startTrace('server', 'app built');
    holdWritesUntil(app.server, consistency);
    // Watching its requests from the first one, so a drain knows what it already received.
    const gatewayDrain = drainable(app.server);
    const unsynced = await synced;
    if (unsynced.length > 0 && config.logLevel !== 'silent') {
      console.warn(
        `warning: backend-sim did not confirm tenant(s) ${unsynced.join(', ')}; their calls answer 503 until it does`,
      );
    }
    const onBound = await options.beforeListen?.({ ...services, config });
    let boundFailure: { error: unknown } | null = null;
    if (onBound) {
      // 'listening' is emitted from the listen call's next tick: connections are taken later, in the poll phase.
      app.server.prependOnceListener('listening', () => {
        try {
          onBound(listeningPort(app.server, config.port));
        } catch (error) {
          boundFailure = { error };
        }
      });
    }
    await app.listen({ host: config.host, port: config.port });
    if (boundFailure) throw (boundFailure as { error: unknown }).error;
    startTrace('server', 'listening');
    // The databases' integrity, off the main thread, once the gateway answers: the start does not wait for it.
    // gateway.db only where it holds the state (a file left by an appliance moved to PostgreSQL is not checked).
    const databases = applianceDatabases(config.dataDir, !config.backend.external).filter(
      (file) => config.database.kind === 'sqlite' || path.basename(file) !== 'gateway.db',
    );
    const running = startQuickCheck(config.dataDir, databases);
    integrity.quickCheckStarted();
    stops.push(() => running.stop());
    const quickCheck = running.done.then(
      (report) => {
        integrity.quickCheckDone(report);
        return report;
      },
      () => {
        integrity.quickCheckFailed();
        return null;
      },
    );
    // The CLI changes the clock through DATA_DIR/clock.json: noticed within a second.
    clock.watch();
    if (clock.offsetMs() > 0 && config.logLevel !== 'silent') {
      console.warn(
        `warning: the appliance clock runs ${formatDuration(clock.offsetMs())} ahead of real time (npm run cli -- clock reset)`,
      );
    }
    const port = listeningPort(app.server, config.port);
    config.port = port;
    const s3Public = config.s3.public;
    let drained: Promise<StackDrainResult> | null = null;
    const drain = () =>
      (drained ??= (async () => {
        const deadline = Date.now() + config.drainTimeoutMs;
        const gateway = await gatewayDrain.drain(deadline);
        // After the gateway: a redirect it answered while draining can still be followed.
        const storage = s3 ? await s3.drain(deadline) : null;
        return { gateway, storage };
      })());
    return {
      ...services,
      config,
      app,
      gatewayUrl: `http://127.0.0.1:${port}`,
      backendUrl,
      s3PublicUrl: `${s3Public.useSSL ? 'https' : 'http'}://${s3Public.endPoint}:${s3Public.port}`,
      backendSim,
      clock,
      integrity: { consistency, quickCheck },
      drain,
      close: async () => {
        await drain();
        // The check still asks backend-sim and writes gateway.db: both stay until it has ended.
        await consistency.catch(() => undefined);
        // Before the gateway's backend client is closed (it waits for its calls): a request cut at the
        // drain's bound may still wait on backend-sim (a latency or hang fault), and this ends that call.
        // backend-sim's own process stops here too, after the gateway's drain, which still needed it.
        await backendSim?.close().catch(() => undefined);
        await stopAll();
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** The port a listening server is bound to (port 0 resolved). */
function listeningPort(server: FastifyInstance['server'], configured: number): number {
  const address = server.address();
  return typeof address === 'object' && address ? address.port : configured;
}

/**
 * backend-sim exports where the gateway does, as a service of its own: `clinic-backend-sim`, or `<OTEL_SERVICE_NAME>-backend-sim`
 * (docs/observability.md § Tracing). Sent with its configuration, so its child process gets it however it was started.
 */
export function backendSimTracing(config: GatewayConfig): TracingSettings | null {
  if (!config.tracing) return null;
  const serviceName = backendSimServiceName(config.tracing.serviceName);
  return { ...config.tracing, serviceName, resource: { 'service.version': config.release } };
}

/** The storage backend-sim writes to: the internal endpoint, with the appliance's credentials and bucket. */
export function backendSimStorage(config: GatewayConfig) {
  return {
    ...config.s3.internal,
    accessKey: config.s3.accessKey,
    secretKey: config.s3.secretKey,
    bucket: config.s3.bucket,
    region: config.s3.region,
  };
}

/**
 * The embedded S3 when no S3_ENDPOINT is set (null otherwise), listening on S3_PORT (0: a free port, which `config`
 * then names as its internal endpoint, and as its public one where they were the same).
 */
export async function startConfiguredStorage(config: GatewayConfig, clock: ApplianceClock): Promise<EmbeddedS3 | null> {
  if (!config.s3.embedded) return null;
  const s3 = await startEmbeddedS3({
    directory: path.join(config.dataDir, 's3'),
    port: config.s3.embeddedPort,
    accessKey: config.s3.accessKey,
    secretKey: config.s3.secretKey,
    buckets: [config.s3.bucket],
    now: () => clock.now(),
  });
  const samePublic =
    config.s3.public.port === config.s3.internal.port && config.s3.public.endPoint === config.s3.internal.endPoint;
  config.s3.internal = { ...config.s3.internal, port: s3.port };
  if (samePublic) config.s3.public = { ...config.s3.internal };
  return s3;
}

/**
 * The storage's key pair: S3_ACCESS_KEY/S3_SECRET_KEY, or the one generated into DATA_DIR/storage.credentials
 * (never s3rver's published S3RVER/S3RVER). Production refuses a published secret wherever it comes from.
 */
export function resolveStorageCredentials(config: GatewayConfig): void {
  if (config.s3.credentials === 'data_dir') Object.assign(config.s3, storageCredentialsFor(config.dataDir));
  if (!isPublishedS3Secret(config.s3.secretKey)) return;
  if (config.appEnv === 'production') {
    throw new Error(
      'the storage secret is a published default (s3rver, MinIO or AWS example): refused with APP_ENV=production. ' +
        'Unset S3_ACCESS_KEY and S3_SECRET_KEY to use the pair generated into DATA_DIR/storage.credentials, or set your own.',
    );
  }
  if (config.logLevel !== 'silent') {
    console.warn(
      'warning: the storage secret is a published default: anyone on this machine can read and change the stored files (unset S3_ACCESS_KEY and S3_SECRET_KEY for a generated pair)',
    );
  }
}

/** backend-sim's child process as the stack hands it out. */
function inChildProcess(running: BackendSimProcess): StackBackendSim {
  return {
    mode: 'process',
    url: running.url,
    port: running.port,
    get pid() {
      return running.pid;
    },
    onRestart: (listener) => running.onRestart(listener),
    close: () => running.close(),
  };
}

/**
 * A backend-sim in another process (its child process, or BACKEND_URL's) cannot read this process's clock: it is
 * told the offset (`PUT /admin/clock`, backend-sim/routes/clock.ts) at start, on every change (before the change's
 * answer), and again every 5 s while shifted or after a failed push (a restarted backend-sim starts at real time).
 * `first`: the push at start, never rejected; `fresh` (a child just started, at offset 0) skips it at real time.
 */
function followedBackendClock(
  backend: BackendClient,
  clock: ApplianceClock,
  options: { fresh: boolean },
): { first: Promise<void>; push(): Promise<void>; stop(): Promise<void> } {
  let pushed = false;
  const push = async () => {
    pushed = false;
    await backend.call({ method: 'PUT', path: '/admin/clock', body: { offset_ms: clock.offsetMs() } }, z.unknown());
    pushed = true;
  };
  const unsubscribe = clock.onChange(push);
  const timer = setInterval(() => {
    if (clock.offsetMs() > 0 || !pushed) push().catch(() => undefined);
  }, 5000).unref();
  let first: Promise<void>;
  if (options.fresh && clock.offsetMs() === 0) {
    pushed = true;
    first = Promise.resolve();
  } else {
    first = push().catch(() => undefined);
  }
  return {
    first,
    push,
    stop: async () => {
      clearInterval(timer);
      unsubscribe();
    },
  };
}
