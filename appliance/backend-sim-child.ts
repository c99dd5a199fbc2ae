import type { BackendConfig } from '../backend-sim/config.ts';
import { startBackendSim, type RunningBackendSim } from '../backend-sim/main.ts';
import { startTrace } from './start-trace.mjs';

/** BackendConfig without its clock: another process's clock cannot be passed; the gateway pushes its offset instead. */
export type BackendSimChildConfig = Omit<BackendConfig, 'now'>;

export type ToBackendSimChild = { type: 'start'; config: BackendSimChildConfig } | { type: 'stop' };
export type FromBackendSimChild =
  | { type: 'ready'; port: number }
  | { type: 'failed'; error: string; code?: string; port?: number };

/** Closing the clinics' databases takes milliseconds; past this the process exits anyway. */
const STOP_BOUND_MS = 5_000;

/**
 * The entry of backend-sim as `npm start`'s child process (appliance/backend-sim-process.ts starts it): its own
 * event loop, so the clinic's work runs on another core than the gateway's. Run from its own bundle, which the
 * launcher builds beside the server's and starts before it loads that one (appliance/start.mjs:
 * `.cache/start/backend-sim.mjs`, backend-sim's modules only: about 0.2 s of CPU to load against 0.5 s), or from
 * this file under tsx (tests, the bench). Importing it runs it: everything else imports its types only.
 *
 * It loads its modules, then waits for its configuration on the IPC channel (the internal token never goes on a
 * command line or in the environment): the stack sends it once the storage listens and a first start has seeded
 * the clinics, so nothing opens a clinic's database before that. It stops when told to (after the gateway's
 * drain, closing its databases), and exits at once when the channel closes without that: the appliance is gone (a
 * SIGKILL, a forced exit) and nothing may serve on alone. At once, as it would have died with the appliance in one
 * process: a transaction not committed is rolled back by the next open, as after any crash.
 */
function runBackendSimChild(): void {
  startTrace('backend-sim', 'bundle loaded');
  const send = process.send?.bind(process);
  if (!send) {
    console.error(
      'backend-sim child: started without an IPC channel (npm start starts it; `tsx backend-sim/main.ts` runs it alone)',
    );
    process.exit(2);
  }
  let running: RunningBackendSim | null = null;
  let starting: Promise<void> | null = null;
  let stopping = false;

  const stop = () => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => process.exit(1), STOP_BOUND_MS).unref();
    void (starting ?? Promise.resolve())
      .then(() => running?.close())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };

  process.on('message', (message: ToBackendSimChild) => {
    if (message.type === 'stop') return stop();
    if (message.type !== 'start' || starting || stopping) return;
    startTrace('backend-sim', 'configuration received');
    starting = startBackendSim(message.config).then(
      (started) => {
        running = started;
        startTrace('backend-sim', 'listening');
        send({ type: 'ready', port: started.port } satisfies FromBackendSimChild);
      },
      (error: unknown) => {
        const e = error as NodeJS.ErrnoException & { port?: number };
        const failed: FromBackendSimChild = {
          type: 'failed',
          error: e instanceof Error ? e.message : String(e),
          code: e?.code,
          port: e?.port,
        };
        send(failed, () => process.exit(1));
      },
    );
  });
  process.on('disconnect', () => process.exit(stopping ? 0 : 1));
  // The terminal's Ctrl-C (and a SIGTERM sent to the whole process group) reaches this process too: it keeps
  // answering, since the gateway's drain still needs it, and stops when the appliance says so or goes away.
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => undefined);
}

runBackendSimChild();
