/**
 * Ctrl-C (SIGINT) and SIGTERM stop the process once: the first calls `stop` (a drain its caller bounds); a
 * second one, while that runs, forces the exit at once (exit 1).
 */
export function onStopSignals(stop: (signal: NodeJS.Signals) => void): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) {
      console.error('Forced exit.');
      process.exit(1);
    }
    stopping = true;
    stop(signal);
  };
  process.on('SIGINT', handle);
  process.on('SIGTERM', handle);
}
