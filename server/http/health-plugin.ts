import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { request } from 'undici';
import { ApiError } from '../errors.ts';
import { createS3Client, type S3Settings } from '../../shared-node/s3-client.ts';
import type { IntegrityStatus } from '../integrity/integrity-status.ts';
import { INTERNAL_HEADERS } from '../../contracts/backend/headers.ts';
import { BACKEND_HEALTH_PATH, backendHealthAnswer } from '../../contracts/backend/health.ts';

/** Each component gets this long to answer `/readyz`; a probe never waits on the backend's 30 s timeout. */
export const READINESS_TIMEOUT_MS = 1500;

export type ComponentName = 'gateway_db' | 'backend_sim' | 'storage' | 'journal' | 'integrity';

export interface ComponentStatus {
  status: 'up' | 'down';
  latencia_ms: number;
  /** Why a component is down, as a short code (no host, port or credential). */
  erro?:
    | 'timeout'
    | 'connection_failed'
    | 'unexpected_answer'
    | 'bucket_missing'
    | 'query_failed'
    | 'journal_full'
    | 'journal_write_failed'
    | 'integrity_failed';
  /** What an operator should know although the component is up (the journal near its budget, noise shed). */
  avisos?: string[];
  /** Counts a component reports besides up/down (integrity: the databases checked, the idempotency orphans; no names). */
  detalhes?: Record<string, unknown>;
}

export interface HealthPluginOptions {
  /**
   * The gateway's database: `ping` is a `SELECT 1` (on gateway.db's connection the hot paths use, or through
   * the PostgreSQL pool); `integrity`, what the start-time checks found (server/integrity/).
   */
  database: { ping: () => Promise<boolean>; integrity: IntegrityStatus };
  /** backend-sim: `GET /health` with the internal token. */
  backend: { url: string; token: string };
  /** The storage the services write to, probed with a signed HEAD of the bucket (the embedded S3 refuses unsigned requests). */
  storage: S3Settings;
  timeoutMs?: number;
  /** The audit journal's state (server/audit/journal-budget.ts): down when a request could not be recorded. */
  journal?: () => { state: 'ok' | 'warning' | 'full' | 'failing'; avisos: string[] };
}

class ProbeTimeout extends Error {}

/**
 * `Retry-After` of a not-ready `/readyz`, by why a component is down: what comes back by itself (a component
 * restarting or unreachable; the journal, as /v1's unrecorded requests say) gets the seconds worth waiting; damage
 * found by the integrity check and a missing bucket need an operator, so a 503 naming one carries none.
 */
const READY_RETRY_AFTER_SECONDS: Record<NonNullable<ComponentStatus['erro']>, number | null> = {
  timeout: 5,
  connection_failed: 5,
  unexpected_answer: 5,
  query_failed: 5,
  journal_write_failed: 30,
  journal_full: 30,
  bucket_missing: null,
  integrity_failed: null,
};

/** The longest wait among the down components, or null when one of them needs an operator. */
function retryAfterSeconds(down: ComponentStatus[]): number | null {
  const waits = down.map((c) => READY_RETRY_AFTER_SECONDS[c.erro!]);
  return waits.includes(null) ? null : Math.max(...(waits as number[]));
}

/**
 * `GET /healthz` (the process answers) and `GET /readyz` (gateway DB, backend-sim and storage
 * reachable), unsigned and outside /v1, in the usual envelope. Concurrent `/readyz` calls share one
 * probe round, so polling it harder does not multiply the calls to the components.
 */
const healthPlugin: FastifyPluginAsync<HealthPluginOptions> = async (app: FastifyInstance, options) => {
  const timeoutMs = options.timeoutMs ?? READINESS_TIMEOUT_MS;
  const s3 = createS3Client(options.storage);
  const backendHealthUrl = new URL(BACKEND_HEALTH_PATH, options.backend.url).toString();
  // What the stack's start-time checks found (server/integrity/): the databases' quick_check, idempotency orphans.
  const integrity = options.database.integrity;
  const details: Partial<Record<ComponentName, () => Record<string, unknown>>> = {
    integrity: () => ({ ...integrity.details() }),
  };

  const probes: Record<
    Exclude<ComponentName, 'journal'>,
    (signal: AbortSignal) => Promise<ComponentStatus['erro'] | null>
  > = {
    gateway_db: async () => {
      try {
        return (await options.database.ping()) ? null : 'query_failed';
      } catch {
        return 'query_failed';
      }
    },
    backend_sim: async (signal) => {
      try {
        const response = await request(backendHealthUrl, {
          headers: { [INTERNAL_HEADERS.token]: options.backend.token },
          signal,
        });
        const body: unknown = await response.body.json().catch(() => null);
        return response.statusCode === 200 && backendHealthAnswer.safeParse(body).success ? null : 'unexpected_answer';
      } catch (error) {
        return signal.aborted ? 'timeout' : errorCode(error);
      }
    },
    storage: async () => {
      try {
        return (await s3.bucketExists(options.storage.bucket)) ? null : 'bucket_missing';
      } catch (error) {
        return errorCode(error);
      }
    },
    // Down once the background quick_check found damage; a check still running (or one that could not run) is not damage.
    integrity: async () => (integrity.damaged ? 'integrity_failed' : null),
  };

  const probe = async (name: ComponentName): Promise<ComponentStatus> => {
    if (name === 'journal') return journalStatus();
    const started = performance.now();
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new ProbeTimeout());
      }, timeoutMs);
    });
    let erro: ComponentStatus['erro'] | null;
    try {
      // The minio client takes no abort signal: past the deadline its request is left to finish on its own.
      erro = await Promise.race([probes[name as Exclude<ComponentName, 'journal'>](controller.signal), deadline]);
    } catch {
      erro = 'timeout';
    } finally {
      clearTimeout(timer);
    }
    const latencia_ms = Math.round(performance.now() - started);
    const detalhes = details[name]?.();
    const status: ComponentStatus = erro ? { status: 'down', latencia_ms, erro } : { status: 'up', latencia_ms };
    return detalhes ? { ...status, detalhes } : status;
  };

  /** No probe to time: the journal's budget knows its state (a failed commit, the budget full, the disk low). */
  const journalStatus = (): ComponentStatus => {
    const journal = options.journal!();
    const avisos = journal.avisos.length > 0 ? { avisos: journal.avisos } : {};
    if (journal.state === 'failing') return { status: 'down', latencia_ms: 0, erro: 'journal_write_failed', ...avisos };
    if (journal.state === 'full') return { status: 'down', latencia_ms: 0, erro: 'journal_full', ...avisos };
    return { status: 'up', latencia_ms: 0, ...avisos };
  };

  let inFlight: Promise<Record<ComponentName, ComponentStatus>> | null = null;
  const readiness = () => {
    inFlight ??= (async () => {
      const names = [...(Object.keys(probes) as ComponentName[]), ...(options.journal ? (['journal'] as const) : [])];
      const results = await Promise.all(names.map(probe));
      return Object.fromEntries(names.map((name, i) => [name, results[i]])) as Record<ComponentName, ComponentStatus>;
    })().finally(() => {
      inFlight = null;
    });
    return inFlight;
  };

  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async () => {
    const componentes = await readiness();
    const down = Object.entries(componentes).filter(([, c]) => c.status === 'down');
    if (down.length > 0) {
      const wait = retryAfterSeconds(down.map(([, c]) => c));
      throw new ApiError(
        'SERVICE_UNAVAILABLE',
        `Servico nao esta pronto: ${down.map(([name]) => name).join(', ')} indisponivel.`,
        { status: 'not_ready', componentes },
        wait === null ? {} : { headers: { 'retry-after': String(wait) } },
      );
    }
    return { status: 'ready', componentes };
  });
};

function errorCode(error: unknown): ComponentStatus['erro'] {
  const code = (error as { code?: string } | null)?.code ?? '';
  return /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|EPIPE|UND_ERR_SOCKET|UND_ERR_CONNECT_TIMEOUT|UND_ERR_CLOSED)$/.test(
    code,
  )
    ? 'connection_failed'
    : 'unexpected_answer';
}

export default healthPlugin;
