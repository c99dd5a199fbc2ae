import type { Measure } from '../harness.ts';
import { TARGETS } from '../targets.ts';

/**
 * The servers `npm run bench:peers` measures side by side, and the operations each one answers: the appliance on
 * gateway.db (SQLite) and, one gateway, on PostgreSQL (its own cluster, as `npm run cluster` runs it), and the peers.
 */
export type ApplianceServer = 'appliance' | 'appliance-postgres';
export type PeerServer = ApplianceServer | 'wiremock' | 'prism';
export type PeerOperation = 'ping' | 'list' | 'create';

export interface PeerTarget {
  operation: PeerOperation;
  /** Which of the appliance's databases the target is measured on. */
  appliance: ApplianceServer;
  peer: Exclude<PeerServer, ApplianceServer>;
  /** The appliance's CPU per request ÷ the peer's, at most. */
  maxRatio: number;
  label: string;
}

const DATABASE_NAMES: Record<ApplianceServer, string> = {
  appliance: 'gateway.db',
  'appliance-postgres': 'PostgreSQL',
};

/** Issue 32's targets against the peers, § 1 (lists) and § 2 (creates), on each of the appliance's databases. */
export const PEER_TARGETS: readonly PeerTarget[] = (['appliance', 'appliance-postgres'] as const).flatMap(
  (appliance): PeerTarget[] => [
    {
      operation: 'list',
      appliance,
      peer: 'wiremock',
      maxRatio: TARGETS.list.maxCpuRatioToWireMock,
      label: `list CPU (${DATABASE_NAMES[appliance]}) ≤ WireMock's list CPU`,
    },
    {
      operation: 'create',
      appliance,
      peer: 'wiremock',
      maxRatio: TARGETS.create.maxCpuRatioToWireMock,
      label: `create CPU (${DATABASE_NAMES[appliance]}) ≤ ${TARGETS.create.maxCpuRatioToWireMock} × WireMock's create CPU`,
    },
  ],
);

export interface PeerTargetResult {
  target: string;
  operation: PeerOperation;
  appliance: ApplianceServer;
  peer: PeerServer;
  appliance_cpu_us: number | null;
  peer_cpu_us: number | null;
  /** Appliance CPU ÷ peer CPU; null when either was not measured (a peer skipped). */
  ratio: number | null;
  max_ratio: number;
  met: boolean | null;
  /** How far over the target (ratio ÷ max_ratio, > 1 when not met); null when not measured. */
  times_over: number | null;
}

/** CPU µs per request of each server for each operation (a server missing: not measured). */
export type CpuByOperation = Partial<Record<PeerOperation, Partial<Record<PeerServer, number>>>>;

export function evaluatePeerTargets(cpu: CpuByOperation, targets: readonly PeerTarget[] = PEER_TARGETS) {
  return targets.map((t): PeerTargetResult => {
    const appliance = cpu[t.operation]?.[t.appliance] ?? null;
    const peer = cpu[t.operation]?.[t.peer] ?? null;
    const ratio = appliance !== null && peer !== null && peer > 0 ? appliance / peer : null;
    return {
      target: t.label,
      operation: t.operation,
      appliance: t.appliance,
      peer: t.peer,
      appliance_cpu_us: appliance,
      peer_cpu_us: peer,
      ratio,
      max_ratio: t.maxRatio,
      met: ratio === null ? null : ratio <= t.maxRatio,
      times_over: ratio === null ? null : ratio / t.maxRatio,
    };
  });
}

/**
 * The rounds of one server on one operation as one measure: req/s, p50 and p99 averaged over the rounds, CPU per
 * request over every request of every round (a round's CPU weighs by its requests), non-2xx and requests summed.
 */
export function combineRounds(rounds: readonly Measure[]): Measure {
  if (rounds.length === 0) throw new Error('combineRounds: no rounds');
  const mean = (pick: (m: Measure) => number) => rounds.reduce((sum, m) => sum + pick(m), 0) / rounds.length;
  const requests = rounds.reduce((sum, m) => sum + m.requests, 0);
  const cpuUs = requests > 0 ? rounds.reduce((sum, m) => sum + m.cpuUs * m.requests, 0) / requests : 0;
  return {
    rps: mean((m) => m.rps),
    p50: mean((m) => m.p50),
    p99: mean((m) => m.p99),
    non2xx: rounds.reduce((sum, m) => sum + m.non2xx, 0),
    requests,
    cpuUs,
  };
}
