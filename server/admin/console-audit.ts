import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DbOrTrx } from '../db/database.ts';
import type { AuditLogTable } from '../db/tables/audit-log.ts';
import { AUDIT_REDACTED_KEYS, keySet, redact } from '../http/redact.ts';

const AUDIT_KEYS = keySet(AUDIT_REDACTED_KEYS);

/** Every audit_log column but the id, all present: what server/audit's writer takes. */
export type ConsoleAuditEntry = { [K in Exclude<keyof AuditLogTable, 'id' | 'source'>]: AuditLogTable[K] } & { source: 'console' };

/** What a console route says about the action it performed (set by the handler, read after the response). */
export interface ConsoleActionSubject {
  tenantId?: number | null;
  tenantSlug?: string | null;
  chaveId?: number | null;
  /** Extra facts for the detail view (never a secret). */
  detail?: Record<string, unknown>;
}

/**
 * One audit row for an operator action: who (operator), what (action), on what (tenant, key),
 * and the outcome. The body is redacted with the same rules as the public API's.
 */
export function buildConsoleAuditEntry(input: {
  requestId: string;
  action: string;
  operatorId: number | null;
  method: string;
  path: string;
  status: number;
  errorCode: string | null;
  durationMs: number;
  clientIp: string;
  body?: unknown;
  subject?: ConsoleActionSubject;
  at?: Date;
}): ConsoleAuditEntry {
  const subject = input.subject ?? {};
  return {
    request_id: input.requestId,
    ts: (input.at ?? new Date()).toISOString(),
    source: 'console',
    tenant_id: subject.tenantId ?? null,
    tenant_slug: subject.tenantSlug ?? null,
    chave_id: subject.chaveId ?? null,
    operator_id: input.operatorId,
    method: input.method,
    path: input.path,
    status: input.status,
    error_code: input.errorCode,
    duracao_ms: Math.max(0, Math.round(input.durationMs)),
    client_ip: input.clientIp,
    body: input.body === undefined || input.body === null ? null : JSON.stringify(redact(input.body, AUDIT_KEYS)),
    detail: JSON.stringify({ action: input.action, ...(subject.detail ?? {}) }),
    // The API's journal columns; a console action's subject and outcome are in detail and error_code.
    error_message: null,
    response_body: null,
    request_headers: null,
  };
}

export function consoleAuditEntryFromRequest(request: FastifyRequest, reply: FastifyReply, action: string): ConsoleAuditEntry {
  return buildConsoleAuditEntry({
    requestId: request.id,
    action,
    operatorId: request.adminSession?.operatorId ?? request.adminAuditOperatorId ?? null,
    method: request.method,
    path: request.url,
    status: reply.statusCode,
    errorCode: request.errorCode,
    durationMs: performance.now() - request.startedAt,
    clientIp: request.ip,
    body: request.body,
    subject: request.adminAudit ?? undefined,
  });
}

export type ConsoleAuditSink = (entry: ConsoleAuditEntry) => Promise<void> | void;

/** Direct insert; console actions are rare, so they skip the API's batching. */
export const insertConsoleAudit =
  (db: DbOrTrx): ConsoleAuditSink =>
  async (entry) => {
    await db.insertInto('audit_log').values(entry).execute();
  };

/** Through the gateway's batching audit writer (server/audit), the same path as API entries. */
export const writerConsoleAudit =
  (writer: { writeDurable(record: ConsoleAuditEntry): Promise<void> }): ConsoleAuditSink =>
  (entry) =>
    writer.writeDurable(entry);
