import path from 'node:path';
import { ConfigError, loadConfig, type GatewayConfig } from '../server/config.ts';
import { startStack, type RunningStack } from './stack.ts';
import {
  CREDENTIALS_FILE,
  firstCallCommand,
  isFirstStart,
  registerFirstStart,
  seedDefaultData,
  UnmovedStateError,
} from './bootstrap.ts';
import { buildConsoleIfChanged } from './build-console-if-changed.ts';
import { assertPortsFree, portErrorMessage, PortInUseError } from './port-check.ts';
import {
  clientHost,
  httpUrl,
  listenDescription,
  publicGatewayUrl,
  readRuntimeFile,
  removeRuntimeFile,
  RUNTIME_FILE,
  writeRuntimeFile,
} from './runtime-file.ts';
import { describeConsistency } from '../server/integrity/idempotency-consistency.ts';
import { describeQuickCheck } from '../server/integrity/quick-check.ts';
import { onStopSignals } from './stop-signals.ts';
import { withoutCredentials } from '../server/proxy/contract-store.ts';
import { startTrace } from './start-trace.mjs';

/**
 * `npm start`: embedded S3, backend-sim (its own child process: appliance/backend-sim-process.ts) and the
 * gateway in the foreground; Ctrl-C stops all three.
 * With `--build-console-if-changed` (what `npm start` passes) the console is rebuilt first when its
 * sources changed since the last build; tests that spawn this file skip that.
 */
async function main(): Promise<void> {
  startTrace('server', 'bundle loaded');
  let config: GatewayConfig;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  const started = Date.now();
  const running = readRuntimeFile(config.dataDir);
  await assertPortsFree(
    config,
    running
      ? `an appliance (pid ${running.pid}) is already running on this DATA_DIR at ${running.gateway.url}`
      : undefined,
  );
  startTrace('server', 'ports checked');
  if (process.argv.includes('--build-console-if-changed'))
    await buildConsoleIfChanged({ log: (line) => console.log(line) });
  startTrace('server', 'console checked');

  let firstStart: boolean;
  try {
    firstStart = await isFirstStart(config);
  } catch (error) {
    if (!(error instanceof UnmovedStateError)) throw error;
    console.error(error.message);
    process.exit(2);
  }
  let doctors: Record<string, number[]> = {};
  if (firstStart) console.log(`First start: creating ${config.dataDir} with demo, sandbox and clinica-b…`);

  const stack = await startStack(config, {
    beforeBackend: async (c) => {
      if (firstStart && c.seedOnFirstStart) doctors = await seedDefaultData(c, () => import('../seed/seed.ts'));
    },
    // The credentials are on disk before the port answers: a script waiting for /readyz then reads them.
    beforeListen: firstStart
      ? async (services) => {
          const writeCredentials = await registerFirstStart(services, doctors);
          return (port) => writeCredentials(publicGatewayUrl(config.host, port));
        }
      : undefined,
  });
  const gatewayUrl = publicGatewayUrl(config.host, stack.config.port);
  const credentialsFile = path.join(config.dataDir, CREDENTIALS_FILE);

  // Before runtime.json and the banner say the stack is up: a signal sent as soon as they appear drains it.
  onStopSignals((signal) => {
    const bound = config.drainTimeoutMs;
    console.log(
      `\n${signal}: stopping: no new connections, answering the requests already received (at most ${bound} ms), then flushing the audit log and closing the databases…`,
    );
    // Whatever hangs after the drain (a database close, a worker) does not keep the process alive for ever.
    setTimeout(() => {
      console.error(`Shutdown still running ${bound + SHUTDOWN_MARGIN_MS} ms after ${signal}: forced exit.`);
      process.exit(1);
    }, bound + SHUTDOWN_MARGIN_MS).unref();
    stack
      .drain()
      .then(({ gateway, storage }) => {
        const cut = gateway.cut + (storage?.cut ?? 0);
        console.log(
          `drained in ${gateway.ms + (storage?.ms ?? 0)} ms: ${gateway.answered} request(s) answered` +
            (cut > 0 ? `, ${cut} cut at the ${bound} ms bound (DRAIN_TIMEOUT_MS)` : ''),
        );
        return stack.close();
      })
      .then(
        () => {
          removeRuntimeFile(config.dataDir);
          process.exit(0);
        },
        (error) => {
          removeRuntimeFile(config.dataDir);
          console.error('Shutdown failed:', error);
          process.exit(1);
        },
      );
  });

  // Where this stack listens, for the CLI (and scripts) started later with whatever environment.
  const s3Internal = stack.config.s3.internal;
  const localHost = clientHost(config.host);
  const writeRuntime = () =>
    writeRuntimeFile(config.dataDir, {
      pid: process.pid,
      started_at: new Date(started).toISOString(),
      release: config.release,
      data_dir: config.dataDir,
      gateway: { url: httpUrl(localHost, stack.config.port), port: stack.config.port, host: config.host },
      backend: {
        url: stack.backendUrl,
        port: stack.config.backend.external ? null : stack.config.backend.port,
        external: stack.config.backend.external,
        ...(stack.backendSim ? { pid: stack.backendSim.pid } : {}),
      },
      ...(config.proxy
        ? {
            proxy: {
              mode: config.proxy.mode,
              upstream: withoutCredentials(config.proxy.upstream),
              strict: config.proxy.strict,
            },
          }
        : {}),
      storage: {
        internal_url: httpUrl(s3Internal.endPoint, s3Internal.port, s3Internal.useSSL),
        public_url: stack.s3PublicUrl,
        embedded: stack.config.s3.embedded,
        port: stack.config.s3.embedded ? s3Internal.port : null,
      },
    });
  writeRuntime();
  startTrace('server', 'runtime file written');
  // A restarted backend-sim has another pid.
  stack.backendSim?.onRestart(writeRuntime);
  // Reads are answered meanwhile; writes and replays wait for it (decision T32-3). The banner says what it found.
  let consistency: Awaited<typeof stack.integrity.consistency>;
  try {
    consistency = await stack.integrity.consistency;
  } catch (error) {
    console.error(
      `Startup failed: the idempotency check did not run (${error instanceof Error ? error.message : String(error)})`,
    );
    await stack.close().catch(() => undefined);
    removeRuntimeFile(config.dataDir);
    process.exit(1);
  }

  console.log(
    [
      '',
      `Clinic Exams Gateway ${config.release} is up (${Date.now() - started} ms)`,
      `  listens    ${listenDescription(config.host, [stack.config.port])}`,
      `  API        ${gatewayUrl}/v1/ping`,
      `  Console    ${gatewayUrl}/console/`,
      `  backend    ${stack.backendUrl} (${backendProcess(stack.backendSim)}loopback only)`,
      `  storage    ${stack.s3PublicUrl} (${config.s3.embedded ? 'embedded s3rver' : 'external S3'}, bucket ${config.s3.bucket})`,
      ...(config.proxy
        ? [
            `  upstream   ${withoutCredentials(config.proxy.upstream)}/v1 (contract guard, ${config.proxy.mode}${config.proxy.strict ? ', strict' : ''}: docs/contract-guard.md)`,
          ]
        : []),
      `  data       ${config.dataDir}`,
      `  credentials (operator login and demo API keys, mode 0600): ${credentialsFile}`,
      `  ports and URLs for the CLI: ${path.join(config.dataDir, RUNTIME_FILE)}`,
      '',
      'First signed call (bash + openssl + curl):',
      firstCallCommand(gatewayUrl, credentialsFile),
      '',
      ...startChecks(consistency),
      'Ctrl-C stops everything.',
    ].join('\n'),
  );
  // Reported when the background check ends (the start did not wait for it); also in /readyz.
  void stack.integrity.quickCheck.then((report) => {
    if (!report) console.error('integrity: the databases could not be checked (PRAGMA quick_check did not run)');
    else if (report.checks.some((c) => c.problems.length > 0)) console.error(describeQuickCheck(report));
    else console.log(describeQuickCheck(report));
  });
}

/** After the drain, what stopping may still take (audit flush, databases) before the exit is forced. */
const SHUTDOWN_MARGIN_MS = 5000;

/** Where backend-sim runs, for the banner. */
function backendProcess(backendSim: RunningStack['backendSim']): string {
  if (!backendSim) return 'BACKEND_URL, ';
  return backendSim.mode === 'process' ? `its own process, pid ${backendSim.pid}, ` : 'in this process, ';
}

/** The start log's lines for the start-time checks (server/integrity/), when there is something to say. */
function startChecks(consistency: Parameters<typeof describeConsistency>[0]): string[] {
  const text = describeConsistency(consistency);
  return text ? [text, ''] : [];
}

/** One line, no stack trace: a port in use names the variable that moves it. */
function fail(error: unknown): never {
  let config: GatewayConfig | undefined;
  try {
    config = loadConfig();
  } catch {
    config = undefined;
  }
  const portMessage = error instanceof PortInUseError ? error.message : config ? portErrorMessage(config, error) : null;
  console.error(`Startup failed: ${portMessage ?? (error instanceof Error ? error.message : String(error))}`);
  process.exit(1);
}

// s3rver emits a listen failure as an 'error' event nobody listens to: without this it would end
// the start with a stack trace instead of the message above. Only while starting.
process.on('uncaughtException', fail);
main().then(() => process.off('uncaughtException', fail), fail);
