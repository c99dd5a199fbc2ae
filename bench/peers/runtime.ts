import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { log, pinned, SERVER_CORE, type Server } from '../harness.ts';

/**
 * The peers' installs and processes for `npm run bench:peers`: each peer is installed on first use with npm into a
 * cache outside the repository and its lockfile, then started with its whole process tree pinned to the server core
 * as bench/harness.ts's startServer does for ours.
 */
export const PEERS_CACHE = path.join(
  process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache'),
  'clinic-gateway-bench',
  'peers',
);

export interface PeerPackage {
  /** What the one install line calls it. */
  label: string;
  /** The cache directory's name: `<name>@<version>`. */
  name: string;
  npmPackage: string;
  version: string;
}

export const WIREMOCK: PeerPackage = { label: 'WireMock', name: 'wiremock', npmPackage: 'wiremock', version: '3.13.2' };
export const PRISM: PeerPackage = {
  label: 'Prism',
  name: 'prism',
  npmPackage: '@stoplight/prism-cli',
  version: '5.16.0',
};

/** The package's directory inside its cache, installed there first when it is not (one line says so). */
export function ensureInstalled(peer: PeerPackage): string {
  const prefix = path.join(PEERS_CACHE, `${peer.name}@${peer.version}`);
  const packageDir = path.join(prefix, 'node_modules', ...peer.npmPackage.split('/'));
  const manifest = path.join(packageDir, 'package.json');
  const installed = () =>
    existsSync(manifest) &&
    (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version === peer.version;
  if (installed()) return packageDir;
  log(`installing ${peer.label} ${peer.version} into ${prefix} (first use)…`);
  mkdirSync(prefix, { recursive: true });
  // From the cache directory, so npm does not take this repository's package.json or lockfile for the project.
  const npm = spawnSync(
    'npm',
    [
      'install',
      '--prefix',
      prefix,
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      `${peer.npmPackage}@${peer.version}`,
    ],
    { cwd: prefix, encoding: 'utf8' },
  );
  if (npm.status !== 0 || !installed())
    throw new Error(
      `npm install ${peer.npmPackage}@${peer.version} failed: ${(npm.stderr || npm.stdout || '').trim().slice(-2000)}`,
    );
  return packageDir;
}

/** Why a command cannot run here (not on PATH), or null when it can. */
export function missingRuntime(command: string, args: string[]): string | null {
  const probe = spawnSync(command, args, { stdio: 'ignore' });
  if (probe.error)
    return `no \`${command}\` on PATH (${(probe.error as NodeJS.ErrnoException).code ?? probe.error.message})`;
  return null;
}

/** A port free on loopback now (the peers take a port number, not 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/**
 * Starts `command` pinned to the server core (its threads and children inherit it) and resolves once `readyPath`
 * answers on `url`; stdout and stderr are dropped (the peer logs as its user would see it, into /dev/null).
 */
export async function startPeer(
  what: string,
  command: string,
  args: string[],
  url: string,
  readyPath: string,
  timeoutMs = 120_000,
): Promise<Server> {
  const [cmd, argv] = pinned(SERVER_CORE, command, args);
  const child = spawn(cmd, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => {
    stderr = (stderr + d).slice(-4000);
  });
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${what} exited (${child.exitCode ?? child.signalCode}) before answering: ${stderr.trim()}`);
    const answer = await fetch(url + readyPath, { signal: AbortSignal.timeout(2_000) }).catch(() => null);
    if (answer) {
      await answer.arrayBuffer();
      return { info: { url }, child };
    }
    await sleep(200);
  }
  child.kill('SIGKILL');
  throw new Error(`${what} did not answer ${readyPath} within ${timeoutMs} ms: ${stderr.trim()}`);
}
