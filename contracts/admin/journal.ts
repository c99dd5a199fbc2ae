import { z } from 'zod';
import { auditDetail, optionalText } from './audit.ts';

/**
 * What the gateway received (issue 30 § 4 and 5): the verification query over one clinic's journal and its HAR
 * export. `GET /tenants/:slug/journal/received` and `GET /tenants/:slug/journal/har` (console session, viewers
 * read), and their automation twins under `/automation/…` (operator token allowed on the clinic).
 */

/** At most this many entries answer one query (`limit`'s maximum; default RECEIVED_DEFAULT_LIMIT). */
export const RECEIVED_MAX_LIMIT = 200;
export const RECEIVED_DEFAULT_LIMIT = 100;
/** At most this many entries go into one HAR (`limit`'s maximum there; the default too). */
export const HAR_MAX_ENTRIES = 2000;
/** The query looks at no more than the clinic's newest this-many journal entries (narrow with `since`). */
export const RECEIVED_WINDOW_ENTRIES = 20_000;
/** Near misses answered at most. */
export const NEAR_MISSES_MAX = 5;

/** An id the gateway gives a request (24 hex) or a CLI action (a UUID): what `since` accepts besides a time. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{7,63}$/;
/** `201`, or a class: `2xx`, `4xx`. */
export const STATUS_FILTER_PATTERN = /^(?:[1-5]\d\d|[1-5]xx)$/;
/** `/v1/pacientes` (a prefix) or `/v1/pacientes/:id` (a template: `:name` is one path segment). */
export const PATH_FILTER_PATTERN = /^\/[^\s#]*$/;
const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS', 'HEAD'] as const;

/** A time in ISO 8601 with its offset (`2026-12-02T10:00:00Z`); anything else `since`/`until` take is a request id. */
export const isIsoInstant = (v: string): boolean =>
  /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)$/i.test(v) && !Number.isNaN(Date.parse(v));

/** A time (ISO 8601 with its offset) or the request id of a journal entry: `since` and `until`. */
const instant = optionalText(64).pipe(
  z
    .string()
    .refine(
      (v) => isIsoInstant(v) || (!/^\d{4}-\d\d-\d\dT/.test(v) && REQUEST_ID_PATTERN.test(v)),
      'Use um horario ISO 8601 com fuso (2026-12-02T10:00:00Z) ou o request_id de uma entrada do journal.',
    )
    .optional(),
);

/**
 * The filters of both routes: query-string friendly, strict (a mistyped filter is a 400 naming the accepted
 * ones, never a silently wider answer).
 */
const filterFields = {
  chave_id: z
    .union([z.string(), z.number()])
    .optional()
    .transform((v) => (v === undefined || v === '' ? undefined : Number(v)))
    .pipe(z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional()),
  method: z
    .string()
    .optional()
    .transform((v) => (v ? v.trim().toUpperCase() : undefined))
    .pipe(z.enum(METHODS).optional()),
  path: optionalText(300).pipe(
    z.string().regex(PATH_FILTER_PATTERN, 'Um caminho que comeca com "/", ex. /v1/pacientes/:id.').optional(),
  ),
  status: z
    .union([z.string(), z.number()])
    .optional()
    .transform((v) => (v === undefined || v === '' ? undefined : String(v).trim().toLowerCase()))
    .pipe(z.string().regex(STATUS_FILTER_PATTERN, 'Um status HTTP (201) ou uma classe (2xx, 4xx).').optional()),
  code: optionalText(60).pipe(
    z
      .string()
      .regex(/^[A-Z][A-Z0-9_]*$/, 'Um codigo de erro da tabela, ex. AUTH_INVALID_SIGNATURE.')
      .optional(),
  ),
  /** Entries after this time (inclusive) or after this request (exclusive). */
  since: instant,
  /** Entries up to this time (inclusive) or up to this request (inclusive). */
  until: instant,
};

/** `limit`: 1 to `max`, `fallback` when absent. */
const limitField = (fallback: number, max: number) =>
  z
    .union([z.string(), z.number()])
    .optional()
    .transform((v) => (v === undefined || v === '' ? fallback : Number(v)))
    .pipe(z.number().int().min(1).max(max));

export const receivedQuerySchema = z.strictObject({
  ...filterFields,
  limit: limitField(RECEIVED_DEFAULT_LIMIT, RECEIVED_MAX_LIMIT),
});
export type ReceivedQuery = z.infer<typeof receivedQuerySchema>;

export const harQuerySchema = z.strictObject({ ...filterFields, limit: limitField(HAR_MAX_ENTRIES, HAR_MAX_ENTRIES) });
export type HarQuery = z.infer<typeof harQuerySchema>;

/** The filters as the gateway applied them (the routes' own names). */
export type JournalFilter = Omit<ReceivedQuery, 'limit'>;

/** One journal entry as the journal stores it (redacted, bounded); JSON columns as values. */
export const receivedEntry = auditDetail
  .pick({
    request_id: true,
    ts: true,
    tenant_slug: true,
    chave_id: true,
    method: true,
    path: true,
    status: true,
    error_code: true,
    client_ip: true,
    verified: true,
    body: true,
    detail: true,
    error_message: true,
    response_body: true,
    request_headers: true,
    trace_id: true,
  })
  .extend({
    /** The journal row's id (the console's `/audit/:id`); null for the sample of an unattributed group. */
    id: z.number().int().nullable(),
    /** Null for the sample of an unattributed group. */
    duracao_ms: z.number().nullable(),
  });
export type ReceivedEntry = z.infer<typeof receivedEntry>;

export const NEAR_MISS_DIFFERENCES = ['method', 'path', 'status', 'code', 'key', 'clinic'] as const;
export type NearMissDifference = (typeof NEAR_MISS_DIFFERENCES)[number];

export const nearMiss = z.object({
  entry: receivedEntry,
  /** The filters this entry fails (`clinic`: it reached another clinic, or none: an unknown key). */
  differs: z.array(z.enum(NEAR_MISS_DIFFERENCES)),
  /** What differs and why, in words (a refusal's code, what it means, the gateway's message). */
  reason: z.string(),
  /** Entries in the window alike in method, path, status, code and key (the newest is `entry`). */
  count: z.number().int(),
  /** An unattributed group (requests that named no existing key): its size and minute. */
  group: z.object({ id: z.number().int(), count: z.number().int(), minute: z.string() }).nullable(),
});
export type NearMiss = z.infer<typeof nearMiss>;

export const receivedAnswer = z.object({
  tenant: z.string(),
  /** The filters as applied. */
  filter: z.record(z.string(), z.union([z.string(), z.number()])),
  /** Matching entries, oldest first (arrival order). */
  entries: z.array(receivedEntry),
  /** More entries matched than `limit`: ask again with `since` = the last entry's request_id. */
  truncated: z.boolean(),
  /** Only when `entries` is empty: the closest entries, closest first. */
  near_misses: z.array(nearMiss),
  /** What was looked at: the clinic's newest RECEIVED_WINDOW_ENTRIES entries at most. */
  window: z.object({
    max_entries: z.number().int(),
    /** The clinic has older entries (after `since`) that were not looked at. */
    capped: z.boolean(),
    oldest_ts: z.string().nullable(),
  }),
});
export type ReceivedAnswer = z.infer<typeof receivedAnswer>;
