import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ephemeralConfig, type GatewayConfig } from '../../server/config.ts';
import { startStack, type BackendSimMode, type RunningStack } from '../../appliance/stack.ts';
import { ALL_SCOPES, type Scope } from '../../contracts/scopes.ts';
import type { OpenedGatewayDb } from '../../server/db/database.ts';
import type { OpenedGatewayDatabase } from '../../server/db/gateway-database.ts';
import { createTestDatabase, testDatabaseUrl } from './postgres.ts';
import {
  signedRequest,
  rawRequest,
  type Credentials,
  type SignedRequest,
  type SignedResponse,
} from './signed-client.ts';

export interface TestStack extends Omit<RunningStack, 'gatewayDb'> {
  /**
   * gateway.db, typed as SQLite for the tests that read it directly; on a PostgreSQL run (TEST_DATABASE_URL)
   * its `sqlite` throws, naming the test as one that runs on SQLite only. `database` is the store as opened.
   */
  gatewayDb: OpenedGatewayDb;
  database: OpenedGatewayDatabase;
  /** What a CLI started by the test needs to reach this stack's state and backend (DATA_DIR, BACKEND_URL, DATABASE_URL). */
  cliEnv: Record<string, string>;
  dataDir: string;
  /** Default tenant `clinica-teste` and a key with every scope. */
  tenantSlug: string;
  creds: Credentials & { chaveId: number };
  newKey(options?: {
    tenant?: string;
    scopes?: Scope[];
    medicoId?: number;
  }): Promise<Credentials & { chaveId: number }>;
  createTenant(slug: string, options?: { sandbox?: boolean }): Promise<void>;
  call<T = any>(req: SignedRequest, creds?: Credentials): Promise<SignedResponse<T>>;
  raw: (req: Parameters<typeof rawRequest>[1]) => Promise<SignedResponse<any>>;
  stop(): Promise<void>;
}

const databasesByDataDir = new Map<string, { url: string; drop(): Promise<void> }>();

/**
 * Where the tests' backend-sim runs unless a test says: in the test's process, which starts about a second faster
 * than a second Node under tsx, times some 90 stacks in the suite (npm start's own child process is covered by
 * test/appliance/backend-sim-process.test.ts and every test that spawns appliance/main.ts).
 * TEST_BACKEND_SIM=process runs a whole file or the suite with the child process instead.
 */
const defaultBackendSim = (process.env.TEST_BACKEND_SIM ?? 'in-process') as BackendSimMode;

/** A whole stack (embedded S3, backend-sim, gateway) on free loopback ports with a fresh data dir. */
export async function startTestStack(
  env: Record<string, string> = {},
  options: {
    now?: () => number;
    configure?: (config: GatewayConfig) => void;
    dataDir?: string;
    /** `sqlite`: gateway.db even in the postgres project (a test that moves an appliance from it). */
    database?: 'sqlite';
    /** backend-sim in its own child process (npm start's default) or in this one; a pinned `now` needs `in-process`. */
    backendSim?: BackendSimMode;
  } = {},
): Promise<TestStack> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'gw-test-'));
  // The postgres project: the gateway's state in a database of its own on the suite's PostgreSQL, the same one
  // again when a test restarts a stack on its data dir (dropped with the run's server, not by stop()).
  const reused = databasesByDataDir.get(dataDir);
  const database =
    reused ??
    (testDatabaseUrl() && env.DATABASE_URL === undefined && options.database !== 'sqlite'
      ? await createTestDatabase()
      : null);
  if (database) databasesByDataDir.set(dataDir, database);
  const config = ephemeralConfig(
    dataDir,
    database ? { DATABASE_URL: database.url, GATEWAY_INSTANCE_ID: 'test-gateway', ...env } : env,
  );
  options.configure?.(config);
  let stack: RunningStack;
  try {
    stack = await startStack(config, {
      now: options.now,
      backendSim: options.backendSim ?? (options.now ? 'in-process' : defaultBackendSim),
    });
  } catch (error) {
    if (!reused && !options.dataDir) await database?.drop();
    throw error;
  }
  // Every stamped backend answer checked in full (production checks a sample): a violation anywhere fails the file.
  stack.backend.verifyOneStampedIn = 1;
  const tenantSlug = 'clinica-teste';
  if (!(await stack.tenants.get(tenantSlug))) await stack.tenants.create({ slug: tenantSlug, nome: 'Clinica Teste' });

  const newKey: TestStack['newKey'] = async (o = {}) => {
    const issued = await stack.keys.create({
      tenantSlug: o.tenant ?? tenantSlug,
      scopes: o.scopes ?? [...ALL_SCOPES],
      medicoId: o.medicoId,
    });
    return { apiKey: issued.api_key, apiSecret: issued.api_secret, chaveId: issued.chave_id };
  };
  const creds = await newKey();
  return {
    ...stack,
    cliEnv: { DATA_DIR: dataDir, BACKEND_URL: stack.backendUrl, ...(database ? { DATABASE_URL: database.url } : {}) },
    gatewayDb: sqliteOnly(stack.gatewayDb),
    database: stack.gatewayDb,
    dataDir,
    tenantSlug,
    creds,
    newKey,
    createTenant: async (slug, o = {}) => {
      const { backendReady } = await stack.tenants.create({ slug, nome: `Clinica ${slug}`, sandbox: o.sandbox });
      if (!backendReady) throw new Error(`backend did not create tenant ${slug}`);
    },
    call: (req, c = creds) => signedRequest(stack.gatewayUrl, c, req),
    raw: (req) => rawRequest(stack.gatewayUrl, req),
    stop: async () => {
      const violations = [...stack.backend.contractViolations];
      await stack.close();
      if (!options.dataDir) await database?.drop();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
      // backend-sim answered outside the contract (unknown error code, data its schema refuses): fail the file.
      if (violations.length > 0) throw new Error(`backend contract violations:\n${violations.join('\n')}`);
    },
  };
}

/** gateway.db as the SQLite-only tests read it; on PostgreSQL, a handle whose `sqlite` says why it is not there. */
function sqliteOnly(database: OpenedGatewayDatabase): OpenedGatewayDb {
  if (database.kind === 'sqlite') return database;
  return {
    kind: 'sqlite',
    db: database.db,
    close: () => database.close(),
    get sqlite(): never {
      throw new Error(
        'this test reads gateway.db directly: it runs on SQLite only (leave it out of the postgres project in vitest.config.ts)',
      );
    },
  } as OpenedGatewayDb;
}
