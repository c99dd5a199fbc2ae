import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ephemeralConfig } from '../server/config.ts';
import { startCluster } from '../appliance/cluster.ts';
import { isFirstStart } from '../appliance/bootstrap.ts';
import { openGatewayServices } from '../appliance/stack.ts';
import { ALL_SCOPES } from '../contracts/scopes.ts';
import { serveUntilStopped } from './harness.ts';

// The appliance as `npm run cluster` runs it, for the bench (issue 24 § 7): its own PostgreSQL under a fresh data
// dir, backend-sim and the storage once, BENCH_INSTANCES gateway processes. Prints the gateways' URLs, a key, and
// the pids whose CPU the bench counts (this process tree and PostgreSQL's, which runs as a daemon).
const instances = Number(process.env.BENCH_INSTANCES ?? 1);
const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-bench-cluster-'));
const gatewayEnv = {
  RATE_LIMIT_PER_MINUTE: '100000000',
  LOG_LEVEL: 'silent',
  SEED_ON_FIRST_START: 'false',
  DATABASE_POOL_SIZE: '10',
};
const config = ephemeralConfig(dataDir, gatewayEnv);
const cluster = await startCluster({
  config,
  instances,
  postgres: { port: 0 },
  gatewayCommand: { command: process.execPath, args: ['--import', 'tsx', path.resolve('appliance/cluster-main.ts')] },
  isFirstStart,
  gatewayEnv,
  startTimeoutMs: 120_000,
});
const services = await openGatewayServices(
  { ...cluster.config, database: { kind: 'postgres', url: cluster.databaseUrl, poolSize: 2, diskDir: null } },
  cluster.backendUrl,
);
await services.tenants.create({ slug: 'bench', nome: 'Clinica Bench' });
const key = await services.keys.create({ tenantSlug: 'bench', scopes: [...ALL_SCOPES] });
await services.close();
const postmaster = Number(
  readFileSync(path.join(dataDir, 'postgres', 'data', 'postmaster.pid'), 'utf8').split('\n')[0],
);
serveUntilStopped(
  {
    url: cluster.gateways[0].url,
    urls: cluster.gateways.map((g) => g.url).join(' '),
    apiKey: key.api_key,
    apiSecret: key.api_secret,
    postgresPid: String(postmaster),
  },
  () => cluster.stop(),
  dataDir,
);
