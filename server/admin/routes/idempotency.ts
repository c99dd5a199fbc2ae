import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiError, notFound } from '../../errors.ts';
import type { AdminDeps } from '../deps.ts';
import { guard, parseInput } from '../http.ts';
import type { InspectedEntry } from '../../idempotency/inspection.ts';
import { apiAuditIds, newestIdempotencyConflicts, type IdempotencyConflictRow } from '../../audit/audit-query.ts';
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

function entryView(r: InspectedEntry, at: number, auditIds: Map<string, number>): IdempotencyEntryView {
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

/** A journaled 422 IDEMPOTENCY_CONFLICT, with what its entry says and the Idempotency-Key it was sent with. */
interface Conflict {
  row: IdempotencyConflictRow;
  detail: ConflictDetail | null;
  idem: string | null;
}

function conflictOf(row: IdempotencyConflictRow): Conflict {
  const detail = (parseJson(row.detail)?.idempotency_conflict ?? null) as ConflictDetail | null;
  const headers = parseJson(row.request_headers);
  return { row, detail, idem: text(detail?.idem_key) ?? text(headers?.['idempotency-key']) };
}

/** `body` or `operation`; an entry of an earlier release has no reason recorded, its message tells. */
function conflictReason({ detail, row }: Conflict): 'body' | 'operation' | null {
  const reason =
    text(detail?.reason) ??
    (row.error_message?.includes('outra operacao')
      ? 'operation'
      : row.error_message?.includes('corpo')
        ? 'body'
        : null);
  return reason === 'body' || reason === 'operation' ? reason : null;
}

type KeySummary = ClinicIdempotencyEntryView['key'];
const liveKey = (chaveId: number, idemKey: string) => `${chaveId} ${idemKey}`;

/** Both sides of a conflict: the entry it met (from the journal, else the live entry) and the request refused. */
function conflictView(
  conflict: Conflict,
  keys: Map<number, KeySummary>,
  live: Map<string, InspectedEntry>,
  auditIds: Map<string, number>,
): IdempotencyConflictView {
  const { row, detail, idem } = conflict;
  const stored = detail?.stored;
  const fallback = idem && row.chave_id ? live.get(liveKey(row.chave_id, idem)) : undefined;
  const firstRequest = stored ? text(stored.request_id) : (fallback?.request_id ?? null);
  return {
    audit_id: row.id,
    request_id: row.request_id,
    ts: row.ts,
    idem_key: idem,
    reason: conflictReason(conflict),
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
}

type Deps = AdminDeps & { app: FastifyInstance };

/** The API key (404 when unknown) and its clinic's slug; the console action is audited under both. */
async function loadKey(deps: Deps, request: FastifyRequest, id: number) {
  const key = await guard(() => deps.keys.get(id));
  const tenant = (await deps.tenants.list()).find((t) => t.id === key.tenant_id);
  request.adminAudit = { tenantId: key.tenant_id, tenantSlug: tenant?.slug ?? null, chaveId: id };
  return { key, tenantSlug: tenant?.slug ?? null };
}

/** request_id → audit row id, for the links (the API's entries only); flushes the writer first (read-your-writes). */
async function auditIdsOf(deps: Deps, requestIds: Array<string | null>): Promise<Map<string, number>> {
  if (!requestIds.some((r) => r !== null)) return new Map();
  await deps.app.auditWriter.flush();
  return apiAuditIds(deps.db, requestIds);
}

/** The clinic's newest conflicts, then (a search) those of the value; `scanned`: how many rows were read. */
async function clinicConflicts(deps: Deps, tenantId: number, idemKey: string | undefined) {
  await deps.app.auditWriter.flush();
  const scanned = await newestIdempotencyConflicts(
    deps.db,
    tenantId,
    idemKey === undefined ? CONFLICT_LIMIT + 1 : CONFLICT_SCAN,
  );
  const matching = scanned.map(conflictOf).filter((c) => idemKey === undefined || c.idem === idemKey);
  return { scanned: scanned.length, matching };
}

/** The live entries by (key, Idempotency-Key): the search's, and those earlier conflicts met (they recorded no fingerprint). */
async function liveEntriesOf(deps: Deps, entries: InspectedEntry[], conflicts: Conflict[], at: number) {
  const live = new Map<string, InspectedEntry>();
  for (const r of entries) live.set(liveKey(r.chave_id, r.idem_key), r);
  const missing = conflicts.filter(
    (c) => !c.detail?.stored && c.idem && c.row.chave_id && !live.has(liveKey(c.row.chave_id, c.idem)),
  );
  for (const c of missing) {
    const found = await deps.idempotency.liveEntry(c.row.chave_id!, c.idem!, at);
    if (found) live.set(liveKey(found.chave_id, found.idem_key), found);
  }
  return live;
}

async function keyIdempotency(deps: Deps, request: FastifyRequest): Promise<KeyIdempotency> {
  const { id } = parseInput(keyParams, request.params);
  const { key, tenantSlug } = await loadKey(deps, request, id);
  const at = deps.clock.now();
  const rows = await deps.idempotency.liveEntriesOfKey(id, at, LIST_LIMIT + 1);
  const page = rows.slice(0, LIST_LIMIT);
  const auditIds = await auditIdsOf(
    deps,
    page.map((r) => r.request_id),
  );
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
}

/**
 * A clinic's idempotency at a glance (issue 22 § 5): with `idem_key`, the live entries of that
 * Idempotency-Key under any of the clinic's keys (revoked ones included: their entries live on); and
 * the requests refused 422 IDEMPOTENCY_CONFLICT, from the journal, each with both body fingerprints.
 */
async function clinicIdempotency(deps: Deps, request: FastifyRequest): Promise<ClinicIdempotency> {
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
  const at = deps.clock.now();
  const entryRows =
    idemKey === undefined || keys.size === 0
      ? []
      : await deps.idempotency.liveEntriesOfIdemKey([...keys.keys()], idemKey, at, LIST_LIMIT);
  const { scanned, matching } = await clinicConflicts(deps, tenant.id, idemKey);
  const conflicts = matching.slice(0, CONFLICT_LIMIT);
  const live = await liveEntriesOf(deps, entryRows, conflicts, at);
  const auditIds = await auditIdsOf(deps, [
    ...entryRows.map((r) => r.request_id),
    ...conflicts.map((c) => text(c.detail?.stored?.request_id)),
    ...[...live.values()].map((r) => r.request_id),
  ]);
  return {
    tenant: { slug: tenant.slug, nome: tenant.nome },
    idem_key: idemKey ?? null,
    entries: entryRows.map(
      (r): ClinicIdempotencyEntryView => ({ ...entryView(r, at, auditIds), key: keys.get(r.chave_id)! }),
    ),
    conflicts: conflicts.map((c) => conflictView(c, keys, live, auditIds)),
    // More than listed, or (a search) older conflicts beyond the newest CONFLICT_SCAN were not read.
    conflicts_truncated: matching.length > CONFLICT_LIMIT || (idemKey !== undefined && scanned === CONFLICT_SCAN),
  };
}

/** Deletes one entry (not while it executes), audited with what it was. */
async function purgeEntry(deps: Deps, request: FastifyRequest): Promise<z.infer<typeof idempotencyPurged>> {
  const { id, entry } = parseInput(entryParams, request.params);
  await loadKey(deps, request, id);
  const target = decodeEntry(entry);
  if (!target) throw notFound();
  const name = { chaveId: id, method: target.method, path: target.path, idemKey: target.idem_key };
  const row = await deps.idempotency.entry(name);
  if (!row) throw notFound();
  const state = stateOf(row, deps.clock.now());
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
  await deps.idempotency.purgeEntry(name);
  return { purged: true as const, idem_key: target.idem_key, method: target.method, path: target.path, state };
}

/**
 * The idempotency inspector: a key's live entries (metadata only: the sealed responses are never
 * opened here) and the purge of one, audited as `idempotency.purge`. The entries are the idempotency
 * store's (deps.idempotency), the conflicts and the links the journal's (server/audit/audit-query.ts).
 */
export default async function idempotencyRoutes(app: FastifyInstance, adminDeps: AdminDeps): Promise<void> {
  const deps: Deps = { ...adminDeps, app };
  app.get('/keys/:id/idempotency', (request) => keyIdempotency(deps, request));
  app.get('/tenants/:slug/idempotency', (request) => clinicIdempotency(deps, request));
  app.delete('/keys/:id/idempotency/:entry', { config: { consoleAction: 'idempotency.purge' } }, (request) =>
    purgeEntry(deps, request),
  );
}
