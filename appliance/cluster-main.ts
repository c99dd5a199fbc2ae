import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ConfigError, loadConfig, type GatewayConfig } from '../server/config.ts';
import { CREDENTIALS_FILE, firstCallCommand, isFirstStart, seedDefaultData, UnmovedStateError } from './bootstrap.ts';
import { ClusterStartError, startCluster, type RunningCluster } from './cluster.ts';
import { runClusterGateway } from './cluster-gateway.ts';
import { buildConsoleIfChanged } from './build-console-if-changed.ts';
import { PostgresSetupError, processRunning } from './postgres.ts';
import { listenDescription, publicGatewayUrl, RUNTIME_FILE } from './runtime-file.ts';
import { onStopSignals } from './stop-signals.ts';

/**
 * `npm run cluster -- --instances N`: the appliance with N gateway processes sharing one PostgreSQL
 * (appliance/cluster.ts). The same bundle runs each gateway (`--gateway-instance=<n>`, started by the cluster).
 */
const USAGE = `Usage: npm run cluster -- [--instances N]

Runs PostgreSQL (the cluster's own under DATA_DIR/postgres, or the server DATABASE_URL names), the storage and
backend-sim once, and N gateway processes (default 2) on PORT…PORT+N-1 sharing that database. Ctrl-C stops all.

Environment (besides npm start's): DATABASE_URL, DATABASE_POOL_SIZE (per gateway, default 10),
POSTGRES_PORT (the cluster's own PostgreSQL, 127.0.0.1, default 5433), POSTGRES_BIN_DIR
(default /usr/lib/postgresql/<version>/bin), BACKEND_PORT (default: a free loopback port).`;

const clusterEnv = z.object({
  POSTGRES_PORT: z.coerce.number().int().min(0).max(65535).default(5433),
  POSTGRES_BIN_DIR: z.string().min(1).optional(),
  BACKEND_PORT: z.coerce.number().int().min(0).max(65535).optional(),
});

function parseInstances(argv: string[]): number | 'help' {
  let instances = 2;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') return 'help';
    // What `npm run cluster` passes, as `npm start` does: handled in supervise().
    if (arg === '--build-console-if-changed') continue;
    const inline = /^--instances=(.*)$/.exec(arg);
    const value = inline ? inline[1] : arg === '--instances' ? argv[++i] : undefined;
    if (value === undefined) throw new ConfigError(`unknown argument ${arg}\n\n${USAGE}`);
    if (!/^[1-9]\d*$/.test(value) || Number(value) > 64)
      throw new ConfigError(`--instances must be a whole number from 1 to 64 (got ${value ?? 'nothing'})`);
    instances = Number(value);
  }
  return instances;
}

async function supervise(): Promise<void> {
  let instances: number | 'help';
  let config: GatewayConfig;
  let env: z.infer<typeof clusterEnv>;
  try {
    instances = parseInstances(process.argv.slice(2));
    if (instances === 'help') {
      console.log(USAGE);
      return;
    }
    config = loadConfig();
    const parsed = clusterEnv.safeParse(process.env);
    if (!parsed.success)
      throw new ConfigError(
        `Invalid configuration:\n${parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')}`,
      );
    env = parsed.data;
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(2);
  }
  const started = Date.now();
  const log = (line: string) => console.log(line);
  if (process.argv.includes('--build-console-if-changed')) await buildConsoleIfChanged({ log });
  let cluster: RunningCluster | null = null;
  let startingAborted = false;
  const stopCluster = (signal: string) => {
    console.log(
      `\n${signal}: stopping: the gateways drain (at most ${config.drainTimeoutMs} ms), then backend-sim and the storage, then PostgreSQL…`,
    );
    const running = cluster!;
    running.stop().then(
      (report) => {
        const forced = report.gateways.filter((g) => g.forced).length;
        console.log(
          `stopped in ${report.ms} ms: ${report.gateways.length} gateway(s)${forced ? ` (${forced} cut at the bound)` : ''}` +
            (running.postgres
              ? `, PostgreSQL ${report.postgresStopped ? 'stopped' : 'NOT stopped (see its log)'}`
              : ''),
        );
        process.exit(report.postgresStopped ? 0 : 1);
      },
      (error: unknown) => {
        console.error('Shutdown failed:', error);
        process.exit(1);
      },
    );
  };
  onStopSignals(
    (signal) => {
      if (cluster) return stopCluster(signal);
      // Still starting: the start in progress stops here (below); a second Ctrl-C forces.
      startingAborted = true;
      console.log(`\n${signal}: stopping once the start in progress is undone…`);
    },
    // The cluster's own PostgreSQL runs in a session of its own (pg_ctl): a forced exit would leave it running.
    // SIGQUIT is its immediate shutdown: what it committed is in its WAL, replayed at the next start.
    () => {
      const postgres = cluster?.postgres;
      if (postgres && processRunning(postgres.pid)) process.kill(postgres.pid, 'SIGQUIT');
    },
  );

  try {
    cluster = await startCluster({
      config,
      instances,
      postgres: { port: env.POSTGRES_PORT, binDir: env.POSTGRES_BIN_DIR },
      backendPort: env.BACKEND_PORT,
      // This same module, as it runs (the bundle appliance/start.mjs built and names, or the source under tsx's
      // loader): each gateway starts without the launcher's staleness check.
      gatewayCommand: {
        command: process.execPath,
        args: [
          ...process.execArgv,
          (globalThis as { applianceBundle?: string }).applianceBundle ?? fileURLToPath(import.meta.url),
        ],
      },
      isFirstStart: async (c) => {
        try {
          return await isFirstStart(c);
        } catch (error) {
          throw error instanceof UnmovedStateError ? new ClusterStartError(error.message) : error;
        }
      },
      seedDefaultData: (c) => seedDefaultData(c, () => import('../seed/seed.ts')),
      log,
      onGatewayExit: (g, code, signal) =>
        console.error(
          `gateway ${g.index} (pid ${g.pid}, ${g.url}) exited (${signal ?? `code ${code}`}); the others keep answering`,
        ),
    });
  } catch (error) {
    const known =
      error instanceof ClusterStartError || error instanceof PostgresSetupError || error instanceof ConfigError;
    console.error(
      `Cluster start failed: ${known ? (error as Error).message : error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    process.exit(1);
  }
  if (startingAborted) {
    stopCluster('SIGINT');
    return;
  }
  const c = cluster;
  const credentialsFile = path.join(config.dataDir, CREDENTIALS_FILE);
  const urlOf = (port: number) => publicGatewayUrl(config.host, port);
  console.log(
    [
      '',
      `Clinic Exams Gateway ${config.release}: a cluster of ${c.gateways.length} gateway(s) is up (${Date.now() - started} ms)`,
      ...c.gateways.map(
        (g) => `  gateway ${g.index}  ${urlOf(g.port)}/v1/ping  (pid ${g.pid}, instance ${g.instanceId})`,
      ),
      `  listens    ${listenDescription(
        config.host,
        c.gateways.map((g) => g.port),
      )}`,
      `  Console    ${urlOf(c.gateways[0].port)}/console/ (any gateway)`,
      `  database   ${c.database.url}${c.postgres ? ` (PostgreSQL ${c.postgres.version} under ${path.join(config.dataDir, 'postgres')}, pid ${c.postgres.pid})` : ''}`,
      `  backend    ${c.backendUrl} (loopback only)`,
      `  storage    ${c.s3PublicUrl} (${config.s3.embedded ? 'embedded s3rver' : 'external S3'}, bucket ${config.s3.bucket})`,
      `  data       ${config.dataDir}`,
      `  credentials (operator login and demo API keys, mode 0600): ${credentialsFile}`,
      `  ports, pids and URLs: ${path.join(config.dataDir, RUNTIME_FILE)}`,
      '',
      'First signed call (bash + openssl + curl):',
      firstCallCommand(urlOf(c.gateways[0].port), credentialsFile),
      '',
      'Ctrl-C stops everything.',
    ].join('\n'),
  );
}

const gatewayArg = process.argv.find((a) => a.startsWith('--gateway-instance='));
if (gatewayArg) await runClusterGateway();
else await supervise();
