import type { Selectable } from 'kysely';
import type { AuditUnattributedTable } from '../../server/db/tables/audit-log.ts';
import type { TestStack } from './stack.ts';

/** A row of audit_unattributed, its sample parsed. */
export type UnattributedGroup = Omit<Selectable<AuditUnattributedTable>, 'sample'> & { sample: Record<string, any> };

/** Every audit_log row (verified and unverified entries), after committing what is queued. */
export function journalRows(stack: Pick<TestStack, 'app' | 'gatewayDb'>): Array<Record<string, any>> {
  stack.app.auditWriter.flush();
  return stack.gatewayDb.sqlite.prepare('SELECT * FROM audit_log ORDER BY id').all() as Array<Record<string, any>>;
}

/** The audit_log row of one request, if it has one. */
export function journalRow(stack: Pick<TestStack, 'app' | 'gatewayDb'>, requestId: string): Record<string, any> | undefined {
  stack.app.auditWriter.flush();
  return stack.gatewayDb.sqlite.prepare('SELECT * FROM audit_log WHERE request_id = ?').get(requestId) as Record<string, any> | undefined;
}

/** The unattributed groups (requests naming no existing key), samples parsed, after committing what is queued. */
export function unattributedGroups(stack: Pick<TestStack, 'app' | 'gatewayDb'>, filter: { status?: number; error_code?: string } = {}): UnattributedGroup[] {
  stack.app.auditWriter.flush();
  const rows = stack.gatewayDb.sqlite.prepare('SELECT * FROM audit_unattributed ORDER BY id').all() as Array<Omit<UnattributedGroup, 'sample'> & { sample: string }>;
  return rows
    .map((row) => ({ ...row, sample: JSON.parse(row.sample) as Record<string, any> }))
    .filter((g) => (filter.status === undefined || g.status === filter.status) && (filter.error_code === undefined || g.error_code === filter.error_code));
}

/** How many requests the unattributed groups counted for a status and code (every minute and address). */
export function unattributedCount(stack: Pick<TestStack, 'app' | 'gatewayDb'>, filter: { status?: number; error_code?: string } = {}): number {
  return unattributedGroups(stack, filter).reduce((sum, g) => sum + g.count, 0);
}
