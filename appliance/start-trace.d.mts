/** Writes one phase's line to stderr when START_TRACE is set (appliance/start-trace.mjs). */
export function startTrace(who: string, phase: string): void;
