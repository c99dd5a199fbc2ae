/** The parts of the checks' reports (idempotency-consistency.ts, quick-check.ts) the status counts. */
interface QuickCheckCounts {
  checks: Array<{ problems: string[] }>;
}
interface ConsistencyCounts {
  checked: number;
  orphaned: unknown[];
}

/** `/readyz`'s `integrity` component, as its `detalhes` (no file or tenant names: the probe is unauthenticated). */
export interface IntegrityDetails {
  /** The background `PRAGMA quick_check` of the databases. */
  verificacao: 'pendente' | 'em_andamento' | 'concluida' | 'falhou';
  bancos_verificados: number;
  bancos_danificados: number;
  /** Completed idempotency entries compared with backend-sim's markers at start, and those found orphaned (flagged; their retry executes). */
  idempotencia_verificadas: number;
  idempotencia_orfas: number;
}

/**
 * What the start-time checks found, for `/readyz` (server/http/health-plugin.ts). One per running
 * gateway, found through its gateway.db connection (`integrityStatusFor`), which both the stack that
 * runs the checks and the health plugin already hold.
 */
export class IntegrityStatus {
  private quickCheck: { state: IntegrityDetails['verificacao']; report?: QuickCheckCounts } = { state: 'pendente' };
  private consistency: ConsistencyCounts | null = null;

  quickCheckStarted(): void {
    this.quickCheck = { state: 'em_andamento' };
  }

  quickCheckDone(report: QuickCheckCounts): void {
    this.quickCheck = { state: 'concluida', report };
  }

  quickCheckFailed(): void {
    this.quickCheck = { state: 'falhou' };
  }

  consistencyChecked(report: ConsistencyCounts): void {
    this.consistency = report;
  }

  /** A database whose quick_check found problems. */
  get damaged(): boolean {
    return this.details().bancos_danificados > 0;
  }

  details(): IntegrityDetails {
    const checks = this.quickCheck.report?.checks ?? [];
    return {
      verificacao: this.quickCheck.state,
      bancos_verificados: checks.length,
      bancos_danificados: checks.filter((c) => c.problems.length > 0).length,
      idempotencia_verificadas: this.consistency?.checked ?? 0,
      idempotencia_orfas: this.consistency?.orphaned.length ?? 0,
    };
  }
}

const statuses = new WeakMap<object, IntegrityStatus>();

/** The status of the gateway whose gateway.db connection this is (created on first use). */
export function integrityStatusFor(gatewayDbConnection: object): IntegrityStatus {
  let status = statuses.get(gatewayDbConnection);
  if (!status) {
    status = new IntegrityStatus();
    statuses.set(gatewayDbConnection, status);
  }
  return status;
}
