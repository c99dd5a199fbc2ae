import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';

/**
 * Issue 29: `npm run cli -- tenants list` in a folder without ./data silently created an empty ./data, printed
 * "(none)" and exited 0. Every command acts on an appliance `npm start` made: on a DATA_DIR without one it says so,
 * naming DATA_DIR and `npm start`, exits 1, and creates nothing.
 */
vi.setConfig({ testTimeout: 90_000 });
const ROOT = path.resolve(import.meta.dirname, '../../..');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');
let work = '';
beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'gw-cli-none-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function cli(cwd: string, env: NodeJS.ProcessEnv, ...args: string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      TSX,
      [path.join(ROOT, 'appliance', 'cli', 'main.ts'), ...args],
      { cwd, env: { ...env, BACKEND_URL: 'http://127.0.0.1:9' } },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const withoutDataDir = () => {
  const env = { ...process.env };
  delete env.DATA_DIR;
  delete env.DATABASE_URL;
  return env;
};

test('in a folder without ./data: `tenants list` refuses, naming DATA_DIR and `npm start`, and creates no ./data', async () => {
  const folder = path.join(work, 'elsewhere');
  mkdirSync(folder);
  const run = await cli(folder, withoutDataDir(), 'tenants', 'list');
  expect(run.code).toBe(1);
  expect(run.stdout).toBe('');
  expect(run.stderr).toBe(
    `error: DATA_DIR=${path.join(folder, 'data')} holds no appliance (the folder does not exist): set DATA_DIR to the appliance's folder, or start one there first with \`npm start\`\n`,
  );
  expect(existsSync(path.join(folder, 'data'))).toBe(false);
});

test('an empty DATA_DIR: the clinic, key, token, operator, clock and copy commands all refuse and leave it empty', async () => {
  const dataDir = path.join(work, 'empty');
  mkdirSync(dataDir);
  const env = { ...withoutDataDir(), DATA_DIR: dataDir };
  for (const args of [
    ['tenants', 'create', 'clinica-x'],
    ['keys', 'list'],
    ['tokens', 'list'],
    ['operators', 'list'],
    ['clock', 'advance', '1h'],
    ['proxy', 'report'],
    ['db', 'copy-to-postgres', '--url', 'postgres://u:p@127.0.0.1:9/db'],
  ]) {
    const run = await cli(ROOT, env, ...args);
    expect(run.code, args.join(' ')).toBe(1);
    expect(run.stderr, args.join(' ')).toMatch(
      new RegExp(`^error: DATA_DIR=${dataDir} holds no appliance \\(no gateway\\.db in it\\):.*\`npm start\``),
    );
    expect(readdirSync(dataDir), args.join(' ')).toEqual([]);
  }
  // What needs no appliance still answers.
  const version = await cli(ROOT, env, '--version');
  expect(version.code).toBe(0);
  expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
});
