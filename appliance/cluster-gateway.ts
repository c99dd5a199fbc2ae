import { ConfigError, loadConfig } from '../server/config.ts';
import { startStack, type RunningStack } from './stack.ts';
import { registerFirstStart } from './bootstrap.ts';
import { publicGatewayUrl } from './runtime-file.ts';

/**
 * One gateway of `npm run cluster` (appliance/cluster.ts starts N of them): the gateway alone, since its
 * environment names the cluster's backend-sim (BACKEND_URL), storage (S3_ENDPOINT) and database (DATABASE_URL,
 * GATEWAY_INSTANCE_ID). It tells the supervisor over the IPC channel when it listens; SIGTERM (or the supervisor
 * gone: the channel closes) drains it like `npm start`. It writes no runtime.json: the supervisor does.
 */
export type ClusterGatewayMessage = { type: 'ready'; port: number; pid: number } | { type: 'failed'; error: string };

/** What the first gateway makes on a first start: the default clinics, operator and demo keys (appliance/bootstrap.ts). */
export interface ClusterBootstrap {
  /** Seeded doctor ids per clinic (the demo key bound to a doctor). */
  doctors: Record<string, number[]>;
}

const send = (message: ClusterGatewayMessage) => process.send?.(message);

export async function runClusterGateway(): Promise<void> {
  let stack: RunningStack;
  try {
    const config = loadConfig();
    if (config.database.kind !== 'postgres')
      throw new ConfigError('a cluster gateway needs DATABASE_URL (it is started by `npm run cluster`)');
    if (!config.backend.external)
      throw new ConfigError('a cluster gateway needs BACKEND_URL (it is started by `npm run cluster`)');
    const bootstrap = process.env.CLUSTER_BOOTSTRAP
      ? (JSON.parse(process.env.CLUSTER_BOOTSTRAP) as ClusterBootstrap)
      : null;
    stack = await startStack(config, {
      // As `npm start`: the credentials are on disk before this gateway's port answers.
      beforeListen: bootstrap
        ? async (services) => {
            const writeCredentials = await registerFirstStart(services, bootstrap.doctors);
            return (port) => writeCredentials(publicGatewayUrl(config.host, port));
          }
        : undefined,
    });
  } catch (error) {
    send({ type: 'failed', error: error instanceof Error ? error.message : String(error) });
    process.exitCode = 1;
    setTimeout(() => process.exit(1), 100).unref();
    return;
  }
  send({ type: 'ready', port: stack.config.port, pid: process.pid });
  // Writes wait for the start-time idempotency check (decision T32-3); if it fails, this gateway stops.
  stack.integrity.consistency.catch((error: unknown) => {
    console.error(`idempotency check failed: ${error instanceof Error ? error.message : String(error)}`);
    shutdown('the idempotency check failed', 1);
  });

  let stopping = false;
  const shutdown = (why: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => {
      console.error(`still stopping ${stack.config.drainTimeoutMs + 4000} ms after ${why}: forced exit`);
      process.exit(1);
    }, stack.config.drainTimeoutMs + 4000).unref();
    stack.close().then(
      () => process.exit(code),
      (error: unknown) => {
        console.error('shutdown failed:', error);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  // The supervisor died without stopping us (a SIGKILL): stop too, rather than serve on alone.
  process.on('disconnect', () => shutdown('the supervisor went away'));
}
