import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { API_ERROR_STATUS } from '../../contracts/errors.ts';
import { JOURNAL_CLASSES, type JournalBudget } from '../audit/journal-budget.ts';
import type { Operation } from '../routes/operation.ts';
import { operationId } from '../routes/operation-id.ts';

/** The `operation` of a request no /v1 operation answered (an unknown path, a refusal before routing): one value. */
export const UNKNOWN_OPERATION = 'unknown';
/** The `operation` of the /v1 CORS preflight (server/http/cors-plugin.ts), the one /v1 route that is not an operation. */
export const CORS_PREFLIGHT_OPERATION = 'corsPreflight';

/** Seconds, from a ping answered in a millisecond to the backend's 30 s timeout (BACKEND_TIMEOUT_MS). */
export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The codes `gateway_auth_refusals_total` counts: the spec's authentication table (01 § Authentication codes),
 * `SERVICE_UNAVAILABLE` aside (a backend failure, not a refusal of the caller). Each has its series from the start.
 */
export const AUTH_REFUSAL_CODES: readonly string[] = [
  ...Object.keys(API_ERROR_STATUS).filter((code) => code.startsWith('AUTH_')),
  'OPERATION_NOT_ALLOWED',
];

/** What the backend client is handed to time its hop (server/backend/client.ts BackendCallContext.timing). */
export interface Observer {
  observe(seconds: number): void;
}
interface Increment {
  inc(): void;
}

/** An operation's series, made on its first answer and kept: the hot path looks them up, never builds label sets. */
interface OperationSeries {
  readonly id: string;
  readonly statuses: Map<number, Increment>;
  readonly duration: Observer;
  readonly backend: Observer;
}

/**
 * Node.js and process metrics (prom-client's defaults) describe the process, not an app: collected once per process
 * into a registry of their own. collectDefaultMetrics starts a GC observer and an event-loop delay monitor that nothing
 * stops, so one per buildApp would pile up in a test process that builds dozens of apps.
 */
let processRegistry: Registry | null = null;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * The gateway's Prometheus metrics, one per buildApp (its own Registry, never prom-client's global one: tests build
 * many apps in one process, and each gateway of a cluster exposes its own numbers). Other parts add theirs with
 * `new Gauge({ …, registers: [app.metrics.registry] })`. Served by `GET /metrics` (server/metrics/metrics-plugin.ts).
 */
export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'operation' | 'status'>;
  private readonly duration: Histogram<'operation'>;
  private readonly backendDuration: Histogram<'operation'>;
  private readonly rateLimited: Counter;
  private readonly replays: Counter;
  private readonly refusals = new Map<string, Increment>();
  private readonly byOperation = new WeakMap<Operation, OperationSeries>();
  private readonly byName = new Map<string, OperationSeries>();

  constructor() {
    // From the first app on, so the GC and event-loop figures cover the process's life, not the time since a scrape.
    processMetrics();
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'gateway_http_requests_total',
      help: 'Requests answered on the API surface (/v1, and paths no route matched), by operation id and HTTP status.',
      labelNames: ['operation', 'status'],
      registers,
    });
    this.duration = new Histogram({
      name: 'gateway_http_request_duration_seconds',
      help: 'Time from the request received to the answer sent, by operation id.',
      labelNames: ['operation'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.backendDuration = new Histogram({
      name: 'gateway_backend_request_duration_seconds',
      help: 'Time of each call to the clinic backend (backend-sim), answered or not, by the operation id that made it.',
      labelNames: ['operation'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    const authRefusals = new Counter({
      name: 'gateway_auth_refusals_total',
      help: 'Requests refused for authentication or authorization (the spec 01 authentication codes), by error code.',
      labelNames: ['code'],
      registers,
    });
    for (const code of AUTH_REFUSAL_CODES) {
      const child = authRefusals.labels(code);
      child.inc(0);
      this.refusals.set(code, child);
    }
    this.rateLimited = new Counter({
      name: 'gateway_rate_limited_total',
      help: 'Requests answered 429 RATE_LIMIT_EXCEEDED (per-key quota, or the per-address quota of refusals).',
      registers,
    });
    this.replays = new Counter({
      name: 'gateway_idempotency_replays_total',
      help: 'Writes answered as a replay of their Idempotency-Key (from the gateway, or from backend-sim after a lost answer).',
      registers,
    });
  }

  /** The series of a /v1 operation (its OpenAPI operationId), made once. */
  seriesOf(operation: Operation): OperationSeries {
    let series = this.byOperation.get(operation);
    if (!series) {
      series = this.named(operationId(operation.method, `/v1${operation.url}`));
      this.byOperation.set(operation, series);
    }
    return series;
  }

  /** The series of an `operation` label that names no operation (unknown, the CORS preflight). */
  named(id: string): OperationSeries {
    let series = this.byName.get(id);
    if (!series) {
      series = {
        id,
        statuses: new Map(),
        duration: this.duration.labels(id),
        backend: this.backendDuration.labels(id),
      };
      this.byName.set(id, series);
    }
    return series;
  }

  /** The backend hop's timer of an operation (handed to its calls: TenantBackend). */
  backendTimer(operation: Operation): Observer {
    return this.seriesOf(operation).backend;
  }

  /** One answer of the API surface: its status, its time, its error code, whether it replayed a write. */
  answered(series: OperationSeries, status: number, seconds: number, errorCode: string | null, replay: boolean): void {
    let requests = series.statuses.get(status);
    if (!requests) {
      requests = this.requests.labels(series.id, String(status));
      series.statuses.set(status, requests);
    }
    requests.inc();
    series.duration.observe(seconds);
    if (errorCode !== null) {
      if (errorCode === 'RATE_LIMIT_EXCEEDED') this.rateLimited.inc();
      else this.refusals.get(errorCode)?.inc();
    }
    if (replay) this.replays.inc();
  }

  /**
   * The journal's gauges, read from its budget on each scrape: `gateway_journal_bytes{class}` (the entries' bytes
   * by class, as the budget counts them against AUDIT_MAX_BYTES), `gateway_journal_budget_bytes` (AUDIT_MAX_BYTES)
   * and `gateway_journal_disk_bytes` (the journal's footprint on DATA_DIR, WAL included, which /v1's 503 line is on).
   */
  observeJournal(budget: Pick<JournalBudget, 'classTotals' | 'maxBytes' | 'footprintBytes'>): void {
    const registers = [this.registry];
    new Gauge({
      name: 'gateway_journal_bytes',
      help: "Bytes of the audit journal's entries by class (verified, unverified, unattributed), as its budget counts them.",
      labelNames: ['class'],
      registers,
      collect() {
        const totals = budget.classTotals();
        for (const kind of JOURNAL_CLASSES) this.set({ class: kind }, totals[kind].bytes);
      },
    });
    new Gauge({
      name: 'gateway_journal_budget_bytes',
      help: "The audit journal's budget (AUDIT_MAX_BYTES).",
      registers,
      collect() {
        this.set(budget.maxBytes);
      },
    });
    new Gauge({
      name: 'gateway_journal_disk_bytes',
      help: "The audit journal's footprint on DATA_DIR (its pages, the WAL's share and index); /v1 answers 503 near the budget.",
      registers,
      collect() {
        this.set(budget.footprintBytes());
      },
    });
  }

  /** The Prometheus text format of this gateway's metrics and the process's. */
  async scrape(): Promise<string> {
    const [own, process] = await Promise.all([this.registry.metrics(), processMetrics().metrics()]);
    return `${own}\n${process}`;
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
