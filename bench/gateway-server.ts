import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ephemeralConfig } from '../server/config.ts';
import { startStack } from '../appliance/stack.ts';
import { ALL_SCOPES } from '../contracts/scopes.ts';

// The whole appliance (embedded S3, backend-sim, gateway) in its own process, with a fresh data dir.
const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-bench-'));
const config = ephemeralConfig(dataDir, {
  // The benchmark measures the gateway, not the quota.
  RATE_LIMIT_PER_MINUTE: '100000000',
  AUDIT_ENABLED: process.env.AUDIT_ENABLED ?? 'true',
});
const stack = await startStack(config);
await stack.tenants.create({ slug: 'bench', nome: 'Clinica Bench' });
const key = await stack.keys.create({ tenantSlug: 'bench', scopes: [...ALL_SCOPES] });
process.stdout.write(`${JSON.stringify({ url: stack.gatewayUrl, apiKey: key.api_key, apiSecret: key.api_secret })}\n`);
process.on('SIGTERM', () =>
  void stack.close().then(() => {
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  }),
);
