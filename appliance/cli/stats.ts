import type { Command } from 'commander';
import { journalCommandGroup } from './journal-prune.ts';
import type { JournalCliContext } from './journal.ts';
import { statsQuerySchema, type AlertView, type StatsAnswer } from '../../contracts/admin/stats.ts';
import { trafficStats } from '../../server/audit/journal-stats.ts';
import { currentAlerts } from '../../server/alerts/alerts.ts';

interface StatsOptions {
  key?: string;
  window?: string;
  json?: boolean;
}

const ms = (v: number | null) => (v === null ? '-' : `${v} ms`);

/** The window in lines: totals, refusals by code, then the buckets that had calls. */
function statsText(a: StatsAnswer): string {
  const lines = [
    `${a.tenant_slug}${a.chave_id === null ? '' : ` key #${a.chave_id}`}, last ${a.window} (${a.from} to ${a.to}, buckets of ${a.bucket_seconds / 60} min)`,
    `calls ${a.totals.calls}, refusals ${a.totals.refusals}, p50 ${ms(a.totals.p50_ms)}, p95 ${ms(a.totals.p95_ms)}`,
  ];
  if (a.refusals.length > 0)
    lines.push('refusals by code:', ...a.refusals.map((r) => `  ${(r.code || '(no code)').padEnd(28)} ${r.count}`));
  const busy = a.series.filter((p) => p.s2xx + p.s3xx + p.s4xx + p.s5xx > 0);
  if (busy.length > 0)
    lines.push(
      'time                      2xx   3xx   4xx   5xx   p50      p95',
      ...busy.map(
        (p) =>
          `${p.t}  ${[p.s2xx, p.s3xx, p.s4xx, p.s5xx].map((n) => String(n).padStart(4)).join('  ')}   ${ms(p.p50_ms).padEnd(8)} ${ms(p.p95_ms)}`,
      ),
    );
  else lines.push('no calls in the window');
  return lines.join('\n');
}

const alertLine = (a: AlertView) =>
  a.kind === 'key_expiring'
    ? `key_expiring  ${a.tenant_slug}  #${a.chave_id} ${a.label || '(no label)'}  expires ${a.expires_at}`
    : `key_failing   ${a.tenant_slug}  #${a.chave_id} ${a.label || '(no label)'}  ${a.refusals} of ${a.calls} calls refused (${Math.round((a.ratio ?? 0) * 100)} %)`;

/**
 * `journal stats <slug> [--key <id>] [--window 1h|24h] [--json]` and `alerts [--json]` (issue 31 § 3, § 5): the
 * console API's `/tenants/:slug/stats` and `/alerts` on DATA_DIR's gateway database, same queries, same answers.
 */
export function addStatsCommands(program: Command, ctx: JournalCliContext): void {
  journalCommandGroup(program)
    .command('stats')
    .description('traffic of a clinic or one of its keys: calls by status class, refusals by code, p50/p95 latency')
    .argument('<slug>', 'the clinic')
    .option('--key <id>', 'only this key (chave_id)')
    .option('--window <window>', '1h (1-minute buckets) or 24h (15-minute buckets)', '1h')
    .option('--json', "the console API's answer: {window, bucket_seconds, from, to, series, refusals, totals}")
    .action(async (slug: string, opts: StatsOptions) => {
      const parsed = statsQuerySchema.safeParse({ window: opts.window, chave_id: opts.key });
      if (!parsed.success) {
        const flag = (field: string) => (field === 'chave_id' ? '--key' : `--${field}`);
        throw ctx.usage(parsed.error.issues.map((i) => `${flag(String(i.path[0] ?? ''))}: ${i.message}`).join('; '));
      }
      const answer = await ctx.withServices(async (s) => {
        const tenant = await s.tenants.get(slug);
        if (!tenant) {
          const slugs = (await s.tenants.list()).map((t) => t.slug);
          throw ctx.usage(
            `tenant "${slug}" does not exist; clinics: ${slugs.join(', ') || '(none)'} (see \`tenants list\`)`,
          );
        }
        const chaveId = parsed.data.chave_id ?? null;
        if (chaveId !== null) {
          const key = await s.gatewayDb.db
            .selectFrom('api_keys')
            .select('id')
            .where('id', '=', chaveId)
            .where('tenant_id', '=', tenant.id)
            .executeTakeFirst();
          if (!key) throw ctx.usage(`--key: key #${chaveId} is not a key of clinic "${slug}" (see \`keys list\`)`);
        }
        return trafficStats(
          s.gatewayDb.db,
          { tenantId: tenant.id, tenantSlug: tenant.slug, chaveId },
          parsed.data.window,
          ctx.now(),
        );
      });
      ctx.print(opts.json ? answer : statsText(answer));
    });
  program
    .command('alerts')
    .description(
      'keys expiring within 7 days and keys refused on more than 20 % of at least 20 calls in the last 15 minutes',
    )
    .option('--json', "the console API's answer: [{kind, tenant_slug, chave_id, label, ...}]")
    .action(async (opts: { json?: boolean }) => {
      const alerts = await ctx.withServices((s) => currentAlerts(s.gatewayDb.db, ctx.now()));
      if (opts.json) return ctx.print(alerts);
      if (alerts.length === 0) return ctx.info('no alerts');
      ctx.print(alerts.map(alertLine).join('\n'));
    });
}
