import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

/**
 * Issue 29: `npm start` or `npm run cli` before `npm ci` printed a MODULE_NOT_FOUND stack trace. The launcher
 * (appliance/start.mjs, what both run) is run from a copy of the checkout's files it reads, with no node_modules.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
let copy = '';
beforeAll(() => {
  copy = mkdtempSync(path.join(tmpdir(), 'gw-no-deps-'));
  mkdirSync(path.join(copy, 'appliance'));
  for (const file of [
    'package.json',
    'appliance/start.mjs',
    'appliance/node-engine.mjs',
    'appliance/start-trace.mjs',
    'appliance/stack-trace-sources.mjs',
  ])
    cpSync(path.join(ROOT, file), path.join(copy, file));
});
afterAll(() => rmSync(copy, { recursive: true, force: true }));

it('npm start, npm run cli and npm run cluster without node_modules: one line saying to run `npm ci`, no stack, exit 2', () => {
  for (const entry of [[], ['--entry=cli', 'tenants', 'list'], ['--entry=cluster']]) {
    const run = spawnSync(process.execPath, [path.join(copy, 'appliance', 'start.mjs'), ...entry], {
      cwd: copy,
      env: { ...process.env, START_CACHE_DIR: '' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    const what = entry.join(' ') || 'npm start';
    expect(run.stdout, what).toBe('');
    expect(run.stderr.trimEnd().split('\n'), what).toHaveLength(1);
    expect(run.stderr, what).toMatch(
      /the dependencies are not installed \(no node_modules\): run `npm ci` in .+ first\.\n$/,
    );
    expect(run.stderr, what).not.toMatch(/MODULE_NOT_FOUND|\n\s+at /);
    expect(run.status, what).toBe(2);
  }
});

it('a dependency missing from node_modules (package.json changed, not installed again) is named', () => {
  mkdirSync(path.join(copy, 'node_modules'));
  const run = spawnSync(process.execPath, [path.join(copy, 'appliance', 'start.mjs'), '--entry=cli', '--version'], {
    cwd: copy,
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(run.stderr).toMatch(/^CLI failed: the dependencies are not installed \(no node_modules\/\S+\): run `npm ci`/);
  expect(run.status).toBe(2);
});
