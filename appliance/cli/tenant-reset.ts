import { createInterface } from 'node:readline/promises';
import type { GatewayConfig } from '../../server/config.ts';
import { ApiError } from '../../server/errors.ts';
import { tenantResetRefusal, type TenantResetResult } from '../../server/tenants/tenant-reset.ts';

export interface ResetCliOptions {
  /** Gone (issue 19): a reset never deletes journal entries; kept only to say so. */
  audit?: boolean;
  files?: boolean;
  yes?: boolean;
  json?: boolean;
}

/** The journal is not the reset's to delete: `--audit` is refused with the reason rather than "unknown option". */
export const AUDIT_FLAG_GONE =
  '--audit is gone: a reset never deletes journal entries (they stay for the 30-day retention) and writes one saying what it reset';

/** Production refuses a reset unless ALLOW_TENANT_RESET=true, as the console API does (the same rule). */
export function resetRefusalFor(config: Pick<GatewayConfig, 'appEnv' | 'allowTenantReset'>): string | null {
  return tenantResetRefusal({ development: config.appEnv === 'development', optIn: config.allowTenantReset });
}

/** Asks to type the slug back; without a terminal (scripts, CI) only `--yes` goes on. */
export async function confirmReset(slug: string, opts: ResetCliOptions): Promise<void> {
  if (opts.yes) return;
  if (!process.stdin.isTTY)
    throw new Error(`refusing to reset "${slug}" without confirmation: pass --yes (no terminal to ask on)`);
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    process.stderr.write(
      `This puts clinic "${slug}" back to its first-start data: everything written since is lost${opts.files ? ', and so are its uploaded files' : ''}. Keys stay valid; the journal is kept.\n`,
    );
    const answer = await rl.question(`Type the slug (${slug}) to confirm: `);
    if (answer.trim() !== slug) throw new Error('not confirmed; nothing was reset');
  } finally {
    rl.close();
  }
}

/** A backend that does not answer means the appliance is not running: say so rather than the API's 503 text. */
export function explainResetFailure(error: unknown): never {
  if (error instanceof ApiError && (error.code === 'SERVICE_UNAVAILABLE' || error.code === 'SERVICE_TIMEOUT')) {
    throw new Error(
      'backend-sim did not answer: a reset runs against the running appliance (start it with `npm start`)',
    );
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
  if (r.files_removed !== null) parts.push(`  files: ${r.files_removed} object(s) removed`);
  parts.push('  journal: kept; this reset is recorded in it as tenant.reset');
  return parts.join('\n');
}
