import { sql } from 'kysely';
import type { GatewayDb } from '../db/database.ts';
import { AUDIT_SUMMARY_COLUMNS, type AuditEntry } from '../db/tables/audit-log.ts';
import type { AuditQuery, UnattributedGroup, UnattributedQuery } from '../../contracts/admin/audit.ts';

export type AuditListItem = Omit<
  AuditEntry,
  'body' | 'detail' | 'error_message' | 'response_body' | 'request_headers' | 'bytes' | 'trace_id'
> & {
  action: string | null;
};

export interface AuditPage {
  items: AuditListItem[];
  next_cursor: string | null;
}

/** The cursor is the last id of the previous page (arrival order); one of an earlier release (`ts|id`) still reads. */
const encodeCursor = (row: { id: number }): string => Buffer.from(String(row.id)).toString('base64url');

function decodeCursor(cursor: string): number | null {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const id = Number(text.includes('|') ? text.slice(text.lastIndexOf('|') + 1) : text);
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}

const toUtc = (value: string): string => new Date(value).toISOString();

/** Up to this many entries in a time range, the walk is bounded by the range's ids (read off the ts index). */
export const RANGE_BOUND_MAX_ROWS = 20_000;

/**
 * How a time range bounds the walk. `exact`: ids between the smallest and the largest id of the rows in
 * the range (a narrow range: both read off the ts index alone, covering ts and rowid). `upper`: a wide
 * range only caps the walk at the largest id of its rows when it has an end (what is newer is skipped);
 * from there the walk meets rows of the range soon. `none`: no range.
 */
export type RangeBounds = 'exact' | 'upper' | 'none';

/**
 * The filtered page query, newest first in arrival order (id), not by ts: ts is the appliance clock,
 * which an operator moves ahead and back, and rows written while it was ahead must not stay above the
 * ones written after it was reset. Keyset pagination on id. Each equality filter has an index ending in
 * id (migration 019), walked backwards from the newest without a sort; no filter walks the primary key.
 * A time range filters on ts and bounds the walk (RangeBounds). No COUNT(*): it would scan a million rows.
 */
export function auditPageQuery(
  db: GatewayDb,
  q: AuditQuery & { tenantId?: number | null },
  bounds: RangeBounds = 'exact',
) {
  let query = db.selectFrom('audit_log').select(['id', ...AUDIT_SUMMARY_COLUMNS, 'detail', 'verified']);
  if (q.tenantId !== undefined && q.tenantId !== null) query = query.where('tenant_id', '=', q.tenantId);
  else if (q.tenant) query = query.where('tenant_slug', '=', q.tenant);
  if (q.chave_id !== undefined) query = query.where('chave_id', '=', q.chave_id);
  if (q.request_id) query = query.where('request_id', '=', q.request_id);
  if (q.status !== undefined) {
    query = query.where('status', '=', q.status);
    // The same term as the partial index's (migration 019), so SQLite may use it: a bound value alone cannot prove it.
    if (q.status >= 400) query = query.where(sql<boolean>`status >= 400`);
  }
  if (q.error_code) query = query.where('error_code', '=', q.error_code);
  if (q.method) query = query.where('method', '=', q.method);
  if (q.source) query = query.where('source', '=', q.source);
  if (q.path) {
    const escaped = q.path.replace(/[\\%_]/g, (c) => `\\${c}`);
    query = query.where(sql<boolean>`path LIKE ${`${escaped}%`} ESCAPE '\\'`);
  }
  const range = timeRange(q);
  if (range) {
    if (range.from) query = query.where('ts', '>=', range.from);
    if (range.to) query = query.where('ts', '<=', range.to);
    if (bounds === 'exact')
      query = query.where(
        sql<boolean>`id >= (SELECT min(id) FROM audit_log INDEXED BY audit_ts_idx WHERE ${range.sql})`,
      );
    if (bounds === 'exact' || (bounds === 'upper' && range.to)) {
      query = query.where(
        sql<boolean>`id <= (SELECT max(id) FROM audit_log INDEXED BY audit_ts_idx WHERE ${range.sql})`,
      );
    }
  }
  const cursor = q.cursor ? decodeCursor(q.cursor) : null;
  if (cursor !== null) query = query.where('id', '<', cursor);
  return query.orderBy('id', 'desc').limit(q.limit + 1);
}

function timeRange(q: AuditQuery) {
  if (!q.from && !q.to) return null;
  const from = q.from ? toUtc(q.from) : null;
  const to = q.to ? toUtc(q.to) : null;
  const terms = [...(from ? [sql`ts >= ${from}`] : []), ...(to ? [sql`ts <= ${to}`] : [])];
  return { from, to, sql: sql.join(terms, sql` AND `) };
}

/** `exact` when the range holds at most RANGE_BOUND_MAX_ROWS entries (counted on the ts index, stopping past that). */
async function rangeBoundsFor(db: GatewayDb, q: AuditQuery): Promise<RangeBounds> {
  const range = timeRange(q);
  if (!range) return 'none';
  const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM
    (SELECT 1 FROM audit_log INDEXED BY audit_ts_idx WHERE ${range.sql} LIMIT ${RANGE_BOUND_MAX_ROWS + 1})`.execute(db);
  return rows[0].n <= RANGE_BOUND_MAX_ROWS ? 'exact' : 'upper';
}

export async function queryAuditPage(db: GatewayDb, q: AuditQuery & { tenantId?: number | null }): Promise<AuditPage> {
  const rows = await auditPageQuery(db, q, await rangeBoundsFor(db, q)).execute();
  const more = rows.length > q.limit;
  const page = more ? rows.slice(0, q.limit) : rows;
  return {
    items: page.map(({ detail, ...row }) => ({ ...row, action: actionOf(detail) })),
    next_cursor: more ? encodeCursor(page[page.length - 1]) : null,
  };
}

function actionOf(detail: string | null): string | null {
  if (!detail) return null;
  try {
    const parsed = JSON.parse(detail) as { action?: unknown };
    return typeof parsed.action === 'string' ? parsed.action : null;
  } catch {
    return null;
  }
}

export type AuditEntryParsed = AuditEntry & {
  body_json: unknown;
  detail_json: unknown;
  response_json: unknown;
  headers_json: unknown;
};

export async function findAuditEntry(db: GatewayDb, id: number): Promise<AuditEntryParsed | undefined> {
  const row = await db.selectFrom('audit_log').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) return undefined;
  const parse = (text: string | null): unknown => {
    if (text === null) return null;
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  };
  return {
    ...row,
    body_json: parse(row.body),
    detail_json: parse(row.detail),
    response_json: parse(row.response_body),
    headers_json: parse(row.request_headers),
  };
}

export type UnattributedGroupView = UnattributedGroup;

/**
 * The unattributed groups, newest first (id order is insertion order, and a group is inserted at its
 * minute's first request). A table kept within 10% of the journal's budget: no index beyond the minute's.
 */
export async function queryUnattributed(
  db: GatewayDb,
  q: UnattributedQuery,
): Promise<{ items: UnattributedGroupView[]; next_before_id: number | null }> {
  let query = db.selectFrom('audit_unattributed').selectAll();
  if (q.client_ip) query = query.where('client_ip', '=', q.client_ip);
  if (q.status !== undefined) query = query.where('status', '=', q.status);
  if (q.error_code) query = query.where('error_code', '=', q.error_code);
  if (q.from) query = query.where('last_ts', '>=', toUtc(q.from));
  if (q.to) query = query.where('first_ts', '<=', toUtc(q.to));
  if (q.before_id !== undefined) query = query.where('id', '<', q.before_id);
  const rows = await query
    .orderBy('id', 'desc')
    .limit(q.limit + 1)
    .execute();
  const more = rows.length > q.limit;
  const page = more ? rows.slice(0, q.limit) : rows;
  return {
    items: page.map(({ bytes: _bytes, sample, error_code, ...row }) => ({
      ...row,
      error_code: error_code || null,
      sample: parseJson(sample),
    })),
    next_before_id: more ? page[page.length - 1].id : null,
  };
}

/** The sample as the writer made it (server/audit/audit-writer.ts groupSample), or its text when it is not JSON. */
function parseJson(text: string): UnattributedGroup['sample'] {
  try {
    const value = JSON.parse(text) as Record<string, unknown>;
    // The sample's own JSON columns, as objects.
    for (const name of ['body', 'detail', 'request_headers']) {
      if (typeof value[name] === 'string') {
        try {
          value[name] = JSON.parse(value[name] as string);
        } catch {
          // Kept as text.
        }
      }
    }
    return value as UnattributedGroup['sample'];
  } catch {
    return text;
  }
}

/** request_id → audit row id of the API's entries among `requestIds` (the idempotency inspector's links). */
export async function apiAuditIds(db: GatewayDb, requestIds: Array<string | null>): Promise<Map<string, number>> {
  const ids = [...new Set(requestIds.filter((r): r is string => r !== null))];
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('audit_log')
    .select(['id', 'request_id'])
    .where('request_id', 'in', ids)
    .where('source', '=', 'api')
    .execute();
  return new Map(rows.map((a) => [a.request_id, a.id]));
}

export type IdempotencyConflictRow = Pick<
  AuditEntry,
  'id' | 'request_id' | 'ts' | 'chave_id' | 'method' | 'path' | 'detail' | 'request_headers' | 'error_message'
>;

/** A clinic's newest requests refused 422 IDEMPOTENCY_CONFLICT (the partial error-code index, newest id first). */
export async function newestIdempotencyConflicts(
  db: GatewayDb,
  tenantId: number,
  limit: number,
): Promise<IdempotencyConflictRow[]> {
  return db
    .selectFrom('audit_log')
    .select(['id', 'request_id', 'ts', 'chave_id', 'method', 'path', 'detail', 'request_headers', 'error_message'])
    .where('error_code', '=', 'IDEMPOTENCY_CONFLICT')
    .where('tenant_id', '=', tenantId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
