import type { Command } from 'commander';
import { loadApplianceConfig } from '../gateway-config.ts';
import { openGatewayDatabase } from '../../server/db/gateway-database.ts';
import { ApplianceClock } from '../../server/clock.ts';
import { ApiError } from '../../server/errors.ts';
import { parseInput } from '../../server/admin/http.ts';
import { journalPruner } from '../../server/audit/journal-prune.ts';
import { JOURNAL_PRUNE_PRODUCTION_REFUSAL } from '../../server/admin/routes/journal-prune.ts';
import {
  JOURNAL_PRUNE_ACTION,
  journalPruneSchema,
  type JournalPruneResult,
} from '../../contracts/admin/journal-prune.ts';
import { journalCliAction } from './journal.ts';

interface PruneCliOptions {
  before: string;
  tenant?: string;
  dryRun?: boolean;
  json?: boolean;
}

/** The `journal` command group, whichever slice's commands registered it first (`journal received`, `journal har`). */
export function journalCommandGroup(program: Command): Command {
  return (
    program.commands.find((c) => c.name() === 'journal') ??
    program.command('journal').description("the gateway's journal of requests and console actions")
  );
}

const describe = (r: JournalPruneResult): string =>
  `${r.dry_run ? 'would remove' : 'removed'} ${r.entries} journal entr${r.entries === 1 ? 'y' : 'ies'}` +
  `${r.tenant ? ` of clinic "${r.tenant}"` : ` and ${r.unattributed_groups} unattributed group(s)`} older than ${r.before}` +
  (r.dry_run ? '' : '\n  journal: this prune is recorded in it as journal.prune (never pruned itself)');

/**
 * `journal prune --before <time> [--tenant <slug>] [--dry-run] [--json]` on DATA_DIR's gateway database (gateway.db
 * or DATABASE_URL), like the other CLI commands: a running gateway follows within a second (its budget reads the
 * totals again). Development mode only, like the console API; refused with APP_ENV=production, the refusal journaled.
 */
async function pruneCommand(opts: PruneCliOptions): Promise<void> {
  const config = loadApplianceConfig();
  const clock = new ApplianceClock({ dataDir: config.dataDir, enabled: config.appEnv === 'development' });
  const started = { startedAt: clock.now(), startedPerf: performance.now() };
  const database = await openGatewayDatabase(config);
  const command = `journal prune --before ${opts.before}${opts.tenant ? ` --tenant ${opts.tenant}` : ''}${opts.dryRun ? ' --dry-run' : ''}`;
  let result: JournalPruneResult;
  try {
    const journal = (detail: Record<string, unknown>, error?: unknown) =>
      journalCliAction(database.db, {
        action: JOURNAL_PRUNE_ACTION,
        command,
        ...started,
        subject: { tenantSlug: opts.tenant ?? null, detail },
        error,
      });
    if (config.appEnv !== 'development') {
      await journal({}, new ApiError('OPERATION_NOT_ALLOWED', JOURNAL_PRUNE_PRODUCTION_REFUSAL)).catch(() => undefined);
      throw new Error("journal prune is refused with APP_ENV=production: the journal is kept for the spec's 30 days");
    }
    let input: ReturnType<typeof journalPruneSchema.parse>;
    try {
      input = parseInput(journalPruneSchema, {
        before: opts.before,
        tenant: opts.tenant,
        dry_run: Boolean(opts.dryRun),
      });
    } catch (error) {
      throw new Error(
        `--before must be an ISO 8601 time (e.g. 2026-12-01T00:00:00Z)${error instanceof ApiError ? `: ${error.message}` : ''}`,
      );
    }
    const filter = { before: new Date(input.before).toISOString(), tenant: input.tenant ?? null };
    const pruner = journalPruner(database, null);
    const counted = input.dry_run ? await pruner.count(filter) : await pruner.prune(filter);
    result = {
      removed: counted.entries + counted.groups,
      entries: counted.entries,
      unattributed_groups: counted.groups,
      before: filter.before,
      tenant: filter.tenant,
      dry_run: input.dry_run,
    };
    await journal({ ...result });
  } finally {
    await database.close();
  }
  if (opts.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else process.stderr.write(`${describe(result)}\n`);
}

export function addJournalPruneCommand(program: Command): void {
  journalCommandGroup(program)
    .command('prune')
    .description(
      'remove journal entries older than a time, of every clinic or one (development mode only; refused with APP_ENV=production). ' +
        'The same action as the console\'s "Prune journal" and POST /admin/api/journal/prune; journaled as journal.prune',
    )
    .requiredOption('--before <time>', 'ISO 8601 time (appliance time): entries strictly older are removed')
    .option('--tenant <slug>', "only this clinic's entries (a dropped clinic's too)")
    .option('--dry-run', 'count what would be removed, remove nothing')
    .option('--json', 'machine-readable output')
    .action(pruneCommand);
}
