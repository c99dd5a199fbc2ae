import { sql } from 'kysely';
import type { ContractReport, ContractViolationRow } from '../../contracts/admin/contract.ts';
import type { ProxyConfig } from '../config.ts';
import type { GatewayDb } from '../db/database.ts';
import type { ContractViolation } from './contract-checks.ts';

/**
 * What the contract guard saw violated, per operation and rule (migration 027): a count, first and last time, the
 * last value and entry. One upsert per rule per request, in the background: a failed write is logged, never the
 * answer's concern (the journal entry has the violations already). On SQLite and PostgreSQL alike (Kysely).
 */
export class ContractStore {
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: GatewayDb,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  /** Queues the violations of one request (`at`: ISO time of the appliance clock). */
  record(violations: ContractViolation[], requestId: string, at: string): void {
    if (violations.length === 0) return;
    // One row per rule, even when a request breaks it twice.
    const rules = new Map(violations.map((v) => [`${v.operation} ${v.rule}`, v]));
    this.pending = this.pending
      .then(async () => {
        for (const v of rules.values()) {
          await this.db
            .insertInto('contract_violations')
            .values({
              operation: v.operation,
              rule: v.rule,
              count: 1,
              first_seen: at,
              last_seen: at,
              last_value: v.seen,
              last_request_id: requestId,
            })
            .onConflict((oc) =>
              oc.columns(['operation', 'rule']).doUpdateSet({
                count: sql`contract_violations.count + 1`,
                last_seen: at,
                last_value: v.seen,
                last_request_id: requestId,
              }),
            )
            .execute();
        }
      })
      .catch(this.onError);
  }

  /** Resolves once everything queued is written (tests, the CLI's report after a run). */
  flush(): Promise<void> {
    return this.pending;
  }
}

/** The report of a DATA_DIR's (or PostgreSQL's) gateway state: the console API and the CLI read it the same way. */
export async function contractReport(db: GatewayDb, proxy: ProxyConfig | null): Promise<ContractReport> {
  const rows = (await db
    .selectFrom('contract_violations')
    .selectAll()
    .orderBy('last_seen', 'desc')
    .orderBy('operation')
    .orderBy('rule')
    .execute()) as ContractViolationRow[];
  const violations = rows.map((row) => ({ ...row, count: Number(row.count) }));
  return {
    proxy: proxy ? { mode: proxy.mode, upstream: withoutCredentials(proxy.upstream), strict: proxy.strict } : null,
    total: violations.reduce((sum, row) => sum + row.count, 0),
    violations,
  };
}

/** A base URL as shown: never a user or password it may carry. */
export function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/+$/, '');
  } catch {
    return '[invalid URL]';
  }
}
