import { createInterface } from 'node:readline/promises';
import type { ApplianceClock } from '../../server/clock.ts';
import { ephemeralClinicsFrom, loadConfig } from '../../server/config.ts';
import { ApiError } from '../../server/errors.ts';
import { fromServiceError } from '../../server/admin/http.ts';
import { cloneTenant, dropTenant, ephemeralClinicsRefusal, type CloneDeps } from '../../server/tenants/clones.ts';
import {
  CLONE_TTL_DEFAULT,
  cloneTenantSchema,
  type TenantCloned,
  type TenantDropped,
} from '../../contracts/admin/clones.ts';
import type { GatewayServices } from '../stack.ts';
import { journalCliAction } from './journal.ts';

/**
 * `tenants clone <from>` and `tenants drop <slug>` (issue 30): the same service as the console API's
 * `POST /tenants/:slug/clone` and `DELETE /tenants/:slug` (server/tenants/clones.ts), the same refusals in
 * production (ALLOW_EPHEMERAL_CLINICS) and the same journal entries (`tenant.clone`, `tenant.drop`, via "cli").
 */

export interface CloneCliOptions {
  snapshot?: string;
  slug?: string;
  ttl?: string;
  medico?: number;
  json?: boolean;
}

export interface DropCliOptions {
  yes?: boolean;
  json?: boolean;
}

/** A refusal the CLI prints as it is (no stack trace), like main.ts's UsageError. */
export class CloneCliError extends Error {}

/** Production refuses clones and drops unless ALLOW_EPHEMERAL_CLINICS=true, as the console API does. */
export function cloneRefusal(): string | null {
  return ephemeralClinicsRefusal({
    development: loadConfig().appEnv === 'development',
    optIn: ephemeralClinicsFrom().optIn,
  });
}

function depsOf(s: GatewayServices, clock: ApplianceClock): CloneDeps {
  // The running gateways notice the new keys themselves (SQLite's data_version, PostgreSQL's NOTIFY).
  return { db: s.gatewayDb.db, backend: s.backend, keys: s.keys, now: () => clock.now(), onChange: () => undefined };
}

/** A service or API refusal as the console API would answer it. */
function asApiError(error: unknown): ApiError | Error {
  try {
    fromServiceError(error);
  } catch (mapped) {
    return mapped as Error;
  }
  return error as Error;
}

/** The journal entry of one command on one clinic (`tenant.clone` on the template, `tenant.drop` on the clinic). */
function journalOf(
  s: GatewayServices,
  clock: ApplianceClock,
  action: 'tenant.clone' | 'tenant.drop',
  command: string,
  tenant: { id: number; slug: string } | undefined,
  base: Record<string, unknown>,
) {
  const started = { startedAt: clock.now(), startedPerf: performance.now() };
  return (detail: Record<string, unknown>, error?: unknown) =>
    journalCliAction(s.gatewayDb.db, {
      action,
      command,
      ...started,
      subject: { tenantId: tenant?.id ?? null, tenantSlug: tenant?.slug ?? null, detail: { ...base, ...detail } },
      error,
    });
}

/** A refusal in production, journaled (someone tried) before it is said. */
async function refuseInProduction(journal: ReturnType<typeof journalOf>): Promise<void> {
  const refusal = cloneRefusal();
  if (!refusal) return;
  await journal({}, new ApiError('OPERATION_NOT_ALLOWED', refusal)).catch(() => undefined);
  throw new CloneCliError(refusal);
}

/** Runs the service; its refusal journaled and said as the console API would say it. */
async function journaled<T>(
  journal: ReturnType<typeof journalOf>,
  work: () => Promise<T>,
  said: (r: T) => Record<string, unknown>,
): Promise<T> {
  try {
    const result = await work();
    await journal(said(result));
    return result;
  } catch (error) {
    const mapped = asApiError(error);
    await journal({}, mapped).catch(() => undefined);
    throw new CloneCliError(mapped.message);
  }
}

export async function cloneCommand(
  s: GatewayServices,
  clock: ApplianceClock,
  template: string,
  opts: CloneCliOptions,
): Promise<TenantCloned> {
  const command = [
    `tenants clone ${template}`,
    opts.snapshot ? `--snapshot ${opts.snapshot}` : '',
    opts.slug ? `--slug ${opts.slug}` : '',
    `--ttl ${opts.ttl ?? CLONE_TTL_DEFAULT}`,
    opts.medico ? `--medico ${opts.medico}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const journal = journalOf(s, clock, 'tenant.clone', command, await s.tenants.get(template), { template });
  await refuseInProduction(journal);
  const parsed = cloneTenantSchema.safeParse({
    snapshot: opts.snapshot,
    slug: opts.slug,
    ttl: opts.ttl,
    medico_id: opts.medico,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CloneCliError(`--${issue.path[0] === 'medico_id' ? 'medico' : String(issue.path[0])}: ${issue.message}`);
  }
  const input = parsed.data;
  return journaled(
    journal,
    () =>
      cloneTenant(depsOf(s, clock), {
        template,
        snapshot: input.snapshot,
        slug: input.slug,
        ttl: input.ttl,
        medicoId: input.medico_id,
        max: ephemeralClinicsFrom().max,
      }),
    // Never the key's secret.
    ({ api_key: _key, api_secret: _secret, ...said }) => said,
  );
}

/** A permanent clinic asks to type its slug back (or `--yes`); a clone goes at once. */
async function confirmDrop(slug: string, opts: DropCliOptions): Promise<void> {
  if (opts.yes) return;
  if (!process.stdin.isTTY)
    throw new CloneCliError(`refusing to drop permanent clinic "${slug}" without confirmation: pass --yes`);
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    process.stderr.write(
      `This deletes clinic "${slug}" for good: its database, stored files, keys and idempotency entries. The journal keeps its entries.\n`,
    );
    if ((await rl.question(`Type the slug (${slug}) to confirm: `)).trim() !== slug)
      throw new CloneCliError('not confirmed; nothing was dropped');
  } finally {
    rl.close();
  }
}

export async function dropCommand(
  s: GatewayServices,
  clock: ApplianceClock,
  slug: string,
  opts: DropCliOptions,
): Promise<TenantDropped> {
  const tenant = await s.tenants.get(slug);
  const journal = journalOf(s, clock, 'tenant.drop', `tenants drop ${slug}${opts.yes ? ' --yes' : ''}`, tenant, {
    slug,
  });
  await refuseInProduction(journal);
  if (!tenant) throw new CloneCliError(`no such clinic: ${slug} (see \`tenants list\`)`);
  if (tenant.expires_at === null) await confirmDrop(slug, opts);
  return journaled(
    journal,
    async () => {
      const { template: _template, ...result } = await dropTenant(depsOf(s, clock), slug);
      return result;
    },
    (result) => result,
  );
}

export function describeClone(r: TenantCloned): string {
  return [
    `slug:       ${r.slug}`,
    `template:   ${r.template}${r.snapshot ? `@${r.snapshot}` : ''}`,
    `chave_id:   ${r.chave_id}`,
    `api_key:    ${r.api_key}`,
    `api_secret: ${r.api_secret}`,
    `expires_at: ${r.expires_at}`,
  ].join('\n');
}

export function describeDrop(r: TenantDropped): string {
  return `clinic "${r.slug}" dropped: ${r.keys_removed} key(s), ${r.idempotency_keys_removed} idempotency entr(ies), ${r.files_removed} stored file(s) removed; the journal keeps its entries`;
}
