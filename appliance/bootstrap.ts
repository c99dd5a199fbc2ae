import path from 'node:path';
import { existsSync } from 'node:fs';
import type { GatewayConfig } from '../server/config.ts';
import type { RunningStack } from './stack.ts';
import { ALL_SCOPES, READ_ONLY_SCOPES, SANDBOX_SCOPES, type Scope } from '../contracts/scopes.ts';
import { ensureOperator } from '../server/operators/index.ts';
import { writePrivateFile } from '../server/secrets-files.ts';
import { openGatewayDatabase } from '../server/db/gateway-database.ts';
import { takeFirstStartSnapshot } from '../server/tenants/tenant-reset.ts';
// Plain data, shared with the seed (what each default clinic is seeded with).
import { DEFAULT_TENANTS } from '../seed/default-tenants.ts';

export const CREDENTIALS_FILE = 'demo-credentials.json';

export interface IssuedDemoKey {
  chave_id: number;
  api_key: string;
  api_secret: string;
  clinica: string;
  escopos: Scope[];
  medico_id: number;
}

export interface DemoCredentials {
  gateway_url: string;
  console_url: string;
  operator: { username: string; password: string; role: 'admin' };
  keys: Record<string, IssuedDemoKey>;
}

/** An appliance's state in gateway.db that PostgreSQL does not have yet: started on PostgreSQL, it would look new. */
export class UnmovedStateError extends Error {}

/**
 * First start = no clinic registered yet in the gateway's database (gateway.db, or DATABASE_URL's PostgreSQL, whose
 * migrations this runs). A PostgreSQL without clinics beside a gateway.db that has some is an appliance not moved
 * yet: refused (UnmovedStateError) rather than started empty beside its own history.
 */
export async function isFirstStart(config: Pick<GatewayConfig, 'dataDir' | 'database' | 'instance'>): Promise<boolean> {
  const file = path.join(config.dataDir, 'gateway.db');
  if (config.database.kind === 'sqlite' && !existsSync(file)) return true;
  const clinics = await countClinics(config);
  if (clinics > 0 || config.database.kind === 'sqlite') return clinics === 0;
  const left = existsSync(file) ? await countClinics({ ...config, database: { kind: 'sqlite' } }) : 0;
  if (left > 0) {
    throw new UnmovedStateError(
      `${file} holds this appliance's state (${left} clinic(s), their keys and journal) and the PostgreSQL database has none: ` +
        'copy it first with `npm run cli -- db copy-to-postgres` (DATABASE_URL names the target), then start again',
    );
  }
  return true;
}

async function countClinics(config: Pick<GatewayConfig, 'dataDir' | 'database' | 'instance'>): Promise<number> {
  const opened = await openGatewayDatabase(config);
  try {
    const row = await opened.db
      .selectFrom('tenants')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  } finally {
    await opened.close();
  }
}

interface SeedModule {
  seedDefaultTenants?: (dataDir: string) => Promise<Record<string, { medicoIds?: number[] } | number[]>>;
}

/**
 * Writes the three default clinics' data straight into their SQLite files, before backend-sim opens them.
 * `loadSeed` is how the composition root (appliance/main.ts) hands in the seed module; a bundler cannot
 * follow the default, a specifier resolved at run time.
 */
export async function seedDefaultData(
  config: GatewayConfig,
  loadSeed?: () => Promise<SeedModule>,
): Promise<Record<string, number[]>> {
  // Resolved at run time: the seed module is optional for the gateway (SEED_ON_FIRST_START=false skips it).
  const seedModule = '../seed/seed.ts';
  const seed = loadSeed ? await loadSeed() : ((await import(seedModule)) as SeedModule);
  if (!seed.seedDefaultTenants) return {};
  const result = await seed.seedDefaultTenants(config.dataDir);
  const doctors: Record<string, number[]> = {};
  for (const [slug, value] of Object.entries(result ?? {})) {
    doctors[slug] = Array.isArray(value) ? value : (value?.medicoIds ?? []);
  }
  return doctors;
}

/** What a first start needs of the stack: its services, before the gateway listens. */
export type FirstStartServices = Pick<RunningStack, 'config' | 'tenants' | 'keys' | 'backend' | 'gatewayDb'>;

/** Writes DATA_DIR/demo-credentials.json (0600) for the gateway's public URL, once it is known. */
export type WriteFirstStartCredentials = (publicGatewayUrl: string) => { credentials: DemoCredentials; file: string };

/**
 * Registers the default tenants, the first operator and demo keys; the credentials file is written by what it
 * returns, synchronously, so the stack can write it the moment its port is bound and before it takes a connection
 * (StackOptions.beforeListen): whoever sees the gateway answer finds the file complete. Secrets are never printed.
 */
export async function registerFirstStart(
  services: FirstStartServices,
  doctorsByTenant: Record<string, number[]>,
): Promise<WriteFirstStartCredentials> {
  for (const tenant of DEFAULT_TENANTS) {
    if (!(await services.tenants.get(tenant.slug))) await services.tenants.create(tenant);
  }
  const { config } = services;
  // The first-start state a reset returns to: seeded and registered (named), before any key can write.
  for (const tenant of DEFAULT_TENANTS) {
    await takeFirstStartSnapshot(services.backend, tenant.slug).catch((error: unknown) => {
      if (config.logLevel !== 'silent')
        console.warn(
          `warning: no first-start copy of ${tenant.slug} (tenants reset will refuse it): ${error instanceof Error ? error.message : String(error)}`,
        );
    });
  }
  // The first operator is an admin: it adds the others (Operators screen, `operators add`).
  const operator = await ensureOperator(
    services.gatewayDb.db,
    config.operator.username,
    config.operator.password,
    'admin',
  );
  const keys: Record<string, IssuedDemoKey> = {};
  const issue = async (name: string, clinica: string, escopos: Scope[], medicoId = 0, label = name) => {
    const issued = await services.keys.create({ tenantSlug: clinica, scopes: escopos, medicoId, label });
    keys[name] = { ...issued, clinica, escopos, medico_id: medicoId };
  };
  await issue('demo', 'demo', [...ALL_SCOPES], 0, 'demo: all scopes');
  const boundDoctor = doctorsByTenant.demo?.[0];
  if (boundDoctor)
    await issue(
      'demo-medico',
      'demo',
      READ_ONLY_SCOPES,
      boundDoctor,
      `demo: read-only, bound to doctor ${boundDoctor}`,
    );
  await issue('sandbox', 'sandbox', SANDBOX_SCOPES, 0, 'public sandbox key');
  await issue('clinica-b', 'clinica-b', [...ALL_SCOPES], 0, 'clinica-b: all scopes');
  return (publicGatewayUrl) => {
    const credentials: DemoCredentials = {
      gateway_url: publicGatewayUrl,
      console_url: `${publicGatewayUrl}/console/`,
      operator: {
        username: config.operator.username,
        password: operator.generatedPassword ?? '(set by OPERATOR_PASSWORD)',
        role: 'admin',
      },
      keys,
    };
    const file = path.join(config.dataDir, CREDENTIALS_FILE);
    writePrivateFile(file, `${JSON.stringify(credentials, null, 2)}\n`);
    return { credentials, file };
  };
}

/** registerFirstStart on a stack that already listens (tests), the credentials written at once. */
export async function bootstrapFirstStart(
  stack: FirstStartServices,
  doctorsByTenant: Record<string, number[]>,
  publicGatewayUrl: string,
): Promise<{ credentials: DemoCredentials; file: string }> {
  return (await registerFirstStart(stack, doctorsByTenant))(publicGatewayUrl);
}

/** A copy-paste first signed call: bash, openssl and curl, the secret read from the credentials file. */
export function firstCallCommand(gatewayUrl: string, credentialsFile: string): string {
  return [
    `CRED=${credentialsFile}`,
    `KEY=$(node -p "require('$CRED').keys.demo.api_key"); SECRET=$(node -p "require('$CRED').keys.demo.api_secret")`,
    `TS=$(date +%s); SIG=$(printf '%s.GET /v1/ping\\n' "$TS" | openssl dgst -sha256 -hmac "$SECRET" | sed 's/^.*= //')`,
    `curl -s ${gatewayUrl}/v1/ping -H "X-API-Key: $KEY" -H "X-Timestamp: $TS" -H "X-Signature: $SIG"; echo`,
  ].join('\n');
}
