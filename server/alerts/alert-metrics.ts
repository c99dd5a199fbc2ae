import { Gauge, type Registry } from 'prom-client';
import type { GatewayDb } from '../db/database.ts';
import { expiringKeys, keyFailureRatios } from './alerts.ts';

export interface AlertMetricsDeps {
  db: GatewayDb;
  /** The appliance clock (server/clock.ts ApplianceClock.now). */
  now: () => number;
}

/**
 * The alerts as Prometheus gauges, computed on each scrape by the alerts' own queries (alerts.ts), so an alert rule
 * on them fires when the console's banner shows one (docs/observability.md § Charts and alerts):
 * - `gateway_api_keys_expiring{tenant}`: active keys expiring within 7 days (expired ones excluded);
 * - `gateway_api_key_failure_ratio{tenant,key_id}`: refusals / calls over the last 15 minutes, for keys with at least
 *   20 calls there (alert on `> 0.2`).
 * Ephemeral clinics (clones) are left out: their slugs are short-lived label values (DESIGN.md § Conventions).
 */
export function registerAlertMetrics(registry: Registry, deps: AlertMetricsDeps): void {
  new Gauge({
    name: 'gateway_api_keys_expiring',
    help: 'Active API keys whose expiry is within 7 days, per clinic',
    labelNames: ['tenant'],
    registers: [registry],
    async collect() {
      this.reset();
      const counts = new Map<string, number>();
      for (const key of await expiringKeys(deps.db, deps.now()))
        if (!key.ephemeral) counts.set(key.tenant_slug, (counts.get(key.tenant_slug) ?? 0) + 1);
      for (const [tenant, n] of counts) this.set({ tenant }, n);
    },
  });
  new Gauge({
    name: 'gateway_api_key_failure_ratio',
    help: 'Refused share (status >= 400) of an API key calls over the last 15 minutes, keys with at least 20 calls',
    labelNames: ['tenant', 'key_id'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const key of await keyFailureRatios(deps.db, deps.now(), false))
        if (!key.ephemeral) this.set({ tenant: key.tenant_slug, key_id: String(key.chave_id) }, key.ratio);
    },
  });
}
