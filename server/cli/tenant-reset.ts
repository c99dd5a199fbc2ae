import { createInterface } from 'node:readline/promises';
import { ApiError } from '../errors.ts';
import type { TenantResetResult } from '../tenants/tenant-reset.ts';

export interface ResetCliOptions {
  audit?: boolean;
  files?: boolean;
  yes?: boolean;
  json?: boolean;
}

/** Asks to type the slug back; without a terminal (scripts, CI) only `--yes` goes on. */
export async function confirmReset(slug: string, opts: ResetCliOptions): Promise<void> {
  if (opts.yes) return;
  if (!process.stdin.isTTY) throw new Error(`refusing to reset "${slug}" without confirmation: pass --yes (no terminal to ask on)`);
  const extra = [opts.audit && 'its audit entries', opts.files && 'its uploaded files'].filter(Boolean).join(' and ');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    process.stderr.write(`This puts clinic "${slug}" back to its first-start data: everything written since is lost${extra ? `, and so are ${extra}` : ''}. Keys stay valid.\n`);
    const answer = await rl.question(`Type the slug (${slug}) to confirm: `);
    if (answer.trim() !== slug) throw new Error('not confirmed; nothing was reset');
  } finally {
    rl.close();
  }
}

/** A backend that does not answer means the appliance is not running: say so rather than the API's 503 text. */
export function explainResetFailure(error: unknown): never {
  if (error instanceof ApiError && (error.code === 'SERVICE_UNAVAILABLE' || error.code === 'SERVICE_TIMEOUT')) {
    throw new Error('backend-sim did not answer: a reset runs against the running appliance (start it with `npm start`)');
  }
  if (error instanceof ApiError && error.code === 'AUTH_TENANT_OPEN_FAILED') {
    throw new Error('backend-sim has no database for this clinic');
  }
  if (error instanceof ApiError) throw new Error(error.message);
  throw error;
}

export function describeReset(r: TenantResetResult): string {
  const parts = [
    `tenant "${r.slug}" reset to its first-start state in ${r.duration_ms} ms (database ${r.database_ms} ms, ${r.rows_restored} rows)`,
    `  idempotency: ${r.idempotency_keys_removed} gateway key(s), ${r.idempotency_markers_removed} backend marker(s) removed`,
  ];
  if (r.audit_entries_removed !== null) parts.push(`  audit: ${r.audit_entries_removed} entr${r.audit_entries_removed === 1 ? 'y' : 'ies'} removed`);
  if (r.files_removed !== null) parts.push(`  files: ${r.files_removed} object(s) removed`);
  return parts.join('\n');
}
