import { Command, InvalidArgumentError } from 'commander';
import cliProgress from 'cli-progress';
import { TENANT_SLUG_PATTERN } from '../contracts/backend/tenants.ts';
import { seedTenant, type SeedProfile, type SeedProgress } from './seed.ts';

const count = (name: string) => (value: string) => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`${name} must be a non-negative integer`);
  return Number(value);
};

const program = new Command()
  .name('npm run seed --')
  .description('Seed one tenant database with deterministic pt-BR data (rows are replaced).')
  .requiredOption('--tenant <slug>', 'tenant slug', (v) => {
    if (!TENANT_SLUG_PATTERN.test(v))
      throw new InvalidArgumentError(
        'slug must be 1-40 lowercase letters, digits or hyphens (no leading/trailing hyphen)',
      );
    return v;
  })
  .option('--patients <n>', 'number of patients', count('--patients'), 100)
  .option('--exams <n>', 'number of exams', count('--exams'), 0)
  .option('--appointments <n>', 'number of appointments', count('--appointments'), 0)
  .option('--seed <s>', 'PRNG seed (same seed, same data)', '1')
  .option(
    '--profile <profile>',
    'rich | synthetic',
    (v) => {
      if (v !== 'rich' && v !== 'synthetic') throw new InvalidArgumentError('profile must be rich or synthetic');
      return v;
    },
    'rich',
  )
  .option('--data-dir <dir>', 'data directory', process.env.DATA_DIR ?? 'data')
  .option('--reference-date <iso>', 'instant all dates derive from (default 2026-11-01T12:00:00Z)')
  .showHelpAfterError();

program.parse();
const o = program.opts<{
  tenant: string;
  patients: number;
  exams: number;
  appointments: number;
  seed: string;
  profile: SeedProfile;
  dataDir: string;
  referenceDate?: string;
}>();

const large = o.patients + o.exams + o.appointments >= 20_000;
const bar = large
  ? new cliProgress.SingleBar(
      { format: '{phase} [{bar}] {percentage}% | {value}/{total} | {duration_formatted}', hideCursor: true },
      cliProgress.Presets.shades_classic,
    )
  : null;
let phase: SeedProgress['phase'] | null = null;
const started = process.hrtime.bigint();

try {
  const result = await seedTenant({
    dataDir: o.dataDir,
    slug: o.tenant,
    seed: o.seed,
    patients: o.patients,
    exams: o.exams,
    appointments: o.appointments,
    profile: o.profile,
    referenceDate: o.referenceDate,
    onProgress: (p) => {
      if (!bar) return;
      if (p.phase !== phase) {
        if (phase) bar.stop();
        phase = p.phase;
        bar.start(p.total, p.done, { phase: p.phase.padEnd(12) });
      } else bar.update(p.done);
    },
  });
  bar?.stop();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(`seeded ${result.slug} in ${seconds.toFixed(1)} s -> ${result.file}`);
  console.log(JSON.stringify(result.counts));
} catch (err) {
  bar?.stop();
  console.error(`seed failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
