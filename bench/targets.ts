/**
 * Issue 32's targets, one place for the HTTP rows, the topologies, the second start and the peers: CPU per request
 * against the bare Fastify run named, creates per second, PostgreSQL against gateway.db, and the appliance against
 * WireMock's static stubs (`npm run bench:peers`).
 */
export const TARGETS = {
  ping: { baseline: 'get', maxCpuRatio: 2.5 },
  post: { baseline: 'post', maxCpuRatio: 2.5 },
  /** A list's CPU is compared with WireMock's stub of the same page, which only `npm run bench:peers` runs. */
  list: { maxCpuRatioToWireMock: 1 },
  create: { maxCpuRatioToWireMock: 3 },
  createsPerSecond: 2500,
  /** One gateway on PostgreSQL against one on gateway.db, per row (CPU per request). */
  postgresMaxRatio: 1.5,
  secondStartMs: 1500,
} as const;

export const createsTarget = `≥ ${TARGETS.createsPerSecond} creates/s`;

/** "yes", or "**no**, by N ×" for a measured value against an upper bound (or, `atLeast`, a lower one). */
export function verdict(measured: number, bound: number, atLeast = false): { met: boolean; text: string } {
  const met = atLeast ? measured >= bound : measured <= bound;
  if (met) return { met, text: 'yes' };
  const by = atLeast ? bound / measured : measured / bound;
  return { met, text: `**no**, by ${by.toFixed(2)} ×` };
}
