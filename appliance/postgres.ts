import { execFile } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ensurePrivateDir, writePrivateFile } from '../server/secrets-files.ts';

/**
 * The cluster's own PostgreSQL (`npm run cluster` without DATABASE_URL): one database cluster under
 * DATA_DIR/postgres, initialised once and started from Debian's binaries (/usr/lib/postgresql/<ver>/bin),
 * listening on 127.0.0.1 only, no Unix socket. PostgreSQL refuses to run as root: when the appliance runs as
 * root, initdb and pg_ctl run as Debian's `postgres` user (runuser) on a directory chowned to it.
 *
 *   DATA_DIR/postgres/             0700, the server's user
 *     data/                        the cluster (PGDATA)
 *     postgres.log                 the server's log
 *   DATA_DIR/postgres.credentials  0600, the appliance's user: superuser and gateway role passwords
 */
export const POSTGRES_DIR = 'postgres';
export const POSTGRES_CREDENTIALS_FILE = 'postgres.credentials';
export const GATEWAY_DATABASE = 'clinic_gateway';
export const GATEWAY_ROLE = 'gateway';
const SUPERUSER = 'postgres';
/** The server's OS user when the appliance runs as root (Debian's package creates it). */
const SERVER_OS_USER = 'postgres';
const DEBIAN_ROOT = '/usr/lib/postgresql';
const INSTALL_HINT = 'apt-get install postgresql';

export class PostgresSetupError extends Error {}

export interface PostgresBinaries {
  /** Major version, e.g. "15". */
  version: string;
  binDir: string;
}

const TOOLS = ['initdb', 'pg_ctl', 'postgres', 'psql'] as const;

function toolsIn(binDir: string): boolean {
  return TOOLS.every((tool) => existsSync(path.join(binDir, tool)));
}

/**
 * Debian's server binaries: POSTGRES_BIN_DIR when set, else /usr/lib/postgresql/<ver>/bin, the version
 * that made the cluster when one exists (a newer major cannot open it), else the newest installed.
 */
export function findPostgresBinaries(options: { binDir?: string; wantedVersion?: string } = {}): PostgresBinaries {
  if (options.binDir) {
    if (!toolsIn(options.binDir)) {
      throw new PostgresSetupError(
        `POSTGRES_BIN_DIR=${options.binDir} does not hold ${TOOLS.join(', ')}: point it at a PostgreSQL bin directory, or unset it and \`${INSTALL_HINT}\``,
      );
    }
    const version = /\/(\d+)\/bin\/?$/.exec(options.binDir)?.[1] ?? options.wantedVersion ?? 'unknown';
    return { version, binDir: options.binDir };
  }
  const installed = (existsSync(DEBIAN_ROOT) ? readdirSync(DEBIAN_ROOT) : [])
    .filter((name) => /^\d+$/.test(name) && toolsIn(path.join(DEBIAN_ROOT, name, 'bin')))
    .sort((a, b) => Number(b) - Number(a));
  if (installed.length === 0) {
    throw new PostgresSetupError(
      `no PostgreSQL server binaries in ${DEBIAN_ROOT}/<version>/bin: \`${INSTALL_HINT}\` (Debian's package), or set DATABASE_URL to use a PostgreSQL server you run`,
    );
  }
  if (options.wantedVersion && !installed.includes(options.wantedVersion)) {
    throw new PostgresSetupError(
      `the cluster in DATA_DIR/${POSTGRES_DIR} was made by PostgreSQL ${options.wantedVersion}, but only ${installed.join(', ')} is installed: ` +
        `\`apt-get install postgresql-${options.wantedVersion}\`, or move that directory away to start a new cluster (its data stays there)`,
    );
  }
  const version = options.wantedVersion ?? installed[0];
  return { version, binDir: path.join(DEBIAN_ROOT, version, 'bin') };
}

interface Credentials {
  superuser: string;
  gateway: string;
}

/** DATA_DIR/postgres.credentials, created once with random passwords (hex: safe inside SQL literals). */
function credentialsFor(dataDir: string): Credentials {
  const file = path.join(dataDir, POSTGRES_CREDENTIALS_FILE);
  if (existsSync(file)) {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<Credentials>;
    if (typeof parsed.superuser === 'string' && typeof parsed.gateway === 'string') return parsed as Credentials;
    throw new PostgresSetupError(`${file} must hold {"superuser": "<password>", "gateway": "<password>"}`);
  }
  const created = { superuser: randomBytes(24).toString('hex'), gateway: randomBytes(24).toString('hex') };
  writePrivateFile(file, `${JSON.stringify(created, null, 2)}\n`);
  return created;
}

/** The URL the gateways use for the cluster's own PostgreSQL, password included (never written to runtime.json). */
export function localPostgresUrl(dataDir: string, port: number): string {
  const { gateway } = credentialsFor(dataDir);
  return `postgres://${GATEWAY_ROLE}:${gateway}@127.0.0.1:${port}/${GATEWAY_DATABASE}`;
}

/** A URL without its password, for logs and DATA_DIR/runtime.json. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable DATABASE_URL)';
  }
}

interface OsUser {
  uid: number;
  gid: number;
}

function osUser(name: string): OsUser | null {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`));
  if (!line) return null;
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

const isRoot = (): boolean => typeof process.getuid === 'function' && process.getuid() === 0;

interface Run {
  stdout: string;
  stderr: string;
}

function run(
  command: string,
  args: string[],
  options: { timeoutMs: number; env?: NodeJS.ProcessEnv; cwd?: string; name?: string },
): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { timeout: options.timeoutMs, env: options.env ?? process.env, cwd: options.cwd, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        if (error) {
          const reason = (error as { killed?: boolean }).killed
            ? `did not finish within ${options.timeoutMs} ms`
            : `failed (${error.code ?? error.message})`;
          reject(
            Object.assign(
              new PostgresSetupError(
                `${options.name ?? path.basename(command)} ${reason}: ${String(stderr || stdout).trim()}`,
              ),
              { stdout, stderr },
            ),
          );
        } else resolve({ stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}

function probePort(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** A free loopback port (POSTGRES_PORT=0: tests). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface LocalPostgresOptions {
  /** The appliance's DATA_DIR. */
  dataDir: string;
  /** POSTGRES_PORT; 0 picks a free loopback port. */
  port: number;
  /** POSTGRES_BIN_DIR: another directory with initdb, pg_ctl, postgres and psql. */
  binDir?: string;
  /** max_connections (each gateway keeps a pool and a LISTEN connection). */
  maxConnections?: number;
  /** initdb and start, each (ms). */
  timeoutMs?: number;
  log?: (line: string) => void;
}

export interface LocalPostgres {
  /** The gateway role's URL, password included: give it to the gateways as DATABASE_URL, never print it. */
  url: string;
  port: number;
  version: string;
  /** The postmaster's pid. */
  pid: number;
  /** Whether this start made the cluster (initdb). */
  initialised: boolean;
  /** `pg_ctl stop -m fast`: open transactions are rolled back, the server checkpoints and exits. */
  stop(): Promise<void>;
}

/**
 * Starts (initialising on first use) the PostgreSQL cluster of DATA_DIR and makes sure the gateway role and
 * database exist. Bounded: initdb, start and each SQL step have a timeout. A server of this cluster left
 * running by a run that died (a SIGKILL of the supervisor) is stopped first, then started on the port asked.
 */
export async function startLocalPostgres(options: LocalPostgresOptions): Promise<LocalPostgres> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const log = options.log ?? (() => undefined);
  const dataDir = path.resolve(options.dataDir);
  ensurePrivateDir(dataDir);
  const clusterDir = path.join(dataDir, POSTGRES_DIR);
  const pgdata = path.join(clusterDir, 'data');
  const logFile = path.join(clusterDir, 'postgres.log');
  const existingVersion = existsSync(path.join(pgdata, 'PG_VERSION'))
    ? readFileSync(path.join(pgdata, 'PG_VERSION'), 'utf8').trim()
    : undefined;
  const binaries = findPostgresBinaries({ binDir: options.binDir, wantedVersion: existingVersion });
  const bin = (tool: (typeof TOOLS)[number]) => path.join(binaries.binDir, tool);

  const root = isRoot();
  const serverUser = root ? osUser(SERVER_OS_USER) : null;
  if (root && !serverUser) {
    throw new PostgresSetupError(
      `the appliance runs as root and PostgreSQL refuses to: it runs as the \`${SERVER_OS_USER}\` user, which does not exist (\`${INSTALL_HINT}\` creates it), or run the appliance as another user`,
    );
  }
  /** initdb and pg_ctl as the server's user (runuser when root), from a directory that user can read. */
  const asServer = (tool: 'initdb' | 'pg_ctl', args: string[], ms = timeoutMs) =>
    root
      ? run('runuser', ['-u', SERVER_OS_USER, '--', bin(tool), ...args], { timeoutMs: ms, cwd: '/', name: tool })
      : run(bin(tool), args, { timeoutMs: ms, cwd: '/', name: tool });

  /** `pg_ctl stop -m fast` of this cluster, waiting for it within the timeout. */
  const stopServer = () =>
    asServer('pg_ctl', ['stop', '-D', pgdata, '-m', 'fast', '-w', '-t', String(Math.round(timeoutMs / 1000))]);

  const credentials = credentialsFor(dataDir);
  let port = options.port;
  if (port === 0) port = await freeLoopbackPort();
  else if (!(await probePort(port))) {
    throw new PostgresSetupError(
      `port ${port} is in use: set POSTGRES_PORT to another port, e.g. \`POSTGRES_PORT=${port + 1} npm run cluster\` (or set DATABASE_URL to use that server)`,
    );
  }

  const reach = root ? reachableByServerUser(dataDir) : null;
  try {
    if (root) await reach!.open();
    let initialised = false;
    if (!existingVersion) {
      // A half-made directory (initdb cut short) holds nothing to keep: initdb needs it empty.
      if (existsSync(pgdata)) rmSync(pgdata, { recursive: true, force: true });
      mkdirSync(clusterDir, { recursive: true, mode: 0o700 });
      chmodSync(clusterDir, 0o700);
      if (serverUser) chownSync(clusterDir, serverUser.uid, serverUser.gid);
      if (root) await reach!.check(clusterDir, asServer);
      const pwfile = path.join(clusterDir, '.initdb-pw');
      writeFileSync(pwfile, `${credentials.superuser}\n`, { mode: 0o600 });
      if (serverUser) chownSync(pwfile, serverUser.uid, serverUser.gid);
      log(`PostgreSQL ${binaries.version}: creating the cluster in ${pgdata}…`);
      try {
        await asServer('initdb', [
          '-D',
          pgdata,
          '-U',
          SUPERUSER,
          `--pwfile=${pwfile}`,
          '--auth=scram-sha-256',
          '-E',
          'UTF8',
          '--locale=C',
          '--no-instructions',
        ]);
      } finally {
        rmSync(pwfile, { force: true });
      }
      initialised = true;
    } else if (root) {
      await reach!.check(clusterDir, asServer);
    }

    const leftover = postmasterPid(pgdata);
    if (leftover !== null) {
      log(`PostgreSQL of this DATA_DIR is still running (pid ${leftover}, left by an earlier run): stopping it first…`);
      await stopServer().catch(() => undefined);
      await processExited(leftover, 10_000);
    }

    const settings = [
      `-c listen_addresses=127.0.0.1`,
      `-c port=${port}`,
      // No Unix socket: every client (the gateways, psql below) uses TCP with a password.
      `-c unix_socket_directories=''`,
      `-c max_connections=${options.maxConnections ?? 100}`,
    ].join(' ');
    try {
      await asServer(
        'pg_ctl',
        ['start', '-D', pgdata, '-l', logFile, '-w', '-t', String(Math.round(timeoutMs / 1000)), '-o', settings],
        timeoutMs + 5_000,
      );
    } catch (error) {
      throw new PostgresSetupError(
        `PostgreSQL did not start (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); the end of ${logFile}:\n${tail(logFile, 15)}`,
      );
    }
    const pid = postmasterPid(pgdata);
    if (pid === null)
      throw new PostgresSetupError(
        `PostgreSQL reported a start but ${pgdata}/postmaster.pid names no live process; see ${logFile}`,
      );

    const stop = async () => {
      const again = root ? reachableByServerUser(dataDir) : null;
      try {
        await again?.open();
        await stopServer();
      } finally {
        again?.close();
      }
      // pg_ctl returns once postmaster.pid is gone; the process itself exits a moment later.
      await processExited(pid, 10_000);
    };
    try {
      await ensureGatewayDatabase(bin('psql'), port, credentials, timeoutMs);
    } catch (error) {
      await stop().catch(() => undefined);
      throw error;
    }
    return { url: localPostgresUrl(dataDir, port), port, version: binaries.version, pid, initialised, stop };
  } finally {
    reach?.close();
  }
}

/**
 * DATA_DIR is 0700 and owned by the appliance's user (root here): the `postgres` user cannot even pass
 * through it. It is opened to search only (0711: no listing; every file in it stays 0600) while initdb,
 * pg_ctl start and pg_ctl stop run. A started server works from inside its data directory with relative
 * paths and has no Unix socket, so it needs nothing more once up; the gateways' start tightens DATA_DIR
 * back to 0700 anyway (ensurePrivateDir), and so does close().
 */
function reachableByServerUser(dataDir: string) {
  let previous: number | null = null;
  return {
    async open() {
      previous = statSync(dataDir).mode & 0o777;
      if ((previous & 0o011) !== 0o011) chmodSync(dataDir, previous | 0o011);
    },
    /** The parents of DATA_DIR must be searchable by the server's user too (/root is not). */
    async check(clusterDir: string, asServer: (tool: 'pg_ctl', args: string[], ms?: number) => Promise<Run>) {
      try {
        await asServer('pg_ctl', ['status', '-D', path.join(clusterDir, 'data')], 10_000);
      } catch (error) {
        const text =
          String((error as { stdout?: string }).stdout ?? '') +
          String((error as { stderr?: string }).stderr ?? '') +
          String(error);
        // Exit 3 "no server running" and 4 "no such directory" are fine; permission problems are not.
        if (/ermission denied|could not (change|access|open)/i.test(text)) {
          throw new PostgresSetupError(
            `the \`${SERVER_OS_USER}\` user cannot reach ${clusterDir} (a parent directory of DATA_DIR is closed to other users, as /root is): ` +
              `put DATA_DIR under a directory others may pass through (e.g. /var/lib/clinic-gateway), or set DATABASE_URL`,
          );
        }
      }
    },
    close() {
      if (previous !== null) chmodSync(dataDir, previous);
      previous = null;
    },
  };
}

/** The running postmaster's pid from PGDATA/postmaster.pid, or null (no file, or its process is gone). */
export function postmasterPid(pgdata: string): number | null {
  let text: string;
  try {
    text = readFileSync(path.join(pgdata, 'postmaster.pid'), 'utf8');
  } catch {
    return null;
  }
  const pid = Number(text.split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 && processRunning(pid) ? pid : null;
}

/** Whether a process exists and has not exited (a zombie waiting to be reaped counts as exited). */
export function processRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Waits (bounded) for a process to exit. */
export async function processExited(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (processRunning(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

function tail(file: string, lines: number): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** The gateway role (its password kept in step with the credentials file) and the database it owns. */
async function ensureGatewayDatabase(
  psql: string,
  port: number,
  credentials: Credentials,
  timeoutMs: number,
): Promise<void> {
  const env = { ...process.env, PGPASSWORD: credentials.superuser, PGCONNECT_TIMEOUT: '10' };
  const sql = (command: string, database = 'postgres') =>
    run(
      psql,
      [
        '-X',
        '-q',
        '-tA',
        '-v',
        'ON_ERROR_STOP=1',
        '-h',
        '127.0.0.1',
        '-p',
        String(port),
        '-U',
        SUPERUSER,
        '-d',
        database,
        '-c',
        command,
      ],
      { timeoutMs, env },
    );
  const role = await sql(`SELECT 1 FROM pg_roles WHERE rolname = '${GATEWAY_ROLE}'`);
  await sql(
    `${role.stdout.trim() === '1' ? 'ALTER' : 'CREATE'} ROLE ${GATEWAY_ROLE} LOGIN PASSWORD '${credentials.gateway}'`,
  );
  const database = await sql(`SELECT 1 FROM pg_database WHERE datname = '${GATEWAY_DATABASE}'`);
  if (database.stdout.trim() !== '1')
    await sql(`CREATE DATABASE ${GATEWAY_DATABASE} OWNER ${GATEWAY_ROLE} ENCODING 'UTF8' TEMPLATE template0`);
}

/**
 * The gateway database of a cluster running on DATA_DIR with its own PostgreSQL (runtime.json names it, its
 * password is in DATA_DIR/postgres.credentials): what the CLI opens when no DATABASE_URL is set. Null when no
 * such cluster runs.
 */
export function runningClusterDatabaseUrl(
  dataDir: string,
  database: { url: string; managed: boolean } | undefined,
): string | null {
  if (!database?.managed) return null;
  const port = Number(new URL(database.url).port);
  return Number.isInteger(port) && port > 0 ? localPostgresUrl(dataDir, port) : null;
}
