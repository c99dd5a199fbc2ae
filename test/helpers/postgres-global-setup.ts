import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The superuser URL of the suite's PostgreSQL (the `postgres` project): each test stack creates its own database there. */
    testDatabaseUrl: string;
  }
}

const script = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../.ci/test-postgres');

/**
 * The `postgres` project's PostgreSQL: a throw-away cluster from Debian's binaries (.ci/test-postgres), on loopback,
 * started once for the run and removed after it. TEST_DATABASE_URL in the environment names another server instead.
 * Without PostgreSQL's binaries the project fails, saying how to install them (it is never skipped).
 */
export default function setup(project: TestProject): () => void {
  const given = process.env.TEST_DATABASE_URL;
  if (given) {
    project.provide('testDatabaseUrl', given);
    return () => undefined;
  }
  let exports: string;
  try {
    exports = execFileSync(script, ['start'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 120_000,
    });
  } catch (error) {
    const stderr = String((error as { stderr?: string }).stderr ?? '').trim();
    throw new Error(
      `the postgres project needs a PostgreSQL server (apt-get install -y postgresql): ${stderr || (error as Error).message}`,
    );
  }
  const value = (name: string) => new RegExp(`export ${name}='([^']*)'`).exec(exports)?.[1];
  const url = value('TEST_DATABASE_URL');
  const dir = value('TEST_POSTGRES_DIR');
  if (!url || !dir) throw new Error(`.ci/test-postgres start printed no URL:\n${exports}`);
  project.provide('testDatabaseUrl', url);
  return () => {
    execFileSync(script, ['stop', dir], { stdio: 'ignore', timeout: 60_000 });
  };
}
