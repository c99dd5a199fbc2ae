// START_TRACE=1: each phase of a start on stderr, `start-trace <process> <ms since the launcher's process began>
// <CPU ms of this process so far> <phase>`, from the launcher, the server's bundle and backend-sim's process, on one time line (the launcher's
// origin goes to backend-sim's process in START_TRACE_ORIGIN). Off (nothing written, nothing computed) when unset.
// Plain JavaScript, so the launcher (appliance/start.mjs) imports it without a build.
const enabled = Boolean(process.env.START_TRACE);
if (enabled && !process.env.START_TRACE_ORIGIN) process.env.START_TRACE_ORIGIN = String(performance.timeOrigin);
const origin = enabled ? Number(process.env.START_TRACE_ORIGIN) : 0;

/** Writes one phase's line when START_TRACE is set. */
export function startTrace(who, phase) {
  if (!enabled) return;
  const ms = performance.timeOrigin + performance.now() - origin;
  const { user, system } = process.cpuUsage();
  process.stderr.write(`start-trace ${who} ${ms.toFixed(1)} ${((user + system) / 1000).toFixed(1)} ${phase}\n`);
}
