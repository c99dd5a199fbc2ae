import type { AddressInfo } from 'node:net';
import { buildBackendApp } from './app.ts';
import type { BackendConfig } from './config.ts';
import { BACKEND_SIM_SERVICE_NAME, tracingSettingsFrom } from '../shared-node/otel.ts';

export interface RunningBackendSim {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Builds backend-sim and listens on loopback only (port 0 picks a free port). */
export async function startBackendSim(config: BackendConfig): Promise<RunningBackendSim> {
  const app = await buildBackendApp(config);
  await app.listen({ host: '127.0.0.1', port: config.port ?? 8081 });
  const { port } = app.server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, port, close: () => app.close() };
}

// Standalone run: `tsx backend-sim/main.ts` (npm start runs it as its child process: appliance/backend-sim-child.ts).
if (import.meta.url === `file://${process.argv[1]}`) {
  const env = process.env;
  const token = env.BACKEND_TOKEN;
  if (!token) {
    console.error('BACKEND_TOKEN is required');
    process.exit(1);
  }
  // The storage's own credentials (the appliance's embedded S3 generates its pair into DATA_DIR/storage.credentials):
  // no published default such as s3rver's S3RVER/S3RVER is assumed.
  if (env.S3_ENDPOINT && (!env.S3_ACCESS_KEY || !env.S3_SECRET_KEY)) {
    console.error('S3_ENDPOINT needs S3_ACCESS_KEY and S3_SECRET_KEY');
    process.exit(1);
  }
  const running = await startBackendSim({
    dataDir: env.DATA_DIR ?? 'data',
    internalToken: token,
    port: Number(env.BACKEND_PORT ?? 8081),
    logger: env.BACKEND_LOG === '1',
    // Alone, its own service: OTEL_SERVICE_NAME as given (npm start names it after the gateway: appliance/stack.ts).
    tracing: tracingSettingsFrom(env, { serviceName: BACKEND_SIM_SERVICE_NAME }),
    s3: env.S3_ENDPOINT
      ? {
          endPoint: env.S3_ENDPOINT,
          port: Number(env.S3_PORT ?? 9000),
          useSSL: env.S3_USE_SSL === '1',
          accessKey: env.S3_ACCESS_KEY!,
          secretKey: env.S3_SECRET_KEY!,
          bucket: env.S3_BUCKET ?? 'clinic-files',
          region: env.S3_REGION ?? 'us-east-1',
        }
      : undefined,
  });
  console.log(`backend-sim listening on ${running.url}`);
  const stop = () => void running.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
