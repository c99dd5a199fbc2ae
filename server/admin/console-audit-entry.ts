import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JournalClass } from '../audit/journal-budget.ts';
import { buildConsoleAuditEntry, type ConsoleAuditEntry } from '../audit/console-audit.ts';
import './context.ts';

/**
 * Proven actions are verified: a session's or an operator token's, and a successful login. A failed login
 * naming an existing operator is unverified (shed before history); one naming nobody, and any call that
 * never authenticated, is unattributed noise.
 */
function consoleJournalClass(request: FastifyRequest, status: number, operatorId: number | null): JournalClass {
  const config = request.routeOptions.config;
  if (config?.adminPublic) return status < 400 ? 'verified' : operatorId !== null ? 'unverified' : 'unattributed';
  if (request.adminSession || (config?.operatorToken && operatorId !== null)) return 'verified';
  return 'unattributed';
}

export function consoleAuditEntryFromRequest(
  request: FastifyRequest,
  reply: FastifyReply,
  action: string,
): ConsoleAuditEntry {
  const operatorId = request.adminSession?.operatorId ?? request.adminAuditOperatorId ?? null;
  const type = request.headers['content-type'];
  return buildConsoleAuditEntry({
    requestId: request.id,
    action,
    operatorId,
    contentType: Array.isArray(type) ? type[0] : type,
    journalClass: consoleJournalClass(request, reply.statusCode, operatorId),
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
