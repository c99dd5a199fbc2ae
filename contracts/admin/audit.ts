import { z } from 'zod';

/** A trimmed query-string value of at most `max` characters; empty is absent. */
export const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .optional()
    .transform((v) => (v ? v : undefined));
const optionalInt = (min: number, max: number) =>
  z
    .union([z.string(), z.number()])
    .optional()
    .transform((v) => (v === undefined || v === '' ? undefined : Number(v)))
    .pipe(z.number().int().min(min).max(max).optional());
const optionalDate = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v ? v : undefined))
  .pipe(z.iso.datetime({ offset: true, local: false, message: 'Data invalida (ISO 8601).' }).optional());

/** `GET /audit`: the browser's filters; query-string friendly (every value may arrive as a string). */
export const auditQuerySchema = z.object({
  tenant: optionalText(63),
  chave_id: optionalInt(1, Number.MAX_SAFE_INTEGER),
  method: z
    .string()
    .optional()
    .transform((v) => (v ? v.toUpperCase() : undefined))
    .pipe(z.enum(['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS', 'HEAD']).optional()),
  /** Prefix of path and query, e.g. `/v1/pacientes`. */
  path: optionalText(300),
  status: optionalInt(100, 599),
  error_code: optionalText(60),
  request_id: optionalText(64),
  source: z
    .string()
    .optional()
    .transform((v) => (v ? v : undefined))
    .pipe(z.enum(['api', 'console']).optional()),
  from: optionalDate,
  to: optionalDate,
  cursor: optionalText(200),
  limit: optionalInt(1, 200).transform((v) => v ?? 50),
});
export type AuditQuery = z.infer<typeof auditQuerySchema>;

/** `GET /audit/unattributed`: requests that named no existing key, counted per minute. */
export const unattributedQuerySchema = z.object({
  client_ip: optionalText(64),
  status: optionalInt(100, 599),
  error_code: optionalText(60),
  from: optionalDate,
  to: optionalDate,
  /** The last id of the previous page (newest first). */
  before_id: optionalInt(1, Number.MAX_SAFE_INTEGER),
  limit: optionalInt(1, 200).transform((v) => v ?? 50),
});
export type UnattributedQuery = z.infer<typeof unattributedQuerySchema>;

const auditColumns = {
  id: z.number().int(),
  request_id: z.string(),
  ts: z.string(),
  /** `api` (public /v1) or `console` (operator actions). */
  source: z.string(),
  tenant_id: z.number().int().nullable(),
  tenant_slug: z.string().nullable(),
  chave_id: z.number().int().nullable(),
  operator_id: z.number().int().nullable(),
  method: z.string(),
  path: z.string(),
  status: z.number().int(),
  error_code: z.string().nullable(),
  duracao_ms: z.number(),
  client_ip: z.string(),
  /** 1: the request proved it holds the key (verified signature, session, token); 0: it only named the key. */
  verified: z.number().int(),
};

/** A journal entry in the list, newest first in arrival order. */
export const auditItem = z.object({
  ...auditColumns,
  /** A console action's name (`key.rotate`), from its detail. */
  action: z.string().nullable(),
});
export type AuditItem = z.infer<typeof auditItem>;

export const auditPage = z.object({ items: z.array(auditItem), next_cursor: z.string().nullable() });
export type AuditPage = z.infer<typeof auditPage>;

/** `GET /audit/:id`: one entry, its JSON columns as values. */
export const auditDetail = z.object({
  ...auditColumns,
  body: z.unknown(),
  detail: z.unknown(),
  /** `error.message` of the answer (Portuguese, as the integrator received it). */
  error_message: z.string().nullable(),
  /** The answer, redacted like request bodies; null for successful reads and redirects. */
  response_body: z.unknown(),
  /**
   * Request headers without signing material (X-Signature, Authorization and Cookie are never recorded);
   * `_omitidos` counts the headers left out.
   */
  request_headers: z.record(z.string(), z.union([z.string(), z.number()])).nullable(),
  operator_username: z.string().nullable(),
  /**
   * The W3C trace id (32 lowercase hex) of the request (docs/observability.md § Tracing): its request span's with
   * tracing on, a valid incoming `traceparent`'s with it off; null when there is none (console actions, no header).
   */
  trace_id: z.string().nullable(),
});
export type AuditDetail = z.infer<typeof auditDetail>;

const classTotals = z.object({ rows: z.number(), bytes: z.number() });

/** The journal's budget and state (server/audit/journal-budget.ts). */
export const journalStatus = z.object({
  state: z.enum(['ok', 'warning', 'full', 'failing']),
  reasons: z.array(
    z.enum([
      'write_failed',
      'verified_full',
      'verified_near_full',
      'disk_full',
      'disk_near_full',
      'low_space',
      'near_low_space',
      'noise_shed',
    ]),
  ),
  /** The same reasons in the API's words (Portuguese; /readyz shows them). */
  avisos: z.array(z.string()),
  accepting: z.boolean(),
  max_bytes: z.number(),
  max_rows: z.number(),
  min_free_bytes: z.number(),
  noise_cap_bytes: z.number(),
  totals: z.object({ verified: classTotals, unverified: classTotals, unattributed: classTotals }),
  /**
   * The journal on DATA_DIR: its pages in gateway.db, plus the WAL's share and the WAL's index; the footprint
   * stays under max_bytes (noise shed from shed_at_bytes, /v1 refused from refuse_at_bytes).
   */
  disk: z.object({
    pages_bytes: z.number(),
    wal_share_bytes: z.number(),
    shm_bytes: z.number(),
    footprint_bytes: z.number(),
    shed_at_bytes: z.number(),
    refuse_at_bytes: z.number(),
  }),
  free_bytes: z.number().nullable(),
  last_shed_at: z.string().nullable(),
  shed_rows_total: z.number(),
  last_write_error: z.string().nullable(),
});
export type JournalStatus = z.infer<typeof journalStatus>;

/** `GET /audit/storage`: the audit log against its budget (AUDIT_MAX_BYTES, AUDIT_MAX_ROWS) and retention. */
export const auditStorage = z.object({
  rows: z.number(),
  max_rows: z.number(),
  retention_days: z.number(),
  oldest_ts: z.string().nullable(),
  newest_ts: z.string().nullable(),
  database_bytes: z.number(),
  free_bytes: z.number(),
  journal: journalStatus,
});
export type AuditStorage = z.infer<typeof auditStorage>;

/**
 * A group of requests that named no existing key: one per minute, client address, status and code (the address,
 * status and code as an entry has them).
 */
export const unattributedGroup = auditItem.pick({ client_ip: true, status: true, error_code: true }).extend({
  id: z.number().int(),
  minute: z.string(),
  count: z.number().int(),
  first_ts: z.string(),
  last_ts: z.string(),
  /** The group's first request, bounded and redacted like an entry (its text when it is not JSON). */
  sample: z.union([
    z
      .object({
        request_id: z.string().optional(),
        method: z.string().optional(),
        path: z.string().optional(),
        error_message: z.string().nullable().optional(),
      })
      .loose(),
    z.string(),
  ]),
});
export type UnattributedGroup = z.infer<typeof unattributedGroup>;

export const unattributedPage = z.object({
  items: z.array(unattributedGroup),
  next_before_id: z.number().int().nullable(),
});
