import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ApiError, notFound } from '../../errors.ts';
import type { AdminDeps } from '../admin-plugin.ts';
import { guard, parseInput } from '../http.ts';

const keyParams = z.object({ id: z.coerce.number().int().positive() });
const entryParams = keyParams.extend({ entry: z.string().min(1).max(2048) });

/** An entry's state as an operator reads it; `stored_503` is a completed 503 the spec replays for 24 h. */
export type IdempotencyEntryState = 'in_flight' | 'abandoned' | 'completed' | 'stored_503';

export interface IdempotencyEntryView {
  /** Opaque handle of (method, path, Idempotency-Key): the DELETE route's `:entry`. */
  entry: string;
  idem_key: string;
  method: string;
  path: string;
  state: IdempotencyEntryState;
  status: number | null;
  /** HMAC-SHA256 of the canonical body's hash under a subkey of the master key: safe to show. */
  fingerprint: string;
  created_at: string;
  expires_at: string;
  /** Until when an in-flight entry blocks its key. */
  lease_until: string | null;
  request_id: string | null;
  /** The audit row of request_id, when it is still in the log. */
  audit_id: number | null;
}

const LIST_LIMIT = 200;

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

function stateOf(row: { state: string; status: number | null; lease_until: number }, now: number): IdempotencyEntryState {
  if (row.state === 'completed') return row.status === 503 ? 'stored_503' : 'completed';
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
    (request as { adminAudit: unknown }).adminAudit = { tenantId: key.tenant_id, tenantSlug: tenant?.slug ?? null, chaveId: id };
    return { key, tenantSlug: tenant?.slug ?? null };
  };

  app.get('/keys/:id/idempotency', async (request) => {
    const { id } = parseInput(keyParams, request.params);
    const { key, tenantSlug } = await loadKey(request, id);
    const at = now();
    const rows = await deps.db
      .selectFrom('idempotency_keys')
      .select(['idem_key', 'method', 'path', 'state', 'status', 'body_hash', 'created_at', 'expires_at', 'lease_until', 'request_id'])
      .where('chave_id', '=', id)
      .where('expires_at', '>', at)
      .orderBy('created_at', 'desc')
      .limit(LIST_LIMIT + 1)
      .execute();
    const page = rows.slice(0, LIST_LIMIT);
    const requestIds = page.map((r) => r.request_id).filter((r): r is string => r !== null);
    // Read-your-writes for the link: the audit row of a request that just answered may still be in the batch.
    if (requestIds.length > 0) app.auditWriter.flush();
    const audits =
      requestIds.length === 0
        ? []
        : await deps.db.selectFrom('audit_log').select(['id', 'request_id']).where('request_id', 'in', requestIds).where('source', '=', 'api').execute();
    const auditIds = new Map(audits.map((a) => [a.request_id, a.id]));
    const items: IdempotencyEntryView[] = page.map((r) => ({
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
    }));
    return {
      key: { id: key.id, api_key_masked: key.api_key_masked, label: key.label, status: key.status, tenant_slug: tenantSlug },
      items,
      truncated: rows.length > LIST_LIMIT,
    };
  });

  app.delete('/keys/:id/idempotency/:entry', { config: { consoleAction: 'idempotency.purge' } }, async (request) => {
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
      detail: { idem_key: target.idem_key, method: target.method, path: target.path, state, status: row.status, request_id: row.request_id },
    };
    // Purging a write that is still executing would let a retry run beside it.
    if (state === 'in_flight') {
      throw new ApiError('CONCURRENT_REQUEST', 'Entrada ainda em processamento; aguarde o fim da requisicao ou o prazo do lease.', null, {
        headers: { 'retry-after': '2' },
      });
    }
    await deps.db
      .deleteFrom('idempotency_keys')
      .where('chave_id', '=', id)
      .where('method', '=', target.method)
      .where('path', '=', target.path)
      .where('idem_key', '=', target.idem_key)
      .execute();
    return { purged: true, idem_key: target.idem_key, method: target.method, path: target.path, state };
  });
}
