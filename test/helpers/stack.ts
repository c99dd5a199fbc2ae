import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ephemeralConfig, type GatewayConfig } from '../../server/config.ts';
import { startStack, type RunningStack } from '../../appliance/stack.ts';
import { ALL_SCOPES, type Scope } from '../../contracts/scopes.ts';
import { signedRequest, rawRequest, type Credentials, type SignedRequest, type SignedResponse } from './signed-client.ts';

export interface TestStack extends RunningStack {
  dataDir: string;
  /** Default tenant `clinica-teste` and a key with every scope. */
  tenantSlug: string;
  creds: Credentials & { chaveId: number };
  newKey(options?: { tenant?: string; scopes?: Scope[]; medicoId?: number }): Promise<Credentials & { chaveId: number }>;
  createTenant(slug: string, options?: { sandbox?: boolean }): Promise<void>;
  call<T = any>(req: SignedRequest, creds?: Credentials): Promise<SignedResponse<T>>;
  raw: (req: Parameters<typeof rawRequest>[1]) => Promise<SignedResponse<any>>;
  stop(): Promise<void>;
}

/** A whole stack (embedded S3, backend-sim, gateway) on free loopback ports with a fresh data dir. */
export async function startTestStack(
  env: Record<string, string> = {},
  options: { now?: () => number; configure?: (config: GatewayConfig) => void; dataDir?: string } = {},
): Promise<TestStack> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'gw-test-'));
  const config = ephemeralConfig(dataDir, env);
  options.configure?.(config);
  const stack = await startStack(config, { now: options.now });
  const tenantSlug = 'clinica-teste';
  if (!(await stack.tenants.get(tenantSlug))) await stack.tenants.create({ slug: tenantSlug, nome: 'Clinica Teste' });

  const newKey: TestStack['newKey'] = async (o = {}) => {
    const issued = await stack.keys.create({ tenantSlug: o.tenant ?? tenantSlug, scopes: o.scopes ?? [...ALL_SCOPES], medicoId: o.medicoId });
    return { apiKey: issued.api_key, apiSecret: issued.api_secret, chaveId: issued.chave_id };
  };
  const creds = await newKey();
  return {
    ...stack,
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
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
      // backend-sim answered outside the contract (unknown error code, data its schema refuses): fail the file.
      if (violations.length > 0) throw new Error(`backend contract violations:\n${violations.join('\n')}`);
    },
  };
}
