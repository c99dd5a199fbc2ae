/**
 * Issue 25's targets, one place for the HTTP rows and the topologies: CPU per request against the bare Fastify
 * run named, and creates per second.
 */
export const TARGETS = {
  ping: { baseline: 'get', maxCpuRatio: 2 },
  post: { baseline: 'post', maxCpuRatio: 2 },
  list: { baseline: 'get', maxCpuRatio: 8 },
  createsPerSecond: 2500,
} as const;

export const createsTarget = `≥ ${TARGETS.createsPerSecond} creates/s`;
