import type { DbOrTrx } from '../db/database.ts';
import type { AuditRecord } from './audit-writer.ts';
import type { JournalClass } from './journal-budget.ts';
import { AUDIT_KEYS, boundedJson, capText, entryBytes, JOURNAL_LIMITS } from './bounded.ts';

/** A console action's journal entry: what server/audit's writer takes. */
export type ConsoleAuditEntry = AuditRecord & { source: 'console' };

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
  /** Content-Type of the body, described when the body is not parsed JSON. */
  contentType?: string;
  subject?: ConsoleActionSubject;
  at?: Date;
  /** Verified unless told otherwise (server/audit/journal-budget.ts). */
  journalClass?: JournalClass;
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
    path: capText(input.path, JOURNAL_LIMITS.path),
    status: input.status,
    error_code: input.errorCode,
    duracao_ms: Math.max(0, Math.round(input.durationMs)),
    client_ip: input.clientIp,
    body: consoleBody(input.body, input.contentType),
    detail: boundedJson({ action: input.action, ...(subject.detail ?? {}) }, AUDIT_KEYS, JOURNAL_LIMITS.detail),
    // The API's journal columns; a console action's subject and outcome are in detail and error_code.
    error_message: null,
    response_body: null,
    request_headers: null,
    journal_class: input.journalClass ?? 'verified',
  };
}

/**
 * Parsed JSON is redacted like the API's bodies. Anything else (a `text/plain` login carrying a password,
 * say) is described by size and type only: its bytes never reach the journal, nor a digest of them (a
 * console body is short and may be mostly a password, which a digest would expose to a dictionary).
 */
function consoleBody(body: unknown, contentType: string | undefined): string | null {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    return JSON.stringify({
      _nao_interpretado: {
        bytes: Buffer.byteLength(body),
        content_type: contentType ? capText(contentType, 100) : null,
      },
    });
  }
  return boundedJson(body, AUDIT_KEYS);
}

export type ConsoleAuditSink = (entry: ConsoleAuditEntry) => Promise<void> | void;

/**
 * Direct insert, for a process without the gateway's writer (the CLI): the entry and its weight in one
 * transaction. A running gateway's in-memory totals learn of it at its next start.
 */
export const insertConsoleAudit =
  (db: DbOrTrx): ConsoleAuditSink =>
  async (entry) => {
    const { journal_class, ...row } = entry;
    const bytes = entryBytes(row);
    const kind = journal_class === 'verified' ? 'verified' : 'unverified';
    const write = async (trx: DbOrTrx) => {
      await trx
        .insertInto('audit_log')
        .values({ ...row, verified: kind === 'verified' ? 1 : 0, bytes })
        .execute();
      await trx
        .updateTable('audit_budget')
        .set((eb) => ({ rows: eb('rows', '+', 1), bytes: eb('bytes', '+', bytes) }))
        .where('kind', '=', kind)
        .execute();
    };
    if ('transaction' in db && typeof db.transaction === 'function' && !db.isTransaction)
      await db.transaction().execute(write);
    else await write(db);
  };

/** Through the gateway's batching audit writer (server/audit), the same path as API entries. */
export const writerConsoleAudit =
  (writer: { writeDurable(record: ConsoleAuditEntry): Promise<void> }): ConsoleAuditSink =>
  (entry) =>
    writer.writeDurable(entry);
