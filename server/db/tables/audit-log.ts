import type { Generated, Selectable } from 'kysely';

/** One row per request that reached the gateway (API and console), authentication failures included. */
export interface AuditLogTable {
  id: Generated<number>;
  request_id: string;
  /** ISO 8601 UTC with milliseconds; sortable as text. */
  ts: string;
  /** `api` (public /v1) or `console` (operator actions). */
  source: string;
  tenant_id: number | null;
  tenant_slug: string | null;
  chave_id: number | null;
  operator_id: number | null;
  method: string;
  /** Path and query, with personal data in the query redacted. */
  path: string;
  status: number;
  error_code: string | null;
  duracao_ms: number;
  client_ip: string;
  /** POST/PATCH body after recursive redaction (JSON), or null. */
  body: string | null;
  /** File redirects: `{id, tipo, expira_em_segundos}` only; never a path or URL. Console: the action's subject. */
  detail: string | null;
  /** `error.message` of the response envelope, or null on success. */
  error_message: string | null;
  /**
   * Response envelope after the same redaction and shortening as `body` (JSON), kept for errors and
   * writes; null for successful reads and redirects (a redirect's Location is never stored).
   */
  response_body: string | null;
  /** Request headers (JSON object) without signing material: X-Signature, Authorization, Cookie are never stored. */
  request_headers: string | null;
  /**
   * The W3C trace id (32 lowercase hex) of the request: its request span's when tracing is on (server/tracing/), a
   * valid incoming `traceparent`'s when it is off, else null (migration 025).
   */
  trace_id: string | null;
  /**
   * 1 when the request proved who it was (verified signature, operator session or token); 0 for a refusal
   * that only names an existing key. Unverified entries are shed first (server/audit/journal-budget.ts).
   */
  verified: Generated<number>;
  /** The entry's weight against AUDIT_MAX_BYTES: its text plus a fixed overhead (server/audit/bounded.ts). */
  bytes: Generated<number>;
}

/** Requests that name no existing key, counted per minute, client address, status and error code (issue 19). */
export interface AuditUnattributedTable {
  id: Generated<number>;
  /** `YYYY-MM-DDTHH:MM`, appliance clock. */
  minute: string;
  client_ip: string;
  status: number;
  /** '' when the answer carried no error code. */
  error_code: string;
  count: number;
  first_ts: string;
  last_ts: string;
  /** The group's first request, bounded and redacted (JSON). */
  sample: string;
  bytes: number;
}

/** Running totals per journal class (`verified`, `unverified`, `unattributed`), kept with every batch. */
export interface AuditBudgetTable {
  kind: string;
  rows: number;
  bytes: number;
}

export type AuditEntry = Selectable<AuditLogTable>;

/** What an entry shows in a list (server/audit/audit-query.ts) and the first columns the writer inserts. */
export const AUDIT_SUMMARY_COLUMNS = [
  'request_id',
  'ts',
  'source',
  'tenant_id',
  'tenant_slug',
  'chave_id',
  'operator_id',
  'method',
  'path',
  'status',
  'error_code',
  'duracao_ms',
  'client_ip',
] as const satisfies ReadonlyArray<keyof AuditLogTable>;
