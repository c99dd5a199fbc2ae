import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

/** Problems kept per database (SQLite's quick_check lists up to this many). */
const MAX_PROBLEMS = 10;

export interface DatabaseCheck {
  /** Relative to DATA_DIR, e.g. `backend/demo.db`. */
  file: string;
  /** quick_check's findings; empty when the database is intact. */
  problems: string[];
  ms: number;
}

export interface QuickCheckReport {
  checks: DatabaseCheck[];
  ms: number;
}

/** The appliance's databases under DATA_DIR: gateway.db, and with the embedded backend its tenants' and their first-start snapshots. */
export function applianceDatabases(dataDir: string, withBackend: boolean): string[] {
  const files = [path.join(dataDir, 'gateway.db')];
  if (withBackend) {
    for (const dir of [path.join(dataDir, 'backend'), path.join(dataDir, 'backend', 'pristine')]) {
      if (!existsSync(dir)) continue;
      for (const name of readdirSync(dir).sort()) if (name.endsWith('.db')) files.push(path.join(dir, name));
    }
  }
  return files.filter((file) => existsSync(file));
}

export interface RunningQuickCheck {
  /** Resolves with every database's result; rejects if the worker fails (the check could not run). */
  done: Promise<QuickCheckReport>;
  /** Stops a check still running (shutdown). */
  stop(): Promise<void>;
}

/**
 * `PRAGMA quick_check` of each database in a worker thread, each on its own read-only connection, so
 * it neither blocks the event loop nor waits for the writers (WAL readers run beside them): started
 * right after the stack listens, it does not delay the start. A flipped WAL is not its business (SQLite
 * drops the frames from the damaged one on while recovering, and the database left is consistent): the
 * idempotency consistency check finds what that loses.
 */
export function startQuickCheck(dataDir: string, files: string[]): RunningQuickCheck {
  const started = performance.now();
  const worker = new Worker(new URL('./quick-check-worker.mjs', import.meta.url), {
    workerData: { files, maxProblems: MAX_PROBLEMS },
  });
  worker.unref();
  const checks: DatabaseCheck[] = [];
  const done = new Promise<QuickCheckReport>((resolve, reject) => {
    worker.on('message', (m: { file: string; problems: string[]; ms: number }) =>
      checks.push({ ...m, file: path.relative(dataDir, m.file) }),
    );
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (checks.length === files.length) resolve({ checks, ms: Math.round(performance.now() - started) });
      else reject(new Error(code === 0 ? 'quick_check stopped' : `quick_check worker exited with ${code}`));
    });
  });
  // Whoever waits decides what a failure means; an unobserved one is not an unhandled rejection.
  done.catch(() => undefined);
  return {
    done,
    stop: async () => {
      await worker.terminate();
    },
  };
}

/** The log's lines for a finished check: one when all is well, one per damaged database otherwise. */
export function describeQuickCheck(report: QuickCheckReport): string {
  const damaged = report.checks.filter((c) => c.problems.length > 0);
  if (damaged.length === 0)
    return `integrity: ${report.checks.length} database(s) checked (PRAGMA quick_check) in ${report.ms} ms: no damage found`;
  return [
    `integrity: DAMAGE FOUND in ${damaged.length} of ${report.checks.length} database(s) (PRAGMA quick_check; /readyz reports integrity down):`,
    ...damaged.map(
      (c) => `  ${c.file}: ${c.problems[0]}${c.problems.length > 1 ? ` (and ${c.problems.length - 1} more)` : ''}`,
    ),
  ].join('\n');
}
