import type { GatewayDb } from '../db/database.ts';
import { recentKeyCalls } from '../audit/journal-stats.ts';
import {
  ALERT_EXPIRING_DAYS,
  ALERT_FAILURE_RATIO,
  ALERT_MIN_CALLS,
  ALERT_WINDOW_MINUTES,
  type AlertView,
} from '../../contracts/admin/stats.ts';

// The alerts (issue 31 § 5; docs/decisions.md § G4, G5), one query each for the console's banner, the admin and
// automation APIs, the CLI and the Prometheus gauges (alert-metrics.ts): what one shows, the others show.

export interface ExpiringKey {
  tenant_slug: string;
  ephemeral: boolean;
  chave_id: number;
  label: string;
  expires_at: string;
}

/** Active keys whose expiry is after `now` and within ALERT_EXPIRING_DAYS (already expired keys are not listed). */
export async function expiringKeys(db: GatewayDb, now: number): Promise<ExpiringKey[]> {
  const rows = await db
    .selectFrom('api_keys as k')
    .innerJoin('tenants as t', 't.id', 'k.tenant_id')
    .select(['t.slug as tenant_slug', 't.template', 'k.id as chave_id', 'k.label', 'k.expires_at'])
    .where('k.status', '=', 'active')
    .where('k.expires_at', '>', new Date(now).toISOString())
    .where('k.expires_at', '<=', new Date(now + ALERT_EXPIRING_DAYS * 86_400_000).toISOString())
    .orderBy('k.expires_at')
    .orderBy('k.id')
    .execute();
  return rows.map((r) => ({
    tenant_slug: r.tenant_slug,
    ephemeral: r.template !== null,
    chave_id: Number(r.chave_id),
    label: r.label,
    expires_at: r.expires_at as string,
  }));
}

export interface FailingKey {
  tenant_slug: string;
  ephemeral: boolean;
  chave_id: number;
  label: string;
  calls: number;
  refusals: number;
  ratio: number;
}

/** The first minute of the alerts' window: the current minute and the ALERT_WINDOW_MINUTES − 1 before it. */
export const failureWindowStart = (now: number): string =>
  new Date(now - (ALERT_WINDOW_MINUTES - 1) * 60_000).toISOString().slice(0, 16);

/**
 * Active keys with at least ALERT_MIN_CALLS calls in the window, with their refusal ratio (refusals: answers with status
 * ≥ 400). `failingOnly`: those past ALERT_FAILURE_RATIO (the alerts); else all of them (the gauge).
 */
export async function keyFailureRatios(db: GatewayDb, now: number, failingOnly: boolean): Promise<FailingKey[]> {
  const counted = await recentKeyCalls(db, failureWindowStart(now), ALERT_MIN_CALLS);
  const selected = counted.filter((c) => !failingOnly || c.refusals / c.calls > ALERT_FAILURE_RATIO);
  if (selected.length === 0) return [];
  const keys = await db
    .selectFrom('api_keys as k')
    .innerJoin('tenants as t', 't.id', 'k.tenant_id')
    .select(['k.id', 'k.tenant_id', 'k.label', 't.slug', 't.template'])
    .where(
      'k.id',
      'in',
      selected.map((c) => c.chave_id),
    )
    // A revoked or inactive key's refusals are the operator's own doing: no alert, no gauge.
    .where('k.status', '=', 'active')
    .execute();
  const byId = new Map(keys.map((k) => [Number(k.id), k]));
  return selected
    .flatMap((c) => {
      const key = byId.get(c.chave_id);
      if (!key || Number(key.tenant_id) !== c.tenant_id) return [];
      return [
        {
          tenant_slug: key.slug,
          ephemeral: key.template !== null,
          chave_id: c.chave_id,
          label: key.label,
          calls: c.calls,
          refusals: c.refusals,
          ratio: Math.round((c.refusals / c.calls) * 1000) / 1000,
        },
      ];
    })
    .sort((a, b) => b.ratio - a.ratio || a.chave_id - b.chave_id);
}

/** Every alert, failing keys first; `tenants`: only these clinics' (an operator token's), or all. */
export async function currentAlerts(
  db: GatewayDb,
  now: number,
  tenants: 'all' | string[] = 'all',
): Promise<AlertView[]> {
  const [failing, expiring] = await Promise.all([keyFailureRatios(db, now, true), expiringKeys(db, now)]);
  const allowed = (slug: string) => tenants === 'all' || tenants.includes(slug);
  return [
    ...failing
      .filter((f) => allowed(f.tenant_slug))
      .map(
        (f): AlertView => ({
          kind: 'key_failing',
          tenant_slug: f.tenant_slug,
          chave_id: f.chave_id,
          label: f.label,
          calls: f.calls,
          refusals: f.refusals,
          ratio: f.ratio,
        }),
      ),
    ...expiring
      .filter((e) => allowed(e.tenant_slug))
      .map(
        (e): AlertView => ({
          kind: 'key_expiring',
          tenant_slug: e.tenant_slug,
          chave_id: e.chave_id,
          label: e.label,
          expires_at: e.expires_at,
        }),
      ),
  ];
}
