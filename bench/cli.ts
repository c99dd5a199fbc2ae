import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openGatewayDb } from '../server/db/database.ts';
import { log, TSX } from './harness.ts';

/**
 * The operator CLI's cost per command (issue 21 § 5): CPU time (user + system) of the process `npm run cli`
 * runs — `node appliance/start.mjs --entry=cli`, the launcher checking the cached bundle and then the bundle —
 * for `--version`, `tenants list` and `keys list`, median of a few runs after a warm bundle; beside it the same
 * command through npm (what a person types) and under tsx from the sources (how the CLI ran before).
 *
 * A short-lived process cannot be sampled from /proc while it runs; once waited for, its CPU (and that of its
 * own waited-for children: npm's shell and node) is added to this process's cutime/cstime, read before and after.
 */
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 5);
const TSX_RUNS = Number(process.env.BENCH_CLI_TSX_RUNS ?? 3);
/** The issue's target: under 1 s of CPU per command. */
export const CLI_CPU_TARGET_MS = 1000;

const COMMANDS: string[][] = [['--version'], ['tenants', 'list'], ['keys', 'list']];

/** CPU of this process's waited-for children so far, in ms. */
function childrenCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS; // cutime, cstime
}

function cpuOf(command: string, args: string[], env: NodeJS.ProcessEnv): number {
  const before = childrenCpuMs();
  const run = spawnSync(command, args, { env, encoding: 'utf8' });
  const took = childrenCpuMs() - before;
  if (run.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${run.status}: ${run.stderr}`);
  return took;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export interface CliRow {
  command: string;
  /** `node appliance/start.mjs --entry=cli …`: median and runs, ms of CPU. */
  bundled_ms: number;
  bundled_runs: number[];
  /** `npm run -s cli -- …`: the same plus npm. */
  npm_ms: number;
  /** `tsx appliance/cli/main.ts …`: the CLI from its sources. */
  tsx_ms: number | null;
  target_ms: number;
  met: boolean;
}

export async function measureCli(): Promise<CliRow[]> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-bench-cli-'));
  // An appliance's database (the CLI refuses a DATA_DIR without one), without starting the appliance.
  await (await openGatewayDb(dataDir)).close();
  // A port nothing listens on: no running stack is asked, nor a developer's (the commands here need none).
  const env = { ...process.env, DATA_DIR: dataDir, BACKEND_URL: 'http://127.0.0.1:9', LOG_LEVEL: 'silent' };
  const launcher = ['appliance/start.mjs', '--entry=cli'];
  try {
    // Warm: builds the bundle if it is stale, and gives the lists something to list (two clinics, four keys).
    cpuOf(process.execPath, [...launcher, '--version'], env);
    for (const slug of ['bench-a', 'bench-b']) {
      cpuOf(process.execPath, [...launcher, 'tenants', 'create', slug], env);
      for (const scopes of ['all', 'read-only'])
        cpuOf(process.execPath, [...launcher, 'keys', 'create', '--tenant', slug, '--scopes', scopes, '--json'], env);
    }
    return COMMANDS.map((args) => {
      const command = args.join(' ');
      log(`CLI: ${command}…`);
      const bundled = Array.from({ length: RUNS }, () => cpuOf(process.execPath, [...launcher, ...args], env));
      const npm = Array.from({ length: RUNS }, () => cpuOf('npm', ['run', '-s', 'cli', '--', ...args], env));
      const tsx = Array.from({ length: TSX_RUNS }, () => cpuOf(TSX, ['appliance/cli/main.ts', ...args], env));
      const bundledMs = median(bundled);
      return {
        command,
        bundled_ms: Math.round(bundledMs),
        bundled_runs: bundled.map(Math.round),
        npm_ms: Math.round(median(npm)),
        tsx_ms: tsx.length > 0 ? Math.round(median(tsx)) : null,
        target_ms: CLI_CPU_TARGET_MS,
        met: bundledMs < CLI_CPU_TARGET_MS,
      };
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function cliTable(rows: CliRow[]): string {
  return [
    `| CLI command (CPU per run, median of ${RUNS}) | bundled (node appliance/start.mjs --entry=cli) | via npm run -s cli | tsx from sources | target (the CLI process, npm not counted) | met |`,
    '|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| \`${r.command}\` | ${r.bundled_ms} ms (${r.bundled_runs.join(', ')}) | ${r.npm_ms} ms | ${r.tsx_ms === null ? '—' : `${r.tsx_ms} ms`} | < ${r.target_ms} ms | ${r.met ? 'yes' : '**no**'} |`,
    ),
  ].join('\n');
}
