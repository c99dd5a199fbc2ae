import { createReadStream, createWriteStream, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import type { GatewayServices } from '../stack.ts';
import { loadConfig } from '../../server/config.ts';
import { ApplianceClock } from '../../server/clock.ts';
import { ApiError } from '../../server/errors.ts';
import { fromServiceError } from '../../server/admin/http.ts';
import * as snapshots from '../../server/tenants/snapshots.ts';
import { SNAPSHOT_IMPORT_MAX_BYTES } from '../../contracts/admin/snapshots.ts';
import { explainResetFailure, resetRefusalFor } from './tenant-reset.ts';
import { journalCliAction } from './journal.ts';

const out = (value: unknown): void => void process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
const info = (text: string): void => void process.stderr.write(`${text}\n`);

type WithServices = <T>(fn: (services: GatewayServices) => Promise<T>) => Promise<T>;

function asApiError(error: unknown): unknown {
  try {
    fromServiceError(error);
  } catch (mapped) {
    return mapped;
  }
}

/** Asks to type the slug back before a restore; without a terminal only `--yes` goes on. */
async function confirm(slug: string, what: string, yes: boolean | undefined): Promise<void> {
  if (yes) return;
  if (!process.stdin.isTTY)
    throw new Error(`refusing to ${what} "${slug}" without confirmation: pass --yes (no terminal to ask on)`);
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    process.stderr.write(
      `This replaces the data and files of clinic "${slug}": everything written since is lost. Keys stay valid; the journal is kept.\n`,
    );
    const answer = await rl.question(`Type the slug (${slug}) to confirm: `);
    if (answer.trim() !== slug) throw new Error('not confirmed; nothing was changed');
  } finally {
    rl.close();
  }
}

/**
 * `tenants snapshot | snapshots | restore | snapshot-delete | export | import` (issue 30 § 2): the console's
 * snapshot actions against the running appliance (its backend-sim and DATA_DIR's gateway state), each
 * journaled as the console journals it (`tenant.snapshot.*`, via "cli"). Restore and import follow the
 * reset's production rule (ALLOW_TENANT_RESET).
 */
export function addSnapshotCommands(tenants: Command, withServices: WithServices): void {
  /** Runs one action journaled with its outcome (a refusal too: someone tried). */
  const act = async <T extends object>(
    action: string,
    command: string,
    slug: string,
    detail: Record<string, unknown>,
    work: (s: GatewayServices) => Promise<T>,
    refusal: string | null = null,
  ): Promise<T> =>
    withServices(async (s) => {
      const config = loadConfig();
      const clock = new ApplianceClock({ dataDir: config.dataDir, enabled: config.appEnv === 'development' });
      const started = { startedAt: clock.now(), startedPerf: performance.now() };
      const subjectOf = async () => {
        const tenant = await s.tenants.get(slug);
        return { tenantId: tenant?.id ?? null, tenantSlug: tenant?.slug ?? null };
      };
      const journal = async (extra: Record<string, unknown>, error?: unknown) =>
        journalCliAction(s.gatewayDb.db, {
          action: `tenant.snapshot.${action}`,
          command,
          ...started,
          subject: { ...(await subjectOf()), detail: { slug, ...detail, ...extra } },
          error,
        });
      if (refusal) {
        await journal({}, new ApiError('OPERATION_NOT_ALLOWED', refusal)).catch(() => undefined);
        throw new Error(refusal);
      }
      let result: T;
      try {
        result = await work(s);
      } catch (error) {
        await journal({}, asApiError(error)).catch(() => undefined);
        return explainResetFailure(asApiError(error));
      }
      await journal({ ...(result as Record<string, unknown>) });
      return result;
    });
  const services = (s: GatewayServices) => ({ db: s.gatewayDb.db, backend: s.backend, tenants: s.tenants });
  const productionRefusal = () => resetRefusalFor(loadConfig());

  tenants
    .command('snapshot')
    .description("save a clinic's state (its database and stored files) under a name")
    .argument('<slug>', 'the clinic')
    .argument('<name>', 'snapshot name: 1-64 of a-z 0-9 . _ - (starting with a letter or digit)')
    .option('--replace', 'overwrite a snapshot of that name')
    .option('--json', 'machine-readable output')
    .action(async (slug: string, name: string, opts: { replace?: boolean; json?: boolean }) => {
      const saved = await act('save', `tenants snapshot ${slug} ${name}`, slug, { name }, (s) =>
        snapshots.saveSnapshot(services(s), slug, { name, replace: opts.replace }),
      );
      if (opts.json) return out(saved);
      info(
        `snapshot "${saved.name}" of "${slug}" saved in ${saved.duration_ms} ms (${saved.rows} rows, ${saved.files} file(s), ${saved.bytes} bytes)`,
      );
    });

  tenants
    .command('snapshots')
    .description("a clinic's snapshots, newest first")
    .argument('<slug>', 'the clinic')
    .option('--json', 'machine-readable output')
    .action(async (slug: string, opts: { json?: boolean }) => {
      const list = await withServices((s) => snapshots.listSnapshots(services(s), slug).catch(fromServiceError));
      if (opts.json) return out(list);
      if (!list.length) return info('(none)');
      for (const s of list)
        process.stdout.write(`${s.name}\t${s.created_at}\t${s.rows} rows\t${s.files} file(s)\t${s.release}\n`);
    });

  tenants
    .command('restore')
    .description(
      'put a clinic back to a snapshot (database and files) and forget its idempotency keys; keys stay valid, the journal is kept. ' +
        'Refused with APP_ENV=production unless ALLOW_TENANT_RESET=true',
    )
    .argument('<slug>', 'the clinic')
    .argument('<name>', 'the snapshot')
    .option('--yes', 'do not ask for confirmation (scripts, CI)')
    .option('--json', 'machine-readable output')
    .action(async (slug: string, name: string, opts: { yes?: boolean; json?: boolean }) => {
      const refusal = productionRefusal();
      if (!refusal) await confirm(slug, 'restore', opts.yes);
      const restored = await act(
        'restore',
        `tenants restore ${slug} ${name}`,
        slug,
        { name },
        (s) => snapshots.restoreSnapshot(services(s), slug, name),
        refusal,
      );
      if (opts.json) return out(restored);
      info(
        `clinic "${slug}" restored from "${name}" in ${restored.duration_ms} ms (${restored.rows_restored} rows, ${restored.files_restored} file(s) back, ${restored.files_removed} removed; ${restored.idempotency_keys_removed} idempotency key(s) forgotten)`,
      );
    });

  tenants
    .command('snapshot-delete')
    .description('delete a snapshot (its database copy and its files); the clinic is not touched')
    .argument('<slug>', 'the clinic')
    .argument('<name>', 'the snapshot')
    .option('--json', 'machine-readable output')
    .action(async (slug: string, name: string, opts: { json?: boolean }) => {
      const deleted = await act('delete', `tenants snapshot-delete ${slug} ${name}`, slug, { name }, (s) =>
        snapshots.deleteSnapshot(services(s), slug, name),
      );
      if (opts.json) return out(deleted);
      info(`snapshot "${name}" of "${slug}" deleted`);
    });

  tenants
    .command('export')
    .description('write a snapshot as one portable archive (tar: manifest with release and checksums, database, files)')
    .argument('<slug>', 'the clinic')
    .argument('<name>', 'the snapshot')
    .requiredOption('--out <file>', 'where to write the archive')
    .option('--json', 'machine-readable output')
    .action(async (slug: string, name: string, opts: { out: string; json?: boolean }) => {
      const tmp = `${opts.out}.${process.pid}.part`;
      const written = await act(
        'export',
        `tenants export ${slug} ${name} --out ${opts.out}`,
        slug,
        { name },
        async (s) => {
          const { body } = await snapshots.exportSnapshot(services(s), slug, name);
          try {
            await pipeline(body, createWriteStream(tmp, { mode: 0o600 }));
            renameSync(tmp, opts.out);
          } finally {
            rmSync(tmp, { force: true });
          }
          return { slug, name, file: opts.out, bytes: statSync(opts.out).size };
        },
      );
      if (opts.json) return out(written);
      info(`snapshot "${name}" of "${slug}" written to ${written.file} (${written.bytes} bytes)`);
    });

  tenants
    .command('import')
    .description(
      `read an archive into a clinic: an existing one is restored from it, an unknown slug becomes a new clinic. ` +
        `Checked whole (format, checksums) before anything changes; at most ${SNAPSHOT_IMPORT_MAX_BYTES} bytes. ` +
        'Refused with APP_ENV=production unless ALLOW_TENANT_RESET=true',
    )
    .argument('<file>', 'the archive (from `tenants export` or the console)')
    .requiredOption('--slug <slug>', 'the clinic to import into (created when it does not exist)')
    .option('--name <name>', "the snapshot's name in that clinic (default: the archive's)")
    .option('--json', 'machine-readable output')
    .action(async (file: string, opts: { slug: string; name?: string; json?: boolean }) => {
      if (!existsSync(file)) throw new Error(`no such file: ${file}`);
      const imported = await act(
        'import',
        `tenants import ${file} --slug ${opts.slug}${opts.name ? ` --name ${opts.name}` : ''}`,
        opts.slug,
        { name: opts.name ?? null },
        (s) =>
          snapshots.importSnapshot(services(s), { slug: opts.slug, name: opts.name, body: createReadStream(file) }),
        productionRefusal(),
      );
      if (opts.json) return out(imported);
      info(
        `${imported.created ? 'new clinic' : 'clinic'} "${imported.slug}" ${imported.created ? 'created' : 'restored'} from ${file} (snapshot "${imported.name}", from "${imported.source_slug}" release ${imported.source_release}; ${imported.rows_restored} rows, ${imported.files_restored} file(s))`,
      );
    });
}
