import path from 'node:path';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { z } from 'zod';
import {
  GATEWAY_SERVICE_NAME,
  type OtelEnvironment,
  tracingSettingsFrom,
  TracingConfigError,
  type TracingSettings,
} from '../shared-node/otel.ts';

/** 2 GiB: about 4.5 million typical entries (~450 B each, docs/operations.md § Audit journal sizing). */
export const DEFAULT_AUDIT_MAX_BYTES = 2 * 1024 ** 3;
/** Rows of every class together. */
export const DEFAULT_AUDIT_MAX_ROWS = 5_000_000;
/** The spec's audit retention (production always; development's default). */
export const SPEC_AUDIT_RETENTION_DAYS = 30;
/** AUDIT_RETENTION_DAYS' bounds (development mode only). */
export const AUDIT_RETENTION_DAYS_MIN = 1;
export const AUDIT_RETENTION_DAYS_MAX = 365;
/** Below this much free space on DATA_DIR's file system the journal stops growing its file. */
export const DEFAULT_AUDIT_MIN_FREE_BYTES = 64 * 1024 ** 2;

const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

/** The semantic release of the gateway (`X-Api-Release`, `meta.version`). */
export const API_RELEASE = packageJson.version;

const port = z.coerce.number().int().min(0).max(65535);
const bool = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off'])
  .transform((value) => ['1', 'true', 'yes', 'on'].includes(value));

/** Every environment variable the appliance reads, with its default (docs/configuration.md). */
/** The variables the gateway reads (docker-compose.yml and docs/configuration.md name only these). */
export const envSchema = z.object({
  PORT: port.default(8080),
  // Loopback unless asked: the console's sign-in, the operator API and development-mode diagnostics are not
  // offered to the whole network of a laptop by default (docker-compose.yml sets 0.0.0.0 inside its containers).
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  // The gateway's state (server/db/gateway-database.ts): gateway.db under DATA_DIR unless this names a PostgreSQL
  // database, which several gateway instances then share (docs/decisions.md § Scale out on PostgreSQL).
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/\S+$/, 'DATABASE_URL must be a postgres:// (or postgresql://) URL')
    .optional(),
  // Names this gateway among the instances sharing DATABASE_URL: what its idempotency reservations are tagged
  // with, so a restart frees the ones it left (a random id per process when unset). Two live instances never share one.
  GATEWAY_INSTANCE_ID: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'GATEWAY_INSTANCE_ID must be 1-64 characters [A-Za-z0-9_.-]')
    .optional(),
  // Connections of this instance's pool to DATABASE_URL (besides one for LISTEN/NOTIFY).
  DATABASE_POOL_SIZE: z.coerce.number().int().min(2).max(200).default(10),
  // A directory on the file system holding the PostgreSQL server's files, whose free space the journal's guard
  // watches (npm run cluster sets it for its own server under DATA_DIR); unset, a remote server's disk is not watched.
  DATABASE_DISK_DIR: z.string().min(1).optional(),
  APP_ENV: z.enum(['development', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('warn'),
  PORTAL_ORIGIN: z.string().url().default('https://portal.clinica.example'),
  DEV_ORIGIN: z.string().url().default('http://localhost:5173'),
  MASTER_KEY: z
    .string()
    .regex(/^[0-9a-f]{64}$/i, 'MASTER_KEY must be 64 hex characters (32 bytes)')
    .optional(),
  BACKEND_PORT: port.default(8081),
  BACKEND_URL: z.string().url().optional(),
  BACKEND_TOKEN: z.string().min(16).optional(),
  BACKEND_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(30_000),
  // SIGTERM/SIGINT: how long requests already received get to be answered before the rest is cut
  // (server/drain.ts). Under `docker stop`'s 10 s grace, so the drain ends before a SIGKILL would.
  DRAIN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(8000),
  S3_ENDPOINT: z.string().url().optional(),
  S3_PUBLIC_ENDPOINT: z.string().url().optional(),
  S3_PORT: port.default(9000),
  // Unset with the embedded storage: generated once into DATA_DIR/storage.credentials (0600).
  S3_ACCESS_KEY: z.string().min(1).optional(),
  S3_SECRET_KEY: z.string().min(1).optional(),
  S3_BUCKET: z.string().min(3).default('clinic-files'),
  S3_REGION: z.string().min(1).default('us-east-1'),
  AUDIT_ENABLED: bool.default(true),
  // The journal's budget on top of its 30-day retention (server/audit/journal-budget.ts, docs/operations.md § Audit
  // journal sizing): unauthenticated noise is shed to stay within it; verified entries never are, so
  // when they fill it /v1 answers 503 rather than lose history. It bounds the journal's files on DATA_DIR
  // (its pages in gateway.db and the WAL's share): at least 1 MiB, of which about 470 KiB is fixed (WAL, its
  // index, the empty tables, the margin).
  AUDIT_MAX_ROWS: z.coerce.number().int().min(1).default(DEFAULT_AUDIT_MAX_ROWS),
  AUDIT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024 * 1024)
    .default(DEFAULT_AUDIT_MAX_BYTES),
  AUDIT_MIN_FREE_BYTES: z.coerce.number().int().min(0).default(DEFAULT_AUDIT_MIN_FREE_BYTES),
  // Development mode only (docs/decisions.md § P): how many days the retention purge keeps. Production keeps the
  // spec's 30 days and refuses any other value at start (loadConfig).
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(AUDIT_RETENTION_DAYS_MIN).max(AUDIT_RETENTION_DAYS_MAX).optional(),
  // Refusals of requests that did not authenticate, per client address (429 past it).
  UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(600),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(1200),
  SANDBOX_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(120),
  // Issue 33, the contract guard (`npm run proxy`, docs/contract-guard.md): set by appliance/proxy-main.ts from its
  // command line; `off` (npm start) ignores the UPSTREAM_* variables.
  PROXY_MODE: z.enum(['off', 'resign', 'pass-through']).default('off'),
  PROXY_STRICT: bool.default(false),
  UPSTREAM_URL: z.string().url().optional(),
  // The upstream's key and secret: from the environment only, never the command line; never logged.
  UPSTREAM_API_KEY: z.string().min(1).optional(),
  UPSTREAM_API_SECRET: z.string().min(1).optional(),
  // Spec § backend mapping: an upstream silent past this is a 504 SERVICE_TIMEOUT (30 s; tests shorten it).
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(30_000),
  OPERATOR_USERNAME: z.string().min(3).default('admin'),
  OPERATOR_PASSWORD: z.string().min(8).optional(),
  SEED_ON_FIRST_START: bool.default(true),
  // Tenant reset is a development/test feature: with APP_ENV=production it is refused unless this is set
  // (server/tenants/tenant-reset.ts, docs/decisions.md § Tenant reset and operator tokens).
  ALLOW_TENANT_RESET: bool.default(false),
  // Ephemeral clinics (issue 30, server/tenants/clones.ts): refused with APP_ENV=production unless this is set;
  // at most EPHEMERAL_CLINICS_MAX of them at once (422 BUSINESS_RULE past it).
  ALLOW_EPHEMERAL_CLINICS: bool.default(false),
  EPHEMERAL_CLINICS_MAX: z.coerce.number().int().min(1).max(1000).default(20),
  // OpenTelemetry traces (issue 31, docs/observability.md § Tracing): off unless an OTLP endpoint is set; the
  // standard names, read by shared-node/otel.ts tracingSettingsFrom (the SDK reads its own others: OTEL_BSP_*, …).
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: z.string().optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z.string().optional(),
  OTEL_SERVICE_NAME: z.string().optional(),
  OTEL_SDK_DISABLED: z.string().optional(),
  OTEL_TRACES_EXPORTER: z.string().optional(),
});

/** ALLOW_EPHEMERAL_CLINICS and EPHEMERAL_CLINICS_MAX, parsed like loadConfig does (read where no config reaches). */
export function ephemeralClinicsFrom(env: NodeJS.ProcessEnv = process.env): { optIn: boolean; max: number } {
  const schema = envSchema.pick({ ALLOW_EPHEMERAL_CLINICS: true, EPHEMERAL_CLINICS_MAX: true });
  const parsed = schema.safeParse({
    ALLOW_EPHEMERAL_CLINICS: env.ALLOW_EPHEMERAL_CLINICS,
    EPHEMERAL_CLINICS_MAX: env.EPHEMERAL_CLINICS_MAX,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`Invalid configuration:\n  ${String(issue?.path[0])}: ${issue?.message}`);
  }
  return { optIn: parsed.data.ALLOW_EPHEMERAL_CLINICS, max: parsed.data.EPHEMERAL_CLINICS_MAX };
}

/** ALLOW_TENANT_RESET alone, parsed like loadConfig does (the console API reads it where no config reaches). */
export function allowTenantResetFrom(env: NodeJS.ProcessEnv = process.env): boolean {
  const parsed = envSchema.shape.ALLOW_TENANT_RESET.safeParse(env.ALLOW_TENANT_RESET);
  if (!parsed.success)
    throw new ConfigError(`Invalid configuration:\n  ALLOW_TENANT_RESET: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

export interface S3Endpoint {
  endPoint: string;
  port: number;
  useSSL: boolean;
}

/** Where the gateway keeps its state: gateway.db under DATA_DIR, or the PostgreSQL database DATABASE_URL names. */
export type DatabaseConfig =
  | { kind: 'sqlite' }
  | { kind: 'postgres'; url: string; poolSize: number; diskDir: string | null };

export interface GatewayConfig {
  port: number;
  host: string;
  dataDir: string;
  database: DatabaseConfig;
  /**
   * GATEWAY_INSTANCE_ID, or a random id made when the config is loaded (`<host>-<pid>-<random>`): tags this instance's
   * idempotency reservations and its session on PostgreSQL. `fromEnvironment` false: nothing of a predecessor can be
   * recognised as this instance's, so what a crashed process left waits for its lease.
   */
  instance: { id: string; fromEnvironment: boolean };
  appEnv: 'development' | 'production';
  logLevel: string;
  release: string;
  portalOrigin: string;
  devOrigin: string;
  masterKeyHex?: string;
  /** `external` when BACKEND_URL names a backend-sim started elsewhere; otherwise npm start runs it. */
  backend: { url: string; port: number; token?: string; timeoutMs: number; external: boolean };
  /** DRAIN_TIMEOUT_MS: the bound of the graceful drain on SIGTERM/SIGINT. */
  drainTimeoutMs: number;
  s3: {
    embedded: boolean;
    embeddedPort: number;
    internal: S3Endpoint;
    public: S3Endpoint;
    /** Empty with `credentials: 'data_dir'` until startStack reads them (resolveStorageCredentials). */
    accessKey: string;
    secretKey: string;
    /** S3_ACCESS_KEY/S3_SECRET_KEY, or the pair generated into DATA_DIR/storage.credentials (embedded storage only). */
    credentials: 'environment' | 'data_dir';
    bucket: string;
    region: string;
  };
  /** The journal's budget (AUDIT_MAX_ROWS, AUDIT_MAX_BYTES) and free-space guard (AUDIT_MIN_FREE_BYTES). */
  audit: { enabled: boolean; maxRows: number; maxBytes: number; minFreeBytes: number; retentionDays: number };
  /** unauthenticatedPerMinute: refusals of unauthenticated requests per client address. */
  rateLimit: { perMinute: number; sandboxPerMinute: number; unauthenticatedPerMinute: number };
  operator: { username: string; password?: string };
  seedOnFirstStart: boolean;
  /** ALLOW_TENANT_RESET: tenant reset allowed with APP_ENV=production too (always allowed in development). */
  allowTenantReset: boolean;
  consoleDir: string;
  /** OpenTelemetry traces over OTLP/HTTP (OTEL_EXPORTER_OTLP_ENDPOINT…); null: off, nothing of the SDK loaded. */
  tracing: TracingSettings | null;
  /** The contract guard (issue 33): /v1 forwarded to the upstream and checked; null for the gateway itself. */
  proxy: ProxyConfig | null;
}

export interface ProxyConfig {
  /** Base URL of the real gateway, without a trailing slash (`https://gw.example/api` + `/v1/ping`). */
  upstream: string;
  /** `resign`: the caller signs with an appliance key, the proxy re-signs; `pass-through`: bytes forwarded untouched. */
  mode: 'resign' | 'pass-through';
  /** A request outside the contract is refused with the contract's own 400 instead of forwarded. */
  strict: boolean;
  timeoutMs: number;
  /** The upstream's credentials (re-sign mode): never logged, never journaled. */
  apiKey: string | null;
  apiSecret: string | null;
}

function proxyFromEnv(e: z.output<typeof envSchema>): ProxyConfig | null {
  if (e.PROXY_MODE === 'off') return null;
  const problems: string[] = [];
  if (!e.UPSTREAM_URL) problems.push('UPSTREAM_URL (or --upstream <base URL>) names the gateway to check');
  if (e.PROXY_MODE === 'resign' && (!e.UPSTREAM_API_KEY || !e.UPSTREAM_API_SECRET))
    problems.push(
      'UPSTREAM_API_KEY and UPSTREAM_API_SECRET (in the environment) are the upstream key the proxy re-signs with; --pass-through forwards your own signatures instead',
    );
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  return {
    upstream: e.UPSTREAM_URL!.replace(/\/+$/, ''),
    mode: e.PROXY_MODE,
    strict: e.PROXY_STRICT,
    timeoutMs: e.UPSTREAM_TIMEOUT_MS,
    apiKey: e.UPSTREAM_API_KEY ?? null,
    apiSecret: e.UPSTREAM_API_SECRET ?? null,
  };
}

/** A random instance id (`<host>-<pid>-<random>`) for a gateway started without GATEWAY_INSTANCE_ID. */
export function randomInstanceId(): string {
  return `${
    hostname()
      .replace(/[^A-Za-z0-9_.-]/g, '')
      .slice(0, 32) || 'gateway'
  }-${process.pid}-${randomBytes(4).toString('hex')}`;
}

export function parseEndpoint(url: string): S3Endpoint {
  const parsed = new URL(url);
  const useSSL = parsed.protocol === 'https:';
  return { endPoint: parsed.hostname, port: parsed.port ? Number(parsed.port) : useSSL ? 443 : 80, useSSL };
}

export class ConfigError extends Error {}

/**
 * Secrets published with S3 servers and SDK documentation: s3rver's built-in pair, MinIO's default
 * root user, AWS's documentation example. Anyone can sign requests with them.
 */
const PUBLISHED_S3_SECRETS = new Set(['S3RVER', 'minioadmin', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY']);

export const isPublishedS3Secret = (secretKey: string): boolean => PUBLISHED_S3_SECRETS.has(secretKey);

function storageCredentialsFromEnv(
  accessKey: string | undefined,
  secretKey: string | undefined,
  embedded: boolean,
  appEnv: 'development' | 'production',
): Pick<GatewayConfig['s3'], 'accessKey' | 'secretKey' | 'credentials'> {
  if ((accessKey === undefined) !== (secretKey === undefined)) {
    throw new ConfigError(
      'Invalid configuration:\n  S3_ACCESS_KEY and S3_SECRET_KEY are set together (or neither, for the generated pair)',
    );
  }
  if (accessKey === undefined || secretKey === undefined) {
    if (!embedded)
      throw new ConfigError(
        'Invalid configuration:\n  S3_ENDPOINT needs S3_ACCESS_KEY and S3_SECRET_KEY (the credentials of that storage)',
      );
    return { accessKey: '', secretKey: '', credentials: 'data_dir' };
  }
  if (appEnv === 'production' && isPublishedS3Secret(secretKey)) {
    throw new ConfigError(
      'Invalid configuration:\n  S3_SECRET_KEY is a published default (s3rver, MinIO or AWS example): refused with APP_ENV=production. ' +
        'Unset S3_ACCESS_KEY and S3_SECRET_KEY to use the pair generated into DATA_DIR/storage.credentials, or set your own.',
    );
  }
  return { accessKey, secretKey, credentials: 'environment' };
}

/**
 * AUDIT_RETENTION_DAYS counts in development mode only: production keeps the spec's 30 days, and a start that
 * asks for another value is refused (a silently ignored setting would let an operator believe the journal is
 * kept shorter or longer than it is).
 */
function auditRetentionDays(days: number | undefined, appEnv: 'development' | 'production'): number {
  if (days === undefined) return SPEC_AUDIT_RETENTION_DAYS;
  if (appEnv === 'production' && days !== SPEC_AUDIT_RETENTION_DAYS) {
    throw new ConfigError(
      `Invalid configuration:\n  AUDIT_RETENTION_DAYS is a development-mode setting: with APP_ENV=production the journal is kept the spec's ${SPEC_AUDIT_RETENTION_DAYS} days. Unset AUDIT_RETENTION_DAYS (or set ${SPEC_AUDIT_RETENTION_DAYS}).`,
    );
  }
  return days;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const embedded = !e.S3_ENDPOINT;
  const internal = embedded ? { endPoint: '127.0.0.1', port: e.S3_PORT, useSSL: false } : parseEndpoint(e.S3_ENDPOINT!);
  const instance = e.GATEWAY_INSTANCE_ID
    ? { id: e.GATEWAY_INSTANCE_ID, fromEnvironment: true }
    : { id: randomInstanceId(), fromEnvironment: false };
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: path.resolve(e.DATA_DIR),
    database: e.DATABASE_URL
      ? {
          kind: 'postgres',
          url: e.DATABASE_URL,
          poolSize: e.DATABASE_POOL_SIZE,
          diskDir: e.DATABASE_DISK_DIR ? path.resolve(e.DATABASE_DISK_DIR) : null,
        }
      : { kind: 'sqlite' },
    instance,
    appEnv: e.APP_ENV,
    logLevel: e.LOG_LEVEL,
    release: API_RELEASE,
    portalOrigin: new URL(e.PORTAL_ORIGIN).origin,
    devOrigin: new URL(e.DEV_ORIGIN).origin,
    masterKeyHex: e.MASTER_KEY,
    backend: {
      url: e.BACKEND_URL ?? `http://127.0.0.1:${e.BACKEND_PORT}`,
      port: e.BACKEND_PORT,
      // Unset: generated once into DATA_DIR/backend.token (0600) so the CLI can reach backend-sim too.
      token: e.BACKEND_TOKEN,
      timeoutMs: e.BACKEND_TIMEOUT_MS,
      external: e.BACKEND_URL !== undefined,
    },
    drainTimeoutMs: e.DRAIN_TIMEOUT_MS,
    s3: {
      embedded,
      embeddedPort: e.S3_PORT,
      internal,
      public: e.S3_PUBLIC_ENDPOINT ? parseEndpoint(e.S3_PUBLIC_ENDPOINT) : internal,
      ...storageCredentialsFromEnv(e.S3_ACCESS_KEY, e.S3_SECRET_KEY, embedded, e.APP_ENV),
      bucket: e.S3_BUCKET,
      region: e.S3_REGION,
    },
    audit: {
      enabled: e.AUDIT_ENABLED,
      maxRows: e.AUDIT_MAX_ROWS,
      maxBytes: e.AUDIT_MAX_BYTES,
      minFreeBytes: e.AUDIT_MIN_FREE_BYTES,
      retentionDays: auditRetentionDays(e.AUDIT_RETENTION_DAYS, e.APP_ENV),
    },
    rateLimit: {
      perMinute: e.RATE_LIMIT_PER_MINUTE,
      sandboxPerMinute: e.SANDBOX_RATE_LIMIT_PER_MINUTE,
      unauthenticatedPerMinute: e.UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE,
    },
    operator: { username: e.OPERATOR_USERNAME, password: e.OPERATOR_PASSWORD },
    seedOnFirstStart: e.SEED_ON_FIRST_START,
    allowTenantReset: e.ALLOW_TENANT_RESET,
    consoleDir: path.resolve(path.dirname(new URL(import.meta.url).pathname), '../console/dist'),
    tracing: gatewayTracing(e, instance.id),
    proxy: proxyFromEnv(e),
  };
}

function gatewayTracing(env: OtelEnvironment, instanceId: string): TracingSettings | null {
  try {
    return tracingSettingsFrom(env, {
      serviceName: GATEWAY_SERVICE_NAME,
      resource: { 'service.version': API_RELEASE, 'service.instance.id': instanceId },
    });
  } catch (error) {
    if (error instanceof TracingConfigError) throw new ConfigError(error.message);
    throw error;
  }
}

/**
 * A throw-away stack on loopback: every port free (0), quiet, no first-start seed.
 * Used by the tests, the end-to-end setup and the benchmark.
 */
export function ephemeralConfig(dataDir: string, env: Record<string, string> = {}): GatewayConfig {
  return loadConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    BACKEND_PORT: '0',
    S3_PORT: '0',
    LOG_LEVEL: 'silent',
    SEED_ON_FIRST_START: 'false',
    ...env,
  });
}
