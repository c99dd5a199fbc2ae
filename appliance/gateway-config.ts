import { loadConfig, type GatewayConfig } from '../server/config.ts';
import { runningClusterDatabaseUrl } from './postgres.ts';
import { readRuntimeFile } from './runtime-file.ts';

/**
 * The configuration a command on DATA_DIR uses (the CLI): the environment's, and, where no DATABASE_URL is set
 * but a cluster with its own PostgreSQL runs on DATA_DIR (`npm run cluster`), that database, so the CLI changes
 * the state the cluster's gateways serve and not a gateway.db nobody reads.
 */
export function loadApplianceConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const config = loadConfig(env);
  if (config.database.kind === 'postgres') return config;
  const url = runningClusterDatabaseUrl(config.dataDir, readRuntimeFile(config.dataDir)?.database);
  if (url) config.database = { kind: 'postgres', url, poolSize: 2, diskDir: null };
  return config;
}
