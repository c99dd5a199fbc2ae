import type { FastifyInstance } from 'fastify';
import { notFound } from '../../errors.ts';
import type { AdminDeps } from '../deps.ts';
import { findAuditEntry, queryAuditPage, queryUnattributed } from '../../audit/audit-query.ts';
import { parseInput } from '../http.ts';
import { findOperatorRow } from '../../operators/operators.repository.ts';
import { idParams } from '../../../contracts/admin/common.ts';
import {
  auditQuerySchema,
  unattributedQuerySchema,
  type AuditDetail,
  type AuditPage,
  type AuditStorage,
  type unattributedPage,
} from '../../../contracts/admin/audit.ts';
import type { z } from 'zod';

export default async function auditRoutes(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  app.get('/audit', async (request): Promise<AuditPage> => {
    const q = parseInput(auditQuerySchema, request.query);
    // Read-your-writes: entries still in the writer's batch are committed before the page is read.
    await app.auditWriter.flush();
    // Filter on tenant_id when the clinic is known: that column has the (tenant_id, id) index (migration 019).
    let tenantId: number | null = null;
    if (q.tenant) tenantId = (await deps.tenants.get(q.tenant))?.id ?? null;
    return queryAuditPage(deps.db, { ...q, tenantId });
  });

  /** Requests that named no existing key, per minute, client address, status and code (issue 19). */
  app.get('/audit/unattributed', async (request): Promise<z.infer<typeof unattributedPage>> => {
    const q = parseInput(unattributedQuerySchema, request.query);
    await app.auditWriter.flush();
    return queryUnattributed(deps.db, q);
  });

  /** The journal's budget and state, oldest entry, database size (the audit page's storage line and the console banner). */
  app.get('/audit/storage', async (): Promise<AuditStorage> => {
    await app.auditWriter.flush();
    return { ...(await deps.auditStorage()), retention_days: app.auditWriter.retentionDays };
  });

  app.get('/audit/:id', async (request): Promise<AuditDetail> => {
    const { id } = parseInput(idParams, request.params);
    await app.auditWriter.flush();
    const entry = await findAuditEntry(deps.db, id);
    if (!entry) throw notFound();
    const operator = entry.operator_id ? await findOperatorRow(deps.db, { id: entry.operator_id }) : undefined;
    const {
      body: _body,
      detail: _detail,
      response_body: _response,
      request_headers: _headers,
      body_json,
      detail_json,
      response_json,
      headers_json,
      ...rest
    } = entry;
    return {
      ...rest,
      body: body_json,
      detail: detail_json,
      response_body: response_json,
      // The journal's own JSON (server/audit/journal-entries.ts auditedHeaders).
      request_headers: headers_json as AuditDetail['request_headers'],
      operator_username: operator?.username ?? null,
    };
  });
}
