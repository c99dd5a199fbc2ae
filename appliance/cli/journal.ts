import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import type { Command } from 'commander';
import type { z } from 'zod';
import { API_RELEASE } from '../../server/config.ts';
import { queryReceived } from '../../server/audit/journal-received.ts';
import { journalHar } from '../../server/audit/har.ts';
import {
  HAR_MAX_ENTRIES,
  harQuerySchema,
  RECEIVED_DEFAULT_LIMIT,
  RECEIVED_MAX_LIMIT,
  receivedQuerySchema,
  type ReceivedEntry,
} from '../../contracts/admin/journal.ts';
import type { GatewayServices } from '../stack.ts';
import { loadApplianceConfig } from '../gateway-config.ts';
import { readRuntimeFile } from '../runtime-file.ts';
import type { DbOrTrx } from '../../server/db/database.ts';
import { ApiError } from '../../server/errors.ts';
import {
  buildConsoleAuditEntry,
  insertConsoleAudit,
  type ConsoleActionSubject,
} from '../../server/audit/console-audit.ts';

/** Who ran the command, as far as the machine knows (the CLI has no operator session). */
function osUser(): string | null {
  try {
    return userInfo().username;
  } catch {
    return null;
  }
}

export interface CliAction {
  /** The console's action name for the same thing: `tenant.reset`, `operator_token.create`… */
  action: string;
  /** The command as typed, without secrets: stored as the entry's path. */
  command: string;
  /** Appliance time the command started at (epoch ms). */
  startedAt: number;
  startedPerf: number;
  operatorId?: number | null;
  subject?: ConsoleActionSubject;
  /** The failure, when the command failed. */
  error?: unknown;
}

/**
 * The CLI acts on DATA_DIR directly, so no request carries its actions to the journal: each of its
 * changes to clinics and operator tokens writes the entry the console writes for the same action, with
 * method `CLI`, the command as path and `via: "cli"` (and the OS user) in its detail. Outcomes are
 * journaled as the console journals them: a failure with its status and code.
 */
export async function journalCliAction(db: DbOrTrx, input: CliAction): Promise<void> {
  const error = input.error;
  const status = error === undefined ? 200 : error instanceof ApiError ? error.status : 500;
  const errorCode = error === undefined ? null : error instanceof ApiError ? error.code : 'INTERNAL_ERROR';
  const entry = buildConsoleAuditEntry({
    requestId: randomUUID(),
    action: input.action,
    operatorId: input.operatorId ?? null,
    method: 'CLI',
    path: input.command,
    status,
    errorCode,
    durationMs: performance.now() - input.startedPerf,
    clientIp: 'cli',
    subject: { ...input.subject, detail: { via: 'cli', os_user: osUser(), ...input.subject?.detail } },
    at: new Date(input.startedAt),
  });
  await insertConsoleAudit(db)(entry);
}

/** What `journal received` and `journal har` need of the CLI's main module (passed in: main imports this file). */
export interface JournalCliContext {
  withServices<T>(fn: (services: GatewayServices) => Promise<T>): Promise<T>;
  print(value: unknown): void;
  info(text: string): void;
  usage(message: string): Error;
  /** Appliance time now (epoch ms): journal entries and the HAR's export time. */
  now(): number;
}

interface FilterOptions {
  tenant: string;
  key?: string;
  method?: string;
  path?: string;
  status?: string;
  code?: string;
  since?: string;
  until?: string;
  limit?: string;
  json?: boolean;
  out?: string;
}

/** The CLI's flags as the console API's query (`--key` is `chave_id`): one schema checks both. */
function filterQuery(opts: FilterOptions): Record<string, string> {
  const q: Record<string, string | undefined> = {
    chave_id: opts.key,
    method: opts.method,
    path: opts.path,
    status: opts.status,
    code: opts.code,
    since: opts.since,
    until: opts.until,
    limit: opts.limit,
  };
  return Object.fromEntries(Object.entries(q).filter((e): e is [string, string] => e[1] !== undefined));
}

function parseFilters<S extends typeof receivedQuerySchema | typeof harQuerySchema>(
  schema: S,
  opts: FilterOptions,
  ctx: JournalCliContext,
): z.output<S> {
  const result = schema.safeParse(filterQuery(opts));
  if (result.success) return result.data as z.output<S>;
  const flag = (field: string) => (field === 'chave_id' ? '--key' : `--${field}`);
  throw ctx.usage(result.error.issues.map((i) => `${flag(String(i.path[0] ?? ''))}: ${i.message}`).join('; '));
}

async function tenantOf(s: GatewayServices, slug: string, ctx: JournalCliContext) {
  const tenant = await s.tenants.get(slug);
  if (!tenant) {
    const slugs = (await s.tenants.list()).map((t) => t.slug);
    throw ctx.usage(`tenant "${slug}" does not exist; clinics: ${slugs.join(', ') || '(none)'} (see \`tenants list\`)`);
  }
  return tenant;
}

/** A line per entry: time, key, method, path, status and code. */
const entryLine = (e: ReceivedEntry) =>
  `${e.ts}  #${e.chave_id ?? '-'}  ${e.method} ${e.path}  ${e.status}${e.error_code ? ` ${e.error_code}` : ''}  ${e.request_id}`;

/** A 400 of the journal query (an unknown `--since` request id) as the CLI's usage error. */
function asUsage(error: unknown, ctx: JournalCliContext): never {
  if (error instanceof ApiError && error.code === 'VAL_INVALID_PARAM') throw ctx.usage(error.message);
  throw error;
}

const addFilterOptions = (command: Command): Command =>
  command
    .requiredOption('--tenant <slug>', 'the clinic')
    .option('--key <id>', 'only this key (chave_id)')
    .option('--method <method>', 'GET, POST, PATCH, PUT, DELETE')
    .option('--path <path>', 'a prefix (/v1/pacientes) or a template (/v1/pacientes/:id, one segment per :param)')
    .option('--status <status>', 'a status (201) or a class (2xx, 4xx)')
    .option('--code <code>', 'an error code of the table (AUTH_INVALID_SIGNATURE)')
    .option('--since <time|request id>', 'after an ISO time (inclusive) or after a request (exclusive)')
    .option('--until <time|request id>', 'up to an ISO time or up to a request (inclusive)');

/**
 * `journal received` and `journal har` (issue 30 § 4, 5): the console API's `/tenants/:slug/journal/received` and
 * `/journal/har` on DATA_DIR's journal, same filters, same answers. Adds to the `journal` command when another
 * module made it already (the journal's other commands).
 */
export function addJournalCommands(program: Command, ctx: JournalCliContext): void {
  const journal =
    program.commands.find((c) => c.name() === 'journal') ??
    program.command('journal').description("the gateway's journal of requests and console actions");
  addFilterOptions(
    journal
      .command('received')
      .description(
        'what the gateway received for a clinic, oldest first, redacted as the journal stores it; when nothing matches, the near misses (closest by method, path and status) and why',
      ),
  )
    .option('--limit <n>', `at most this many entries (default ${RECEIVED_DEFAULT_LIMIT}, max ${RECEIVED_MAX_LIMIT})`)
    .option('--json', "the console API's answer: {entries, near_misses, truncated, window, ...}")
    .action(async (opts: FilterOptions) => {
      const q = parseFilters(receivedQuerySchema, opts, ctx);
      const { limit, ...filter } = q;
      const answer = await ctx.withServices(async (s) => {
        const tenant = await tenantOf(s, opts.tenant, ctx);
        return queryReceived(
          s.gatewayDb.db,
          { tenantId: tenant.id, tenantSlug: tenant.slug, otherClinics: 'all', unattributedFrom: 'all' },
          filter,
          limit,
        ).catch((error: unknown) => asUsage(error, ctx));
      });
      if (opts.json) return ctx.print(answer);
      if (answer.entries.length > 0) {
        ctx.print(answer.entries.map(entryLine).join('\n'));
        if (answer.truncated)
          ctx.info(
            `more entries match: run again with --since ${answer.entries[answer.entries.length - 1].request_id}`,
          );
        return;
      }
      ctx.info('no entry matches');
      if (answer.near_misses.length === 0) return;
      ctx.print(
        [
          'near misses (closest first):',
          ...answer.near_misses.map(
            (m) =>
              `${entryLine(m.entry)}\n    differs: ${m.differs.join(', ')}${m.count > 1 ? ` (${m.count} alike)` : ''}\n    ${m.reason}`,
          ),
        ].join('\n'),
      );
    });
  addFilterOptions(
    journal
      .command('har')
      .description(
        "a clinic's journal entries as a HAR 1.2 file, redacted as the journal stores them (journaled as journal.har)",
      ),
  )
    .requiredOption('--out <file>', 'where to write the HAR (written 0600)')
    .option('--limit <n>', `at most this many entries (default and max ${HAR_MAX_ENTRIES})`)
    .option('--json', 'print {out, entries, truncated}')
    .action(async (opts: FilterOptions & { out: string }) => {
      const q = parseFilters(harQuerySchema, opts, ctx);
      const { limit, ...filter } = q;
      const startedAt = ctx.now();
      const startedPerf = performance.now();
      const result = await ctx.withServices(async (s) => {
        const tenant = await tenantOf(s, opts.tenant, ctx);
        const running = readRuntimeFile(loadApplianceConfig().dataDir);
        const exported = await journalHar(s.gatewayDb.db, tenant, filter, limit, {
          origin: running?.gateway.url ?? 'http://localhost:3000',
          release: API_RELEASE,
          now: new Date(startedAt),
        }).catch((error: unknown) => asUsage(error, ctx));
        writeFileSync(opts.out, exported.text, { mode: 0o600 });
        await journalCliAction(s.gatewayDb.db, {
          action: 'journal.har',
          command: `journal har --tenant ${tenant.slug}`,
          startedAt,
          startedPerf,
          subject: {
            tenantId: tenant.id,
            tenantSlug: tenant.slug,
            detail: { slug: tenant.slug, filter, entries: exported.entries, truncated: exported.truncated },
          },
        });
        return { out: opts.out, entries: exported.entries, truncated: exported.truncated };
      });
      if (opts.json) return ctx.print(result);
      ctx.info(
        `${result.entries} entries written to ${result.out}${result.truncated ? ' (more matched: narrow the filters or use --since)' : ''}`,
      );
    });
}
