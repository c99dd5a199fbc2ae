import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { log } from './harness.ts';

/**
 * `BENCH_ONLY=e2e npm run bench`: the project's own Playwright suite (e2e/playwright.config.ts) end to end, its wall
 * time at 1 and at 2 workers (BENCH_E2E_WORKERS, e.g. `1,2,4`). Several minutes per run, so only on request. The
 * console is built once first; each run starts its own stack (the suite's global setup).
 */
export interface E2eRun {
  workers: number;
  wall_s: number;
  passed: number;
  failed: number;
  flaky: number;
  skipped: number;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, ...env } });
    child.on('error', reject);
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

export async function measureE2e(): Promise<E2eRun[]> {
  const counts = (process.env.BENCH_E2E_WORKERS ?? '1,2').split(',').map(Number);
  log('e2e: building the console…');
  if ((await run('npm', ['run', '-s', 'build:console'])) !== 0) throw new Error('npm run build:console failed');
  const runs: E2eRun[] = [];
  for (const workers of counts) {
    const dir = mkdtempSync(path.join(tmpdir(), 'gw-bench-e2e-'));
    const report = path.join(dir, 'report.json');
    try {
      log(`e2e: the suite on ${workers} worker(s)…`);
      const started = performance.now();
      await run(
        'npx',
        [
          'playwright',
          'test',
          '--config',
          'e2e/playwright.config.ts',
          '--workers',
          String(workers),
          '--reporter',
          'json',
        ],
        { PLAYWRIGHT_JSON_OUTPUT_NAME: report, CI: '' },
      );
      const wall = (performance.now() - started) / 1000;
      const { stats } = JSON.parse(readFileSync(report, 'utf8')) as {
        stats: { expected: number; unexpected: number; flaky: number; skipped: number };
      };
      runs.push({
        workers,
        wall_s: Math.round(wall * 10) / 10,
        passed: stats.expected,
        failed: stats.unexpected,
        flaky: stats.flaky,
        skipped: stats.skipped,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return runs;
}

export function e2eTable(runs: E2eRun[]): string {
  const one = runs.find((r) => r.workers === 1);
  const lines = ['e2e suite (npx playwright test --config e2e/playwright.config.ts --workers N), wall time:'];
  for (const r of runs) {
    const speedup = one && r.workers !== 1 ? `, ${(one.wall_s / r.wall_s).toFixed(2)}× the 1-worker run` : '';
    lines.push(
      `  ${r.workers} worker(s): ${r.wall_s.toFixed(1)} s — ${r.passed} passed, ${r.failed} failed, ${r.flaky} flaky, ${r.skipped} skipped${speedup}`,
    );
  }
  return lines.join('\n');
}

/** The scenario as `npm run bench` runs it: the table, or `{e2e: [...]}` with `--json`. */
export async function reportE2e(json: boolean): Promise<void> {
  const runs = await measureE2e();
  console.log(json ? JSON.stringify({ e2e: runs }, null, 2) : e2eTable(runs));
}
