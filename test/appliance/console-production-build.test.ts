import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { consoleBuildInputs, REPO_ROOT } from '../../appliance/build-console-if-changed.ts';

/**
 * Issue 29: with NODE_ENV=development in the shell, `npm start` built the console with React's development build
 * (812 kB of JavaScript, vite's "chunks larger than 500 kB" warning), and recorded it as up to date. The real
 * vite build runs here, as `npm start` runs it (appliance/build-console-if-changed.ts, run in a process of its
 * own), on a copy of what the console's build reads, so the checkout's console/dist is not touched.
 */
let root = '';
beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'gw-console-prod-'));
  for (const file of [
    ...consoleBuildInputs().files,
    'appliance/build-console-if-changed.ts',
    'package.json',
    'package-lock.json',
  ]) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    cpSync(path.join(REPO_ROOT, file), path.join(root, file));
  }
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(root, 'node_modules'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const assets = () => {
  const dir = path.join(root, 'console', 'dist', 'assets');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .map((f) => path.join(dir, f));
};

test('NODE_ENV=development in the environment: the console is still built for production, and recorded so', () => {
  const build = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join(root, 'appliance', 'build-console-if-changed.ts'), '--force'],
    { cwd: root, env: { ...process.env, NODE_ENV: 'development' }, encoding: 'utf8', timeout: 240_000 },
  );
  const out = `${build.stdout}${build.stderr}`;
  expect(build.status, out).toBe(0);
  expect(out).not.toMatch(/larger than 500 kB/);
  const files = assets();
  const bytes = files.reduce((sum, file) => sum + statSync(file).size, 0);
  // React's development build alone made 812 kB when the console was smaller; production, libraries and screens, is well under.
  expect(bytes).toBeLessThan(700 * 1024);
  // React's development build names itself in its error texts and checks; the production one has neither.
  const code = files.map((file) => readFileSync(file, 'utf8')).join('\n');
  expect(code).not.toMatch(
    /react-stack-bottom-frame|validateDOMNesting|This is a no-op, but it indicates a memory leak/,
  );
  // The hash recorded is that of this (production) build: the next start with NODE_ENV=development builds nothing.
  const again = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join(root, 'appliance', 'build-console-if-changed.ts')],
    { cwd: root, env: { ...process.env, NODE_ENV: 'development' }, encoding: 'utf8', timeout: 120_000 },
  );
  expect(again.status, again.stderr).toBe(0);
  expect(again.stderr).toMatch(/console is up to date/);
}, 300_000);
