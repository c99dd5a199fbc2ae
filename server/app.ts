import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { GatewayConfig } from './config.ts';
import type { OpenedGatewayDatabase } from './db/gateway-database.ts';
import type { KeysService } from './keys/keys.service.ts';
import type { TenantsService } from './tenants/tenants.service.ts';
import type { Backend } from './backend/client.ts';
import { INTERNAL_HEADERS } from '../contracts/backend/headers.ts';
import { ApplianceClock } from './clock.ts';
import envelopePlugin from './http/envelope-plugin.ts';
import { newRequestId } from './http/envelope.ts';
import { registerRawBodyParsers } from './http/body.ts';
import { envelopeSerializerCompiler } from './http/schemas.ts';
import { clientErrorHandler, frameworkErrorHandler } from './http/connection-errors.ts';
import corsPlugin from './http/cors-plugin.ts';
import authPlugin, { type AuthPluginOptions } from './auth/auth-plugin.ts';
import { registerProxyOperations } from './proxy/proxy-routes.ts';
import { ContractStore } from './proxy/contract-store.ts';
import rateLimitPlugin from './rate-limit/rate-limit-plugin.ts';
import idempotencyPlugin, { completeIdempotentWrites } from './idempotency/idempotency-plugin.ts';
import { IdempotencyStore, type IdempotencyEntries } from './idempotency/idempotency.store.ts';
import { PostgresIdempotencyStore } from './idempotency/postgres-idempotency.store.ts';
import type { IdempotencyInspection } from './idempotency/inspection.ts';
import { postgresBatchCommitter, postgresJournalStore } from './audit/postgres-journal.ts';
import { PostgresKeyRateLimiter } from './rate-limit/key-limiter.ts';
import { SharedStorageFaults } from './storage/shared-storage-faults.ts';
import { integrityStatusFor } from './integrity/integrity-status.ts';
import { createSecretKey } from 'node:crypto';
import { deriveKey, loadMasterKey } from './keys/secret-box.ts';
import { auditStorageStatus } from './audit/audit-retention.ts';
import auditPlugin, { journalUnavailable } from './audit/audit-plugin.ts';
import { AuditWriter } from './audit/audit-writer.ts';
import { JournalBudget } from './audit/journal-budget.ts';
import { sqliteJournalStore } from './audit/sqlite-journal.ts';
import { JournalEntries } from './audit/journal-entries.ts';
import { AddressLimiter } from './rate-limit/address-limiter.ts';
import { ApiError } from './errors.ts';
import { syncHook } from './http/sync-hooks.ts';
import type { RefusalJournal } from './http/connection-errors.ts';
import { guardV1Routes, registerOperations, type RegisteredOperation } from './routes/operation.ts';
import { V1_OPERATIONS } from './routes/v1/index.ts';
import { Presigner } from './storage/presigner.ts';
import { StorageFaults, type PresignFaults } from './storage/storage-faults.ts';
import openApiPlugin from './openapi/openapi-plugin.ts';
import healthPlugin from './http/health-plugin.ts';
import { backendTokenFor } from './secrets-files.ts';
import { adminPlugin, ADMIN_PREFIX, registerConsoleStatic } from './admin/index.ts';
import { scheduleCloneSweeper } from './tenants/clone-sweeper.ts';
import { writerConsoleAudit } from './audit/console-audit.ts';
import { followExternalJournalChanges, journalPruner } from './audit/journal-prune.ts';
import { GatewayMetrics } from './metrics/gateway-metrics.ts';
import metricsPlugin from './metrics/metrics-plugin.ts';
import { registerAlertMetrics } from './alerts/alert-metrics.ts';
import { GatewayTracing } from './tracing/gateway-tracing.ts';

export interface AppDeps {
  /**
   * The gateway's state: gateway.db (its connection also serves the synchronous hot paths: idempotency
   * reservation, audit batches, key lookups) or the cluster's PostgreSQL (asynchronous, shared by the instances).
   */
  database: OpenedGatewayDatabase;
  keys: KeysService;
  tenants: TenantsService;
  backend: Backend;
  /** The real (wall) clock under the appliance clock; tests may pin it. Rate limits run on a monotonic clock instead. */
  now?: () => number;
  /** The appliance clock (server/clock.ts) every time rule of the spec reads; real time when omitted. */
  clock?: ApplianceClock;
  /** Development mode's signature explanation (explainSignatureMismatch when omitted); tests wrap it to count what is computed. */
  explainSignature?: AuthPluginOptions['explain'];
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Shared with the console API, which audits operator actions through the same batches. */
    // biome-ignore lint/suspicious/noExplicitAny: a companion runs on nothing (SQLite) or the transaction's client (PostgreSQL), chosen at start
    auditWriter: AuditWriter<any>;
    /** The file redirects' presigner (tests reach it to check the storage faults the console switches). */
    presigner: Presigner;
    /** Appliance time (real time plus the development-mode offset): `/v1/ping`'s server_time. */
    applianceClock: ApplianceClock;
    /** What the contract guard saw violated (issue 33; tests flush it before reading). */
    contractStore: ContractStore;
  }
}

/** Builds the gateway; never listens (main.ts and tests do). */
export async function buildApp(config: GatewayConfig, deps: AppDeps): Promise<FastifyInstance> {
  const clock = deps.clock ?? new ApplianceClock({ dataDir: null, enabled: false, base: deps.now });
  // Key expiries are set and judged by the same clock as every other time rule (issue 31 § 4).
  deps.keys.setClock(() => clock.now());
  const masterKey = loadMasterKey(config.dataDir, config.masterKeyHex);
  const logs: { app: FastifyInstance['log'] | null } = { app: null };
  // OpenTelemetry only when an OTLP endpoint is set: otherwise nothing of it is loaded and no hook is added.
  const tracing = config.tracing ? await GatewayTracing.start(config.tracing) : null;
  const journal = await openJournal(config, deps, { clock, masterKey, logs, tracing });
  // Refusals of requests that did not authenticate, per client address (issue 19 § Outsiders cannot evict history).
  const refusals = new AddressLimiter({ perMinute: config.rateLimit.unauthenticatedPerMinute });
  const app = createFastify(config, journal, refusals);
  tracing?.register(app);
  logs.app = app.log;
  await registerOutsideV1(app, config, deps.database, journal.budget, refusals);
  // Prometheus metrics (issue 31): app.metrics, GET /metrics, the root hook that counts the API's answers.
  await registerMetrics(app, deps.database, journal.budget, clock);

  const idempotencyStore = openIdempotencyStore(config, deps.database, { clock, masterKey, journal });
  // Root-level and before the audit plugin's hook, so the answer is queued before the audit entry.
  app.addHook('onSend', completeIdempotentWrites(idempotencyStore));
  if (config.audit.enabled) {
    await app.register(auditPlugin, {
      writer: journal.writer,
      entries: journal.entries,
      // /metrics: scrapes and their refusals, a read surface of operator tokens (docs/decisions.md M3).
      skipPrefixes: ['/console', '/admin/api', '/docs', '/metrics'],
      trace: tracing ?? undefined,
    });
  }
  app.decorate('auditWriter', journal.writer);
  app.decorate('applianceClock', clock);
  schedulePurges(app, clock, idempotencyStore, journal);

  // Presign faults: switched in the console API, consulted by the presigner of the file redirects.
  const storageFaults =
    deps.database.kind === 'sqlite' ? new StorageFaults() : await SharedStorageFaults.open(deps.database);
  const presigner = createPresigner(app, config, clock, storageFaults);
  app.decorate('presigner', presigner);
  const operations: RegisteredOperation[] = [];
  app.decorate('operations', operations);
  // What the contract guard saw violated (issue 33): written by the proxy's routes, read by /admin/api/contract.
  const contractStore = new ContractStore(deps.database.db, (err) => app.log.error({ err }, 'contract store'));
  app.decorate('contractStore', contractStore);
  await app.register(
    (v1) =>
      registerV1(v1, config, deps, {
        operations,
        clock,
        refusals,
        journal,
        idempotencyStore,
        presigner,
        tracing,
        contractStore,
      }),
    { prefix: '/v1' },
  );

  // Operator console: its API (session + CSRF, audited through the same writer) and its static build.
  await app.register(adminPlugin, {
    prefix: ADMIN_PREFIX,
    db: deps.database.db,
    keys: deps.keys,
    tenants: deps.tenants,
    backend: deps.backend,
    idempotency: idempotencyStore,
    storageFaults,
    auditSink: writerConsoleAudit(journal.writer),
    auditStorage: () => auditStorageStatus(deps.database, journal.budget),
    journalPrune: journalPruner(deps.database, journal.budget, () => journal.writer.flush()),
    clock,
    contract: { proxy: config.proxy, flush: () => contractStore.flush() },
  });
  await registerConsoleStatic(app, config.consoleDir);
  // Ephemeral clinics past their time to live go, on every gateway, at start too (issue 30).
  scheduleCloneSweeper(app, clock, {
    db: deps.database.db,
    backend: deps.backend,
    keys: deps.keys,
    now: () => clock.now(),
    onChange: () => deps.keys.invalidate(),
    audit: writerConsoleAudit(journal.writer),
  });

  return app;
}

/** The audit journal: its budget, its batching writer and the entries it makes of requests. */
interface Journal {
  budget: JournalBudget;
  writer: FastifyInstance['auditWriter'];
  entries: JournalEntries;
  /** Flushes the writer, then closes the budget (onClose). */
  close(): Promise<void>;
}

async function openJournal(
  config: GatewayConfig,
  deps: AppDeps,
  context: {
    clock: ApplianceClock;
    masterKey: Buffer;
    logs: { app: FastifyInstance['log'] | null };
    tracing: GatewayTracing | null;
  },
): Promise<Journal> {
  const { database } = deps;
  const { clock, logs } = context;
  const budgetOptions = {
    maxBytes: config.audit.maxBytes,
    maxRows: config.audit.maxRows,
    minFreeBytes: config.audit.minFreeBytes,
    // On PostgreSQL the free-space guard watches DATA_DIR only where the cluster's own server keeps its files there.
    dataDir: config.database.kind === 'postgres' ? config.database.diskDir : config.dataDir,
    log: (level: 'warn' | 'error' | 'info', message: string) =>
      logs.app ? logs.app[level](`audit journal: ${message}`) : console[level](`audit journal: ${message}`),
  };
  let closing = false;
  const budget =
    database.kind === 'sqlite'
      ? new JournalBudget(sqliteJournalStore(database.sqlite, budgetOptions.maxBytes), budgetOptions)
      : await new JournalBudget(
          postgresJournalStore(database.pool, () => !closing),
          budgetOptions,
        ).open();
  // biome-ignore lint/suspicious/noExplicitAny: as FastifyInstance['auditWriter'] above
  const writer: AuditWriter<any> =
    database.kind === 'sqlite'
      ? new AuditWriter(database.sqlite, { clock, budget, retentionDays: config.audit.retentionDays })
      : new AuditWriter(postgresBatchCommitter(database.pool), {
          clock,
          budget,
          retentionDays: config.audit.retentionDays,
        });
  const entries = new JournalEntries({
    digestKey: createSecretKey(deriveKey(context.masterKey, 'clinic-gateway/journal/body-digest/v1')),
    resolveKey: (apiKey) => deps.keys.resolve(apiKey),
    traceId: context.tracing ? (request) => context.tracing!.traceIdOf(request) : undefined,
  });
  // The CLI's prune on gateway.db: followed within a second (PostgreSQL's budget re-reads every second anyway).
  const stopFollowing = database.kind === 'sqlite' ? followExternalJournalChanges(database.sqlite, budget) : () => {};
  const close = async () => {
    stopFollowing();
    await writer.close();
    closing = true;
    budget.close();
  };
  return { budget, writer, entries, close };
}

function createFastify(config: GatewayConfig, journal: Journal, refusals: AddressLimiter) {
  // Requests refused before Fastify routes them are audited here, with what is known of them.
  const refusalJournal: RefusalJournal | null = config.audit.enabled
    ? {
        entryOf: (request, status, url, payload) => journal.entries.of(request, status, url, payload),
        write: (record) => journal.writer.writeDurable(record),
      }
    : null;
  const app = Fastify({
    logger:
      config.logLevel === 'silent'
        ? false
        : {
            level: config.logLevel,
            // Signing headers, cookies and operator tokens never reach the log.
            redact: [
              'req.headers["x-signature"]',
              'req.headers.cookie',
              `req.headers["${INTERNAL_HEADERS.token}"]`,
              'req.headers.authorization',
            ],
          },
    genReqId: newRequestId,
    exposeHeadRoutes: false,
    frameworkErrors: frameworkErrorHandler(config.release, refusalJournal, (request, error) =>
      gateUnauthenticatedRefusal(refusals, request, error),
    ),
    clientErrorHandler: clientErrorHandler(config.release, refusalJournal, (address) =>
      addressOverQuota(refusals, address),
    ),
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(envelopeSerializerCompiler);
  return app;
}

/** The envelope around every answer, the OpenAPI document and /docs, /healthz and /readyz. */
async function registerOutsideV1(
  app: FastifyInstance,
  config: GatewayConfig,
  database: OpenedGatewayDatabase,
  budget: JournalBudget,
  refusals: AddressLimiter,
): Promise<void> {
  await app.register(envelopePlugin, {
    release: config.release,
    passthroughPrefixes: ['/console', '/docs', '/openapi.'],
    gateRefusal: (request, error) => gateUnauthenticatedRefusal(refusals, request, error),
    suggestRoutes: config.appEnv === 'development',
  });
  await app.register(openApiPlugin, { release: config.release, appEnv: config.appEnv });
  // /healthz and /readyz: unsigned, outside /v1, enveloped (docs/decisions.md § Integrator toolkit).
  await app.register(healthPlugin, {
    database: {
      ping:
        database.kind === 'sqlite'
          ? async () => database.sqlite.prepare('SELECT 1 AS ok').get() !== undefined
          : async () => (await database.pool.query('SELECT 1 AS ok')).rowCount === 1,
      integrity: integrityStatusFor(database.kind === 'sqlite' ? database.sqlite : database.pool),
    },
    backend: { url: config.backend.url, token: backendTokenFor(config.dataDir, config.backend.token) },
    storage: {
      ...config.s3.internal,
      accessKey: config.s3.accessKey,
      secretKey: config.s3.secretKey,
      bucket: config.s3.bucket,
      region: config.s3.region,
    },
    journal: config.audit.enabled ? () => budget.status() : undefined,
  });
}

/** This gateway's metrics (its own registry), the journal's gauges among them, served on GET /metrics. */
async function registerMetrics(
  app: FastifyInstance,
  database: OpenedGatewayDatabase,
  budget: JournalBudget,
  clock: ApplianceClock,
) {
  const metrics = new GatewayMetrics();
  metrics.observeJournal(budget);
  // The console's alert conditions as gauges, so Prometheus can alert on what the banner shows (issue 31 § 5).
  registerAlertMetrics(metrics.registry, { db: database.db, now: () => clock.now() });
  await app.register(metricsPlugin, { metrics, db: database.db });
}

type IdempotencyStores = IdempotencyEntries & IdempotencyInspection;

function openIdempotencyStore(
  config: GatewayConfig,
  database: OpenedGatewayDatabase,
  context: { clock: ApplianceClock; masterKey: Buffer; journal: Journal },
): IdempotencyStores {
  const { clock, masterKey, journal } = context;
  // Backend timeout plus a margin: an in-flight entry left by a crash frees its key soon after.
  // Cached responses hold patient data: sealed under a subkey of the master key (the API secrets' key).
  // A write's answer commits with its audit entry (one commit instead of two per write).
  const alongAudit = config.audit.enabled ? journal.writer.alongNextCommit.bind(journal.writer) : undefined;
  const leaseMs = config.backend.timeoutMs + 15_000;
  return database.kind === 'sqlite'
    ? new IdempotencyStore(database.sqlite, leaseMs, masterKey, () => clock.now(), alongAudit)
    : new PostgresIdempotencyStore(database.pool, {
        leaseMs,
        masterKey,
        instanceId: config.instance.id,
        clock: () => clock.now(),
        commit: alongAudit,
      });
}

/** Expired idempotency entries and journal rows, then the budget's shedding: at start, every 10 minutes, on a clock move. */
function schedulePurges(
  app: FastifyInstance,
  clock: ApplianceClock,
  idempotencyStore: IdempotencyEntries,
  journal: Journal,
): void {
  const purge = () => {
    const failed = (error: Error) => app.log.error({ err: error }, 'purge failed');
    Promise.resolve()
      .then(() => idempotencyStore.purgeExpired())
      .then(() => journal.writer.purgeExpired())
      // Then the budget: noise past its share or past a cap is shed, oldest first, in short chunks.
      .then(() => (journal.budget.overBudget() ? journal.budget.shed() : 0))
      .catch(failed);
  };
  purge();
  const purgeTimer = setInterval(purge, 10 * 60_000).unref();
  // A moved clock purges at once what its new time has expired, as the timer would have at that time.
  const stopPurgeOnClockChange = clock.onChange(purge);
  app.addHook('onClose', async () => {
    clearInterval(purgeTimer);
    stopPurgeOnClockChange();
    await journal.close();
  });
}

function createPresigner(
  app: FastifyInstance,
  config: GatewayConfig,
  clock: ApplianceClock,
  storageFaults: PresignFaults,
): Presigner {
  return new Presigner(
    {
      ...config.s3.public,
      accessKey: config.s3.accessKey,
      secretKey: config.s3.secretKey,
      bucket: config.s3.bucket,
      region: config.s3.region,
    },
    {
      faults: storageFaults,
      onError: (err) => app.log.error({ err }, 'presign failed'),
      // The embedded storage checks expiry against the appliance clock; an external S3 (MinIO) knows only real time.
      now: config.s3.embedded ? () => new Date(clock.now()) : undefined,
    },
  );
}

/** The /v1 scope: raw bodies, CORS, signatures, rate limits, the journal's fail-closed gate, idempotency, the operations. */
async function registerV1(
  v1: FastifyInstance,
  config: GatewayConfig,
  deps: AppDeps,
  parts: {
    operations: RegisteredOperation[];
    clock: ApplianceClock;
    refusals: AddressLimiter;
    journal: Journal;
    idempotencyStore: IdempotencyEntries;
    presigner: Presigner;
    tracing: GatewayTracing | null;
    contractStore: ContractStore;
  },
): Promise<void> {
  const { database } = deps;
  guardV1Routes(v1, parts.operations);
  // Raw bytes only here: the signature covers them, and JSON is parsed once, after it is verified.
  registerRawBodyParsers(v1);
  await v1.register(corsPlugin, {
    allowedOrigins: [config.portalOrigin, ...(config.appEnv === 'development' ? [config.devOrigin] : [])],
    sameOrigin: config.appEnv === 'development',
  });
  const proxy = config.proxy;
  // The contract guard in pass-through mode (issue 33): the caller signs for the upstream, so nothing is verified here.
  if (proxy?.mode !== 'pass-through')
    await v1.register(authPlugin, {
      keys: deps.keys,
      now: () => parts.clock.now(),
      explainSignatures: config.appEnv === 'development',
      refusals: parts.refusals,
      explain: deps.explainSignature,
      trace: parts.tracing ?? undefined,
    });
  if (proxy) {
    // The contract guard: no rate limit, no idempotency store of its own (both are the upstream's), the journal's gate.
    registerJournalGate(v1, config, parts.journal);
    registerProxyOperations(v1, V1_OPERATIONS, {
      proxy,
      registry: v1.metrics?.registry,
      store: parts.contractStore,
      now: () => parts.clock.now(),
    });
    return;
  }
  // Several instances share one quota per key: the buckets live in the database they share.
  const clusterLimiter = database.kind === 'postgres' ? new PostgresKeyRateLimiter(database.pool) : undefined;
  // Leased tokens not spent go back to the cluster's bucket when this instance stops.
  if (clusterLimiter) v1.addHook('onClose', () => clusterLimiter.close().catch(() => undefined));
  await v1.register(rateLimitPlugin, {
    perMinute: config.rateLimit.perMinute,
    sandboxPerMinute: config.rateLimit.sandboxPerMinute,
    limiter: clusterLimiter,
  });
  registerJournalGate(v1, config, parts.journal);
  await v1.register(idempotencyPlugin, { store: parts.idempotencyStore, trace: parts.tracing ?? undefined });
  registerOperations(v1, V1_OPERATIONS, {
    backend: deps.backend,
    presigner: parts.presigner,
    metrics: v1.metrics,
    tracing: parts.tracing ?? undefined,
  });
}

/** A request runs only if its entry can be committed without evicting verified history (fail closed). */
function registerJournalGate(v1: FastifyInstance, config: GatewayConfig, journal: Journal): void {
  if (!config.audit.enabled) return;
  const { budget } = journal;
  v1.addHook(
    'preValidation',
    syncHook((request) => {
      if (request.auth && !budget.accepting()) {
        request.journalUnattributed = true;
        throw journalUnavailable();
      }
    }),
  );
}

/**
 * Refusals of requests that did not authenticate are charged to their client address; past its quota
 * the refusal becomes a 429 journaled in the unattributed groups, so an outsider can neither flood the
 * journal with entries nor spend the gateway's CPU on them. The console has its own login lockout.
 */
function gateUnauthenticatedRefusal(refusals: AddressLimiter, request: FastifyRequest, error: ApiError): ApiError {
  if (request.auth || error.status < 400 || error.status >= 500 || error.status === 429) return error;
  const url = request.raw.url ?? request.url;
  if (url.startsWith(ADMIN_PREFIX) || url.startsWith('/console') || url.startsWith('/docs')) return error;
  const limited = addressOverQuota(refusals, request.ip);
  if (!limited) return error;
  request.journalUnattributed = true;
  return limited;
}

/** Charges one refusal to `address`: null while it has quota left, else the 429 to answer instead. */
function addressOverQuota(refusals: AddressLimiter, address: string): ApiError | null {
  const verdict = refusals.take(address);
  if (verdict.ok) return null;
  return new ApiError(
    'RATE_LIMIT_EXCEEDED',
    'Muitas requisicoes nao autenticadas recusadas deste endereco. Corrija a autenticacao e aplique backoff.',
    { limite_por_minuto: refusals.perMinute, escopo: 'endereco_cliente' },
    { headers: { 'retry-after': String(verdict.retryAfterSeconds) } },
  );
}
