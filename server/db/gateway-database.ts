import type { GatewayConfig } from '../config.ts';
import { openGatewayDb, type OpenedGatewayDb } from './database.ts';
import { openPostgresDb, type OpenedPostgresDb } from './postgres.ts';

/** The gateway's state, opened and migrated: gateway.db under DATA_DIR, or the PostgreSQL DATABASE_URL names. */
export type OpenedGatewayDatabase = OpenedGatewayDb | OpenedPostgresDb;

/** The one entry point for both: what `config.database` says (docs/decisions.md § Scale out on PostgreSQL). */
export async function openGatewayDatabase(
  config: Pick<GatewayConfig, 'dataDir' | 'database' | 'instance'>,
): Promise<OpenedGatewayDatabase> {
  if (config.database.kind === 'sqlite') return openGatewayDb(config.dataDir);
  return openPostgresDb({
    url: config.database.url,
    poolSize: config.database.poolSize,
    applicationName: `clinic-gateway ${config.instance.id}`,
  });
}
