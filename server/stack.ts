import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { GatewayConfig } from './config.ts';
import { openGatewayDb, type OpenedGatewayDb } from './db/database.ts';
import { loadMasterKey, SecretBox } from './keys/secret-box.ts';
import { KeysService } from './keys/keys.service.ts';
import { TenantsService } from './tenants/tenants.service.ts';
import { BackendClient } from './backend/client.ts';
import { buildApp } from './app.ts';
import { startEmbeddedS3, type EmbeddedS3 } from './storage/embedded-s3.ts';
import { startBackendSim, type RunningBackendSim } from '../backend-sim/main.ts';
import { backendTokenFor, ensurePrivateDir } from './secrets-files.ts';

/** What the gateway needs from its data dir, without listening: used by the stack and the CLI. */
export interface GatewayServices {
  gatewayDb: OpenedGatewayDb;
  keys: KeysService;
  tenants: TenantsService;
  backend: BackendClient;
  close(): Promise<void>;
}

export async function openGatewayServices(config: GatewayConfig, backendUrl = config.backend.url): Promise<GatewayServices> {
  const gatewayDb = await openGatewayDb(config.dataDir);
  const box = new SecretBox(loadMasterKey(config.dataDir, config.masterKeyHex));
  const keys = new KeysService(gatewayDb.db, box, gatewayDb.sqlite);
  const backend = new BackendClient(backendUrl, backendTokenFor(config.dataDir, config.backend.token), config.backend.timeoutMs);
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
  backendSim: RunningBackendSim | null;
  close(): Promise<void>;
}

export interface StackHooks {
  /** Runs after storage is up and before backend-sim opens the tenant databases (first-start seeding). */
  beforeBackend?: (config: GatewayConfig) => Promise<void>;
  now?: () => number;
}

/**
 * Starts S3 (embedded unless S3_ENDPOINT is set), backend-sim (unless BACKEND_URL is set) and the gateway.
 * Port 0 anywhere picks a free port; the returned config holds the real ones.
 */
export async function startStack(input: GatewayConfig, hooks: StackHooks = {}): Promise<RunningStack> {
  const config: GatewayConfig = structuredClone(input);
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  };
  try {
    // Private from the first file on (the embedded S3 writes under DATA_DIR before anything else does).
    ensurePrivateDir(config.dataDir);
    let s3: EmbeddedS3 | null = null;
    if (config.s3.embedded) {
      s3 = await startEmbeddedS3({
        directory: path.join(config.dataDir, 's3'),
        port: config.s3.embeddedPort,
        accessKey: config.s3.accessKey,
        secretKey: config.s3.secretKey,
        buckets: [config.s3.bucket],
      });
      stops.push(() => s3!.close());
      const samePublic = config.s3.public.port === config.s3.internal.port && config.s3.public.endPoint === config.s3.internal.endPoint;
      config.s3.internal = { ...config.s3.internal, port: s3.port };
      if (samePublic) config.s3.public = { ...config.s3.internal };
    }

    await hooks.beforeBackend?.(config);

    let backendSim: RunningBackendSim | null = null;
    let backendUrl = config.backend.url;
    if (!config.backend.external) {
      backendSim = await startBackendSim({
        dataDir: config.dataDir,
        internalToken: backendTokenFor(config.dataDir, config.backend.token),
        port: config.backend.port,
        s3: { ...config.s3.internal, accessKey: config.s3.accessKey, secretKey: config.s3.secretKey, bucket: config.s3.bucket, region: config.s3.region },
      });
      stops.push(() => backendSim!.close());
      backendUrl = backendSim.url;
      config.backend = { ...config.backend, url: backendUrl, port: backendSim.port };
    }

    const services = await openGatewayServices(config, backendUrl);
    stops.push(() => services.close());
    const unsynced = await services.tenants.syncAllToBackend();
    if (unsynced.length > 0 && config.logLevel !== 'silent') {
      console.warn(`warning: backend-sim did not confirm tenant(s) ${unsynced.join(', ')}; their calls answer 503 until it does`);
    }

    const app = await buildApp(config, {
      db: services.gatewayDb.db,
      sqlite: services.gatewayDb.sqlite,
      keys: services.keys,
      tenants: services.tenants,
      backend: services.backend,
      now: hooks.now,
    });
    stops.push(() => app.close());
    await app.listen({ host: config.host, port: config.port });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    config.port = port;
    const s3Public = config.s3.public;
    return {
      ...services,
      config,
      app,
      gatewayUrl: `http://127.0.0.1:${port}`,
      backendUrl,
      s3PublicUrl: `${s3Public.useSSL ? 'https' : 'http'}://${s3Public.endPoint}:${s3Public.port}`,
      backendSim,
      close: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
