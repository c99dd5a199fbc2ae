import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * Issue 21 § 6: a first `npm ci` / `npm start` prints nothing that looks like an error. npm ci: every package with an
 * install script is allowed by package.json's `allowScripts` (and nothing else is). npm start: the first start builds
 * the console (appliance/build-console-if-changed.ts runs `vite build` with its output on the terminal); that build
 * must print no warning (Rollup's "annotation that Rollup cannot interpret" about zod's comments read like errors).
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const readJson = (file: string) => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8'));

const outDir = mkdtempSync(path.join(tmpdir(), 'console-build-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe('a clean first run', () => {
  it("npm ci: package.json's allowScripts names exactly the packages of package-lock.json that have an install script", () => {
    const lock = readJson('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean }> };
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([name]) => name.replace(/^.*node_modules\//, ''));
    expect(withScripts.length).toBeGreaterThan(0);
    const allowed = readJson('package.json').allowScripts as Record<string, boolean>;
    // Denied on purpose: @scarf/scarf (pulled in by Spectral, which lints the OpenAPI document) only reports
    // installs to its vendor; the appliance is offline and needs none of it.
    expect(Object.entries(allowed).filter(([, on]) => on !== true)).toEqual([['@scarf/scarf', false]]);
    expect(Object.keys(allowed).sort()).toEqual([...new Set(withScripts)].sort());
  });

  it('npm start: the console build (as the first start runs it, into a scratch folder) prints no warning nor error', async () => {
    // The environment of `npm start`: vitest's NODE_ENV=test would bundle React's development build.
    const startEnv = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => name !== 'NODE_ENV' && !name.startsWith('VITEST')),
    );
    const vite = path.join(
      path.dirname(createRequire(path.join(ROOT, 'package.json')).resolve('vite/package.json')),
      'bin',
      'vite.js',
    );
    const child = spawn(
      process.execPath,
      [vite, 'build', '--config', path.join('console', 'vite.config.ts'), '--outDir', outDir, '--emptyOutDir'],
      {
        cwd: ROOT,
        env: startEnv,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code, stderr).toBe(0);
    expect(existsSync(path.join(outDir, 'index.html'))).toBe(true);
    expect(stdout).toMatch(/✓ built in/);
    // Vite's and Rollup's warnings go to stderr; "(!)" marks the ones vite prints with the build summary.
    expect(stderr).toBe('');
    expect(stdout).not.toMatch(/\(!\)|warn|error|annotation/i);
  }, 120_000);
});
