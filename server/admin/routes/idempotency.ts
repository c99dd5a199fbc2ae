import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ApiError, notFound } from '../../errors.ts';
import type { AdminDeps } from '../deps.ts';
import { guard, parseInput } from '../http.ts';
import type { IdempotencyRecord } from '../../db/tables/idempotency-keys.ts';
import { idParams as keyParams, slugParams } from '../../../contracts/admin/common.ts';
import {
  idempotencySearchQuery as searchQuery,
  type ClinicIdempotency,
  type ClinicIdempotencyEntryView,
  type IdempotencyConflictView,
  type IdempotencyEntryState,
  type IdempotencyEntryView,
  type idempotencyPurged,
  type KeyIdempotency,
} from '../../../contracts/admin/idempotency.ts';

const entryParams = keyParams.extend({ entry: z.string().min(1).max(2048) });

const LIST_LIMIT = 200;
/** Conflicts listed per search, newest first. */
const CONFLICT_LIMIT = 100;
/** A search by value reads at most the clinic's newest conflicts this many deep (they are rare; a bound all the same). */
const CONFLICT_SCAN = 5000;

type EntryRow = Pick<
  IdempotencyRecord,
  | 'idem_key'
  | 'method'
  | 'path'
  | 'state'
  | 'status'
  | 'body_hash'
  | 'created_at'
  | 'expires_at'
  | 'lease_until'
  | 'request_id'
>;
const ENTRY_COLUMNS = [
  'idem_key',
  'method',
  'path',
  'state',
  'status',
  'body_hash',
  'created_at',
  'expires_at',
  'lease_until',
  'request_id',
] as const;

function entryView(r: EntryRow, at: number, auditIds: Map<string, number>): IdempotencyEntryView {
  return {
    entry: encodeEntry(r),
    idem_key: r.idem_key,
    method: r.method,
    path: r.path,
    state: stateOf(r, at),
    status: r.status,
    fingerprint: r.body_hash,
    created_at: new Date(r.created_at).toISOString(),
    expires_at: new Date(r.expires_at).toISOString(),
    lease_until: r.state === 'in_flight' ? new Date(r.lease_until).toISOString() : null,
    request_id: r.request_id,
    audit_id: r.request_id ? (auditIds.get(r.request_id) ?? null) : null,
  };
}

interface ConflictDetail {
  reason?: unknown;
  idem_key?: unknown;
  stored?: { method?: unknown; path?: unknown; fingerprint?: unknown; request_id?: unknown };
  sent_fingerprint?: unknown;
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function parseJson(value: string | null): Record<string, unknown> | null {
  if (!value) return null;
  try {
    const parsed = JSON.parse(value) as unknown;
    return parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const encodeEntry = (row: { method: string; path: string; idem_key: string }): string =>
  Buffer.from(JSON.stringify([row.method, row.path, row.idem_key])).toString('base64url');

function decodeEntry(entry: string): { method: string; path: string; idem_key: string } | null {
  try {
    const parsed = JSON.parse(Buffer.from(entry, 'base64url').toString('utf8')) as unknown;
    if (!Array.isArray(parsed) || parsed.length !== 3 || !parsed.every((p) => typeof p === 'string')) return null;
    return { method: parsed[0], path: parsed[1], idem_key: parsed[2] };
  } catch {
    return null;
  }
}

function stateOf(
  row: { state: string; status: number | null; lease_until: number },
  now: number,
): IdempotencyEntryState {
  if (row.state === 'completed') return row.status === 503 ? 'stored_503' : 'completed';
  if (row.state === 'orphaned') return 'orphaned';
  return row.lease_until > now ? 'in_flight' : 'abandoned';
}

/**
 * The idempotency inspector: a key's live entries (metadata only: the sealed responses are never
 * opened here) and the purge of one, audited as `idempotency.purge`.
 */
export default async function idempotencyRoutes(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  const now = () => deps.clock.now();

  const loadKey = async (request: { adminAudit: unknown }, id: number) => {
    const key = await guard(() => deps.keys.get(id));
    const tenant = (await deps.tenants.list()).find((t) => t.id === key.tenant_id);
    (request as { adminAudit: unknown }).adminAudit = {
      tenantId: key.tenant_id,
      tenantSlug: tenant?.slug ?? null,
      chaveId: id,
    };
    return { key, tenantSlug: tenant?.slug ?? null };
  };

  /** request_id → audit row id, for the links (the API's entries only); flushes the writer first (read-your-writes). */
  const auditIdsOf = async (requestIds: Array<string | null>): Promise<Map<string, number>> => {
    const ids = [...new Set(requestIds.filter((r): r is string => r !== null))];
    if (ids.length === 0) return new Map();
    await app.auditWriter.flush();
    const rows = await deps.db
      .selectFrom('audit_log')
      .select(['id', 'request_id'])
      .where('request_id', 'in', ids)
      .where('source', '=', 'api')
      .execute();
    return new Map(rows.map((a) => [a.request_id, a.id]));
  };

  app.get('/keys/:id/idempotency', async (request): Promise<KeyIdempotency> => {
    const { id } = parseInput(keyParams, request.params);
    const { key, tenantSlug } = await loadKey(request, id);
    const at = now();
    const rows = await deps.db
      .selectFrom('idempotency_keys')
      .select([...ENTRY_COLUMNS])
      .where('chave_id', '=', id)
      .where('expires_at', '>', at)
      .orderBy('created_at', 'desc')
      .limit(LIST_LIMIT + 1)
      .execute();
    const page = rows.slice(0, LIST_LIMIT);
    const auditIds = await auditIdsOf(page.map((r) => r.request_id));
    return {
      key: {
        id: key.id,
        api_key_masked: key.api_key_masked,
        label: key.label,
        status: key.status,
        tenant_slug: tenantSlug,
      },
      items: page.map((r) => entryView(r, at, auditIds)),
      truncated: rows.length > LIST_LIMIT,
    };
  });

  /**
   * A clinic's idempotency at a glance (issue 22 § 5): with `idem_key`, the live entries of that
   * Idempotency-Key under any of the clinic's keys (revoked ones included: their entries live on); and
   * the requests refused 422 IDEMPOTENCY_CONFLICT, from the journal, each with both body fingerprints.
   */
  app.get('/tenants/:slug/idempotency', async (request): Promise<ClinicIdempotency> => {
    const { slug } = parseInput(slugParams, request.params);
    const { idem_key: idemKey } = parseInput(searchQuery, request.query);
    const tenant = await deps.tenants.get(slug);
    if (!tenant) throw notFound();
    const keys = new Map(
      (await guard(() => deps.keys.list(slug))).map((k) => [
        k.id,
        { id: k.id, label: k.label, api_key_masked: k.api_key_masked, status: k.status },
      ]),
    );
    const at = now();

    // The primary key starts with (chave_id, idem_key): one lookup per key of the clinic.
    const entryRows =
      idemKey === undefined || keys.size === 0
        ? []
        : await deps.db
            .selectFrom('idempotency_keys')
            .select(['chave_id', ...ENTRY_COLUMNS])
            .where('chave_id', 'in', [...keys.keys()])
            .where('idem_key', '=', idemKey)
            .where('expires_at', '>', at)
            .orderBy('created_at', 'desc')
            .limit(LIST_LIMIT)
            .execute();

    await app.auditWriter.flush();
    // The clinic's newest conflicts (the partial error-code index, newest id first), then the search's value.
    const newest = deps.db
      .selectFrom('audit_log')
      .select(['id', 'request_id', 'ts', 'chave_id', 'method', 'path', 'detail', 'request_headers', 'error_message'])
      .where('error_code', '=', 'IDEMPOTENCY_CONFLICT')
      .where('tenant_id', '=', tenant.id)
      .orderBy('id', 'desc')
      .limit(idemKey === undefined ? CONFLICT_LIMIT + 1 : CONFLICT_SCAN);
    const scanned = await newest.execute();
    const conflictRows = scanned
      .map((row) => {
        const detail = (parseJson(row.detail)?.idempotency_conflict ?? null) as ConflictDetail | null;
        const headers = parseJson(row.request_headers);
        return { row, detail, idem: text(detail?.idem_key) ?? text(headers?.['idempotency-key']) };
      })
      .filter((c) => idemKey === undefined || c.idem === idemKey);
    const conflicts = conflictRows.slice(0, CONFLICT_LIMIT);

    // Earlier conflicts recorded no fingerprint: the entry they met, when it is still live, gives the first side.
    const live = new Map<string, EntryRow & { chave_id: number }>();
    for (const r of entryRows) live.set(`${r.chave_id} ${r.idem_key}`, r);
    const missing = conflicts.filter(
      (c) => !c.detail?.stored && c.idem && c.row.chave_id && !live.has(`${c.row.chave_id} ${c.idem}`),
    );
    for (const c of missing) {
      const found = await deps.db
        .selectFrom('idempotency_keys')
        .select(['chave_id', ...ENTRY_COLUMNS])
        .where('chave_id', '=', c.row.chave_id!)
        .where('idem_key', '=', c.idem!)
        .where('expires_at', '>', at)
        .executeTakeFirst();
      if (found) live.set(`${found.chave_id} ${found.idem_key}`, found);
    }

    const auditIds = await auditIdsOf([
      ...entryRows.map((r) => r.request_id),
      ...conflicts.map((c) => text(c.detail?.stored?.request_id)),
      ...[...live.values()].map((r) => r.request_id),
    ]);
    const conflictViews: IdempotencyConflictView[] = conflicts.map(({ row, detail, idem }) => {
      const stored = detail?.stored;
      const fallback = idem && row.chave_id ? live.get(`${row.chave_id} ${idem}`) : undefined;
      const firstRequest = stored ? text(stored.request_id) : (fallback?.request_id ?? null);
      const reason =
        text(detail?.reason) ??
        (row.error_message?.includes('outra operacao')
          ? 'operation'
          : row.error_message?.includes('corpo')
            ? 'body'
            : null);
      return {
        audit_id: row.id,
        request_id: row.request_id,
        ts: row.ts,
        idem_key: idem,
        reason: reason === 'body' || reason === 'operation' ? reason : null,
        key: row.chave_id ? (keys.get(row.chave_id) ?? null) : null,
        first:
          stored || fallback
            ? {
                method: (stored ? text(stored.method) : fallback?.method) ?? '',
                path: (stored ? text(stored.path) : fallback?.path) ?? '',
                fingerprint: stored ? text(stored.fingerprint) : (fallback?.body_hash ?? null),
                request_id: firstRequest,
                audit_id: firstRequest ? (auditIds.get(firstRequest) ?? null) : null,
              }
            : null,
        sent: {
          method: row.method,
          path: row.path,
          fingerprint: text(detail?.sent_fingerprint),
          request_id: row.request_id,
          audit_id: row.id,
        },
      };
    });

    return {
      tenant: { slug: tenant.slug, nome: tenant.nome },
      idem_key: idemKey ?? null,
      entries: entryRows.map(
        (r): ClinicIdempotencyEntryView => ({ ...entryView(r, at, auditIds), key: keys.get(r.chave_id)! }),
      ),
      conflicts: conflictViews,
      // More than listed, or (a search) older conflicts beyond the newest CONFLICT_SCAN were not read.
      conflicts_truncated:
        conflictRows.length > CONFLICT_LIMIT || (idemKey !== undefined && scanned.length === CONFLICT_SCAN),
    };
  });

  app.delete(
    '/keys/:id/idempotency/:entry',
    { config: { consoleAction: 'idempotency.purge' } },
    async (request): Promise<z.infer<typeof idempotencyPurged>> => {
      const { id, entry } = parseInput(entryParams, request.params);
      await loadKey(request, id);
      const target = decodeEntry(entry);
      if (!target) throw notFound();
      const where = deps.db
        .selectFrom('idempotency_keys')
        .select(['state', 'status', 'lease_until', 'request_id'])
        .where('chave_id', '=', id)
        .where('method', '=', target.method)
        .where('path', '=', target.path)
        .where('idem_key', '=', target.idem_key);
      const row = await where.executeTakeFirst();
      if (!row) throw notFound();
      const state = stateOf(row, now());
      request.adminAudit = {
        ...(request.adminAudit ?? {}),
        detail: {
          idem_key: target.idem_key,
          method: target.method,
          path: target.path,
          state,
          status: row.status,
          request_id: row.request_id,
        },
      };
      // Purging a write that is still executing would let a retry run beside it.
      if (state === 'in_flight') {
        throw new ApiError(
          'CONCURRENT_REQUEST',
          'Entrada ainda em processamento; aguarde o fim da requisicao ou o prazo do lease.',
          null,
          {
            headers: { 'retry-after': '2' },
          },
        );
      }
      await deps.db
        .deleteFrom('idempotency_keys')
        .where('chave_id', '=', id)
        .where('method', '=', target.method)
        .where('path', '=', target.path)
        .where('idem_key', '=', target.idem_key)
        .execute();
      return { purged: true as const, idem_key: target.idem_key, method: target.method, path: target.path, state };
    },
  );
}
