import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunningBackendSim } from '../backend-sim/main.ts';
import type { BackendSimChildConfig, FromBackendSimChild, ToBackendSimChild } from './backend-sim-child.ts';

/**
 * backend-sim in a child process of the stack (appliance/backend-sim-child.ts runs in it): the gateway and the
 * clinic each get an event loop, so a create's two halves run on two cores. The stack spawns it first thing, so
 * Node and the bundle load while the storage starts (under `npm start` the launcher has started it already, while
 * the server's bundle loaded), and sends its configuration when the clinics may be opened.
 *
 * The child dies with the appliance: it exits at once when its IPC channel closes, which the kernel does when
 * this process ends, however it ends. It stays in the appliance's process group (a signal to the group reaches it) and
 * ignores SIGINT and SIGTERM: the terminal's Ctrl-C reaches it too, while the gateway's drain still needs it.
 * An unexpected exit (a crash, a kill of that pid) starts it again on the same port after a short pause, longer
 * after each exit in a row; the clinics' calls answer 503 meanwhile.
 */
export interface BackendSimProcess extends RunningBackendSim {
  /** The running child's pid (another one after a restart). */
  readonly pid: number;
  /** Called each time backend-sim is back after an unexpected exit (it has forgotten the clock offset it was told). */
  onRestart(listener: () => void): void;
}

export interface SpawnedBackendSim {
  /** Sends the configuration; resolves once backend-sim listens. Rejects with the listen error (code, port) if it cannot. */
  start(config: BackendSimChildConfig): Promise<BackendSimProcess>;
  /** Ends a child whose stack did not start. */
  kill(): Promise<void>;
}

export interface BackendSimProcessOptions {
  /** Where restarts are reported (the operator's terminal). */
  log?: (line: string) => void;
  /** How long a start (module loading, the clinics' databases, listen) may take. */
  startTimeoutMs?: number;
}

/** After `stop`, closing the clinics' databases; past this the child is killed. */
const STOP_BOUND_MS = 10_000;
/** A child that ran this long before exiting restarts after the shortest pause again. */
const STABLE_MS = 60_000;
const restartDelayMs = (exitsInARow: number) => Math.min(30_000, 500 * 2 ** exitsInARow);

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * What runs the child: its bundle, built by the launcher beside the one this process runs (appliance/start.mjs
 * names it), or, from the sources (tests, the bench), its entry under tsx.
 */
function childCommand(): { command: string; args: string[] } {
  const bundle = (globalThis as { applianceBundles?: Record<string, string> }).applianceBundles?.['backend-sim'];
  if (bundle) return { command: process.execPath, args: [...process.execArgv, bundle] };
  return {
    command: process.execPath,
    args: ['--import', 'tsx', ...withoutTsx(process.execArgv), path.join(ROOT, 'appliance', 'backend-sim-child.ts')],
  };
}

/**
 * This process's Node options (a profiler's, say) without tsx's own hooks: the `tsx` command adds a preflight that
 * relays signals to the tsx process, which is this process's parent, not the child's.
 */
function withoutTsx(execArgv: string[]): string[] {
  const kept: string[] = [];
  const isTsx = (value: string) => /(^|[/\\:])tsx([/\\]|$)/.test(value);
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i];
    if (/^(--require|-r|--import|--loader|--experimental-loader)$/.test(arg) && isTsx(execArgv[i + 1] ?? '')) i++;
    else if (!(arg.startsWith('--') && arg.includes('=') && isTsx(arg))) kept.push(arg);
  }
  return kept;
}

interface Child {
  process: ChildProcess;
  exited: Promise<void>;
}

/** The child the launcher started before it loaded the server's bundle (appliance/start.mjs), once, if it still runs. */
function prestarted(): ChildProcess | null {
  const companions = (globalThis as { applianceCompanions?: Record<string, ChildProcess | undefined> })
    .applianceCompanions;
  const child = companions?.['backend-sim'];
  if (!child) return null;
  delete companions['backend-sim'];
  if (child.exitCode === null && child.signalCode === null && child.connected) return child;
  child.kill('SIGKILL');
  return null;
}

function launch(): Child {
  const { command, args } = childCommand();
  // stdout and stderr are the appliance's: backend-sim's own warnings and a crash's stack trace reach the operator.
  const child = prestarted() ?? spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    // Not even spawned (no such executable): 'exit' may never come.
    child.once('error', () => resolve());
  });
  return { process: child, exited };
}

const isRunning = (child: Child) => child.process.exitCode === null && child.process.signalCode === null;

/** Resolves with the port once the child listens; rejects if it fails, exits or takes too long (then it is killed). */
function started(child: Child, config: BackendSimChildConfig, timeoutMs: number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const p = child.process;
    const settle = (error: Error | null, port?: number) => {
      clearTimeout(timer);
      p.off('message', onMessage);
      p.off('exit', onExit);
      p.off('error', onError);
      if (error) {
        if (isRunning(child)) p.kill('SIGKILL');
        reject(error);
      } else resolve(port!);
    };
    const onMessage = (message: FromBackendSimChild) => {
      if (message.type === 'ready') settle(null, message.port);
      else if (message.type === 'failed')
        settle(Object.assign(new Error(message.error), { code: message.code, port: message.port }));
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      settle(new Error(`backend-sim exited (${signal ?? `code ${code}`}) before it listened`));
    const onError = (error: Error) => settle(new Error(`backend-sim could not be started: ${error.message}`));
    const timer = setTimeout(() => settle(new Error(`backend-sim did not listen within ${timeoutMs} ms`)), timeoutMs);
    p.on('message', onMessage);
    p.once('exit', onExit);
    p.once('error', onError);
    p.send(
      { type: 'start', config } satisfies ToBackendSimChild,
      (error) => error && settle(new Error(`backend-sim could not be told its configuration: ${error.message}`)),
    );
  });
}

async function stopChild(child: Child, signal: 'stop' | 'SIGKILL'): Promise<void> {
  if (!isRunning(child)) return;
  const p = child.process;
  if (signal === 'SIGKILL' || !p.connected) p.kill('SIGKILL');
  else p.send({ type: 'stop' } satisfies ToBackendSimChild, (error) => error && p.kill('SIGKILL'));
  const timer = setTimeout(() => p.kill('SIGKILL'), STOP_BOUND_MS);
  await child.exited;
  clearTimeout(timer);
}

/** Spawns backend-sim's process now; it listens once start() gives it its configuration. */
export function spawnBackendSim(options: BackendSimProcessOptions = {}): SpawnedBackendSim {
  const log = options.log ?? ((line: string) => console.error(line));
  const timeoutMs = options.startTimeoutMs ?? 30_000;
  let current = launch();

  return {
    kill: () => stopChild(current, 'SIGKILL'),
    start: async (input) => {
      const port = await started(current, input, timeoutMs);
      // A restart listens where the gateway's backend client already points.
      const config: BackendSimChildConfig = { ...input, port };
      const listeners: Array<() => void> = [];
      let stopping = false;
      let restartTimer: NodeJS.Timeout | null = null;
      let exitsInARow = 0;
      let upSince = Date.now();

      const watch = (child: Child) => {
        child.process.once('exit', (code, signal) => {
          if (stopping || child !== current) return;
          if (Date.now() - upSince >= STABLE_MS) exitsInARow = 0;
          scheduleRestart(`exited (${signal ?? `code ${code}`})`);
        });
      };
      const scheduleRestart = (why: string) => {
        const delay = restartDelayMs(exitsInARow++);
        log(
          `backend-sim (pid ${current.process.pid}) ${why}: starting it again on port ${port} in ${delay} ms; the clinics' calls answer 503 meanwhile`,
        );
        restartTimer = setTimeout(() => void restart(), delay);
      };
      const restart = async () => {
        restartTimer = null;
        if (stopping) return;
        const next = launch();
        current = next;
        try {
          await started(next, config, timeoutMs);
        } catch (error) {
          if (!stopping)
            scheduleRestart(`did not start again (${error instanceof Error ? error.message : String(error)})`);
          return;
        }
        if (stopping) return;
        upSince = Date.now();
        watch(next);
        log(`backend-sim is back (pid ${next.process.pid}, port ${port})`);
        for (const listener of listeners) listener();
      };
      watch(current);

      return {
        url: `http://127.0.0.1:${port}`,
        port,
        get pid() {
          return current.process.pid ?? 0;
        },
        onRestart: (listener) => void listeners.push(listener),
        close: async () => {
          stopping = true;
          if (restartTimer) clearTimeout(restartTimer);
          await stopChild(current, 'stop');
        },
      };
    },
  };
}
