import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  findPostgresBinaries,
  postmasterPid,
  processRunning,
  PostgresSetupError,
  redactDatabaseUrl,
  startLocalPostgres,
  type LocalPostgres,
} from '../../appliance/postgres.ts';

// The cluster's own PostgreSQL (appliance/postgres.ts) from Debian's binaries; .ci/run installs them. Without them
// this file fails with findPostgresBinaries' message (`apt-get install postgresql`), it does not skip.
const dirs: string[] = [];
const running: LocalPostgres[] = [];
const newDataDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-pg-'));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  for (const pg of running) await pg.stop().catch(() => undefined);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const psql = (url: string, sql: string): string =>
  execFileSync(path.join(findPostgresBinaries().binDir, 'psql'), [url, '-XtAq', '-v', 'ON_ERROR_STOP=1', '-c', sql], {
    encoding: 'utf8',
    timeout: 20_000,
  }).trim();

const alive = processRunning;

describe("the cluster's own PostgreSQL under DATA_DIR", () => {
  it('initialises once, serves the gateway role on loopback, keeps its data across a stop and a second start', async () => {
    const dataDir = newDataDir();
    const first = await startLocalPostgres({ dataDir, port: 0 });
    running.push(first);
    expect(first.initialised).toBe(true);
    expect(first.url).toMatch(/^postgres:\/\/gateway:[0-9a-f]{48}@127\.0\.0\.1:\d+\/clinic_gateway$/);
    expect(redactDatabaseUrl(first.url)).not.toContain(first.url.split(':')[2].split('@')[0]);
    expect(psql(first.url, 'SELECT current_user')).toBe('gateway');
    expect(psql(first.url, "SELECT setting FROM pg_settings WHERE name = 'listen_addresses'")).toBe('127.0.0.1');
    psql(first.url, "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('still here')");
    // DATA_DIR stays private; the credentials file is the appliance's, 0600.
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(dataDir, 'postgres.credentials')).mode & 0o777).toBe(0o600);
    await first.stop();
    running.pop();
    expect(alive(first.pid)).toBe(false);
    expect(postmasterPid(path.join(dataDir, 'postgres', 'data'))).toBeNull();

    const second = await startLocalPostgres({ dataDir, port: 0 });
    running.push(second);
    expect(second.initialised).toBe(false);
    expect(psql(second.url, 'SELECT v FROM kept')).toBe('still here');
    await second.stop();
    running.pop();
    expect(alive(second.pid)).toBe(false);
  });

  it('stops a server left running by a run that died, then starts on the port asked', async () => {
    const dataDir = newDataDir();
    const orphan = await startLocalPostgres({ dataDir, port: 0 });
    // Not stopped: as after a SIGKILL of `npm run cluster` (pg_ctl's server is in its own session).
    const again = await startLocalPostgres({ dataDir, port: 0 });
    running.push(again);
    expect(alive(orphan.pid)).toBe(false);
    expect(again.pid).not.toBe(orphan.pid);
    expect(psql(again.url, 'SELECT 1')).toBe('1');
    await again.stop();
    running.pop();
  });

  it('names POSTGRES_PORT when its port is taken, and apt-get when the binaries are missing', async () => {
    const blocker: Server = createServer();
    const port = await new Promise<number>((resolve) =>
      blocker.listen({ host: '127.0.0.1', port: 0 }, () => resolve((blocker.address() as { port: number }).port)),
    );
    try {
      const error = await startLocalPostgres({ dataDir: newDataDir(), port }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PostgresSetupError);
      expect(String((error as Error).message)).toMatch(new RegExp(`port ${port} is in use: set POSTGRES_PORT`));
    } finally {
      blocker.close();
    }
    const missing = await startLocalPostgres({
      dataDir: newDataDir(),
      port: 0,
      binDir: '/nonexistent/postgresql/bin',
    }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(PostgresSetupError);
    expect((missing as Error).message).toContain('apt-get install postgresql');
  });

  it('says which package a cluster made by another major version needs', () => {
    expect(() => findPostgresBinaries({ wantedVersion: '9' })).toThrow(
      /made by PostgreSQL 9.*apt-get install postgresql-9/,
    );
  });

  it('leaves no password in its log', async () => {
    const dataDir = newDataDir();
    const pg = await startLocalPostgres({ dataDir, port: 0 });
    await pg.stop();
    const secrets = JSON.parse(readFileSync(path.join(dataDir, 'postgres.credentials'), 'utf8')) as Record<
      string,
      string
    >;
    const log = readFileSync(path.join(dataDir, 'postgres', 'postgres.log'), 'utf8');
    for (const secret of Object.values(secrets)) expect(log).not.toContain(secret);
  });
});
