import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ephemeralConfig } from '../server/config.ts';
import { startStack } from '../appliance/stack.ts';
import { ALL_SCOPES } from '../contracts/scopes.ts';
import { serveUntilStopped } from './harness.ts';

// The contract guard (issue 33) as `npm run proxy` runs it, in front of the gateway bench/proxy.ts started: PROXY_MODE,
// UPSTREAM_URL, UPSTREAM_API_KEY and UPSTREAM_API_SECRET come from bench/proxy.ts's environment.
const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-bench-proxy-'));
const config = ephemeralConfig(dataDir, {
  PROXY_MODE: process.env.PROXY_MODE ?? 'resign',
  UPSTREAM_URL: process.env.UPSTREAM_URL ?? '',
  UPSTREAM_API_KEY: process.env.UPSTREAM_API_KEY ?? '',
  UPSTREAM_API_SECRET: process.env.UPSTREAM_API_SECRET ?? '',
});
const stack = await startStack(config, { backendSim: 'in-process' });
await stack.tenants.create({ slug: 'guarda', nome: 'Guarda' });
const key = await stack.keys.create({ tenantSlug: 'guarda', scopes: [...ALL_SCOPES] });
serveUntilStopped(
  { url: stack.gatewayUrl, apiKey: key.api_key, apiSecret: key.api_secret, dataDir },
  () => stack.close(),
  dataDir,
);
