/**
 * A repeat of the signal that began the stop, this soon after it, is a copy of that same stop, not a second request:
 * a SIGTERM or Ctrl-C sent to the whole process group of `npm start` reaches this process directly and again when
 * npm forwards it a moment later (a few ms; the window leaves room for a loaded machine). A person's second Ctrl-C,
 * later than this, still forces the exit (docs/decisions.md § Issue 29: launcher).
 */
export const REPEAT_WINDOW_MS = 1000;

/**
 * Under npm (`npm start`, `npm run cluster`: npm sets npm_lifecycle_event) one copy of a group's signal is certain,
 * and a loaded machine can deliver it later than any window (seen in CI: stops forced while both cores ran test
 * stacks). There the first repeat of the signal is that copy whenever it comes; the next one forces.
 */
const forwardedByNpm = (env: NodeJS.ProcessEnv) => env.npm_lifecycle_event !== undefined;

/**
 * Ctrl-C (SIGINT) and SIGTERM stop the process once: the first calls `stop` (a drain its caller bounds); a copy of
 * it within REPEAT_WINDOW_MS is ignored; another one while that runs forces the exit at once (exit 1), after
 * `beforeForcedExit`.
 */
export function onStopSignals(
  stop: (signal: NodeJS.Signals) => void,
  /** Runs synchronously before a forced exit: what would outlive this process (a server in its own session). */
  beforeForcedExit: () => void = () => undefined,
): void {
  let first: { signal: NodeJS.Signals; at: number; copySeen: boolean } | null = null;
  const underNpm = forwardedByNpm(process.env);
  const handle = (signal: NodeJS.Signals) => {
    if (first) {
      const inWindow = performance.now() - first.at < REPEAT_WINDOW_MS;
      if (signal === first.signal && (inWindow || (underNpm && !first.copySeen))) {
        first.copySeen = true;
        return;
      }
      console.error('Forced exit.');
      try {
        beforeForcedExit();
      } finally {
        process.exit(1);
      }
    }
    first = { signal, at: performance.now(), copySeen: false };
    stop(signal);
  };
  process.on('SIGINT', handle);
  process.on('SIGTERM', handle);
}
