import { z } from 'zod';

/**
 * Traffic charts and alerts (issue 31 § 3 and § 5), drawn from the journal's rollup per clinic, key and minute:
 * `GET /tenants/:slug/stats`, `GET /tenants/:slug/stats/keys` and `GET /alerts` (console session, viewers read),
 * and their automation twins under `/automation/…` (operator token; a token's alerts are its clinics').
 */

export const STATS_WINDOWS = ['1h', '24h'] as const;
export type StatsWindow = (typeof STATS_WINDOWS)[number];
/** Bucket of each window: a minute over the last hour, 15 minutes over the last 24 hours. */
export const BUCKET_SECONDS: Record<StatsWindow, number> = { '1h': 60, '24h': 900 };
export const WINDOW_SECONDS: Record<StatsWindow, number> = { '1h': 3600, '24h': 86_400 };

/** Alerts: a key expiring within this many days, or refused on more than this share of at least this many calls. */
export const ALERT_EXPIRING_DAYS = 7;
export const ALERT_FAILURE_RATIO = 0.2;
export const ALERT_MIN_CALLS = 20;
export const ALERT_WINDOW_MINUTES = 15;

const window = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v === '' ? '1h' : v))
  .pipe(z.enum(STATS_WINDOWS, { error: 'Use 1h ou 24h.' }));

const chaveId = z
  .union([z.string(), z.number()])
  .optional()
  .transform((v) => (v === undefined || v === '' ? undefined : Number(v)))
  .pipe(z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional());

/** `?window=1h|24h[&chave_id=<id>]`. */
export const statsQuerySchema = z.object({ window, chave_id: chaveId }).strict();
/** `?window=1h|24h` (sparklines). */
export const keyStatsQuerySchema = z.object({ window }).strict();

const ms = z.number().nullable();

/** One bucket: its start (ISO 8601 UTC), calls per status class, p50/p95 latency (null without calls). */
export const statsPoint = z.object({
  t: z.string(),
  s2xx: z.number().int(),
  s3xx: z.number().int(),
  s4xx: z.number().int(),
  s5xx: z.number().int(),
  p50_ms: ms,
  p95_ms: ms,
});
export type StatsPoint = z.infer<typeof statsPoint>;

export const statsAnswer = z.object({
  window: z.enum(STATS_WINDOWS),
  bucket_seconds: z.number().int(),
  /** The window's first bucket's start and its end (exclusive), appliance clock. */
  from: z.string(),
  to: z.string(),
  tenant_slug: z.string(),
  chave_id: z.number().int().nullable(),
  series: z.array(statsPoint),
  /** Refusals (status ≥ 400) per error code, most first; '' when the answer carried none. */
  refusals: z.array(z.object({ code: z.string(), count: z.number().int() })),
  totals: z.object({ calls: z.number().int(), refusals: z.number().int(), p50_ms: ms, p95_ms: ms }),
});
export type StatsAnswer = z.infer<typeof statsAnswer>;

/** Per key of the clinic with calls in the window: calls per bucket (`points`, oldest first). */
export const keyStats = z.object({
  chave_id: z.number().int(),
  calls: z.number().int(),
  refusals: z.number().int(),
  points: z.array(z.number().int()),
});
export const keyStatsAnswer = z.array(keyStats);
export type KeyStats = z.infer<typeof keyStats>;

export const alertView = z.object({
  kind: z.enum(['key_expiring', 'key_failing']),
  tenant_slug: z.string(),
  chave_id: z.number().int(),
  label: z.string(),
  expires_at: z.string().optional(),
  calls: z.number().int().optional(),
  refusals: z.number().int().optional(),
  ratio: z.number().optional(),
});
export const alertsAnswer = z.array(alertView);
export type AlertView = z.infer<typeof alertView>;
