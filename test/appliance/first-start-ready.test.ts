import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loopbackStackEnv } from '../helpers/child-stack.ts';

/**
 * Issue 29, two defects a newcomer hits on a first `npm start` (run through the launcher, as npm runs it):
 * - `/readyz` answered 200 for about 200 ms before DATA_DIR/demo-credentials.json existed, so a script waiting for
 *   it and then reading the credentials (the README's CI recipe) failed now and then;
 * - HOST defaulted to 0.0.0.0: the console's sign-in and the operator API were offered to the whole network.
 * Nothing sets HOST here: the default is what is tested, on the listening socket itself (/proc/net/tcp).
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
let work = '';
let child: ChildProcess | null = null;
beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'gw-first-ready-'));
});
afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

/** A port free right now on loopback (the appliance is told it with PORT, so the test can poll it from the start). */
const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** The local addresses of the IPv4 sockets listening on `port`, from /proc/net/tcp (hex, little-endian). */
function listeningAddresses(port: number): string[] {
  const lines = readFileSync('/proc/net/tcp', 'utf8').trim().split('\n').slice(1);
  return lines
    .map((line) => line.trim().split(/\s+/))
    .filter(([, local, , state]) => state === '0A' && Number.parseInt(local.split(':')[1], 16) === port)
    .map(([, local]) => {
      const hex = local.split(':')[0];
      return [6, 4, 2, 0].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).join('.');
    });
}

it('first start: the credentials file is complete when /readyz first answers 200; it listens on 127.0.0.1 by default and says so', async () => {
  const dataDir = path.join(work, 'data');
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...loopbackStackEnv(dataDir),
    PORT: String(port),
    START_CACHE_DIR: path.join(work, 'cache'),
  };
  delete env.HOST;
  child = spawn(process.execPath, [path.join(ROOT, 'appliance', 'start.mjs')], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));

  // As fast as the loop goes: the first 200 is the earliest moment a script can act on it.
  const deadline = Date.now() + 200_000;
  let credentials: string | null = null;
  while (Date.now() < deadline && child.exitCode === null) {
    const status = await request(`http://127.0.0.1:${port}/readyz`).then(
      async (r) => {
        await r.body.dump();
        return r.statusCode;
      },
      () => 0,
    );
    if (status === 200) {
      credentials = (() => {
        try {
          return readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8');
        } catch {
          return null;
        }
      })();
      break;
    }
  }
  expect(credentials, `no credentials file when /readyz answered 200\n${out}`).not.toBeNull();
  const parsed = JSON.parse(credentials!);
  expect(parsed.keys.demo.api_secret).toMatch(/^[0-9a-f]{64}$/);
  expect(parsed.gateway_url).toBe(`http://127.0.0.1:${port}`);

  expect(listeningAddresses(port)).toEqual(['127.0.0.1']);
  while (!out.includes('Ctrl-C stops everything') && child.exitCode === null)
    await new Promise((r) => setTimeout(r, 50));
  expect(out).toContain(`listens    127.0.0.1:${port} (loopback only; HOST moves it)`);

  child.kill('SIGTERM');
  expect(await exited).toBe(0);
}, 240_000);
