import { mkdirSync, mkdtempSync, rmSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  BUILD_HASH_FILE,
  buildConsoleIfChanged,
  consoleBuildInputs,
  consoleSourceHash,
} from '../../appliance/build-console-if-changed.ts';

/**
 * `npm start` rebuilds the console only when what its build reads changed (issue 13). A fake
 * repository and a fake build (it writes dist/index.html) stand in for vite: the decision is what
 * is tested here; the real build runs in `npm run build:console` and before the e2e.
 */
let root: string;
let builds = 0;
const build = async (r: string) => {
  builds++;
  mkdirSync(path.join(r, 'console', 'dist'), { recursive: true });
  writeFileSync(path.join(r, 'console', 'dist', 'index.html'), `<html>${builds}</html>`);
};
const run = (force = false) => buildConsoleIfChanged({ root, build, force }).then((r) => r.built);
const write = (file: string, text: string) => {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
};
const lock = (esbuild: string, unrelated: string) =>
  JSON.stringify({
    lockfileVersion: 3,
    packages: {
      '': { name: 'x' },
      'node_modules/vite': { version: '7.0.0', integrity: 'sha512-v', dependencies: { esbuild: '^0.25.0' } },
      'node_modules/esbuild': { version: esbuild, integrity: `sha512-${esbuild}` },
      'node_modules/react': { version: '19.0.0', integrity: 'sha512-r' },
      'node_modules/unrelated': { version: unrelated, integrity: `sha512-${unrelated}` },
    },
  });

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'gw-console-hash-'));
  write('console/index.html', '<div id="root"></div><script type="module" src="/src/main.tsx"></script>');
  write('console/vite.config.ts', "import { defineConfig } from 'vite';\nexport default defineConfig({});\n");
  write(
    'console/src/main.tsx',
    "import React from 'react';\nimport {\n  scopes,\n} from '../../contracts/scopes.ts';\nimport type { Only } from '../../server/types.ts';\nexport const x: unknown[] = [React, scopes];\nexport type T = Only;\n",
  );
  write('server/types.ts', 'export type Only = number;\n');
  write('contracts/scopes.ts', "export const scopes = ['a'];\n");
  write('server/unrelated.ts', 'export const y = 1;\n');
  write('tsconfig.json', '{}');
  write('package-lock.json', lock('0.25.0', '1.0.0'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

test('first run builds and records the hash; the next one, with nothing changed, does not build', async () => {
  expect(await run()).toBe(true);
  expect(readFileSync(path.join(root, 'console', 'dist', BUILD_HASH_FILE), 'utf8').trim()).toBe(
    consoleSourceHash(root),
  );
  expect(await run()).toBe(false);
  expect(builds).toBe(1);
});

test('a console source, a file outside console/ it imports, or a package of the build chain changed: it builds', async () => {
  write('console/src/main.tsx', `${readFileSync(path.join(root, 'console/src/main.tsx'), 'utf8')}// edit\n`);
  expect(await run()).toBe(true);
  write('contracts/scopes.ts', "export const scopes = ['a', 'b'];\n");
  expect(await run()).toBe(true);
  write('package-lock.json', lock('0.25.1', '1.0.0')); // esbuild: vite's dependency, not imported by the console
  expect(await run()).toBe(true);
  write('console/src/features/new.tsx', 'export const z = 1;\n');
  expect(await run()).toBe(true);
  expect(await run()).toBe(false);
});

test('what the build does not read changed (a server file, a type-only import, an unrelated package): no build', async () => {
  write('server/unrelated.ts', 'export const y = 2;\n');
  write('server/types.ts', 'export type Only = string;\n');
  write('package-lock.json', lock('0.25.1', '2.0.0'));
  expect(await run()).toBe(false);
});

test('dist deleted, --force, or a failed build (nothing recorded): it builds', async () => {
  rmSync(path.join(root, 'console', 'dist'), { recursive: true });
  expect(await run()).toBe(true);
  expect(await run(true)).toBe(true);
  write('console/src/main.tsx', 'syntax error here(\n');
  await expect(
    buildConsoleIfChanged({ root, build: async () => Promise.reject(new Error('vite failed')) }),
  ).rejects.toThrow('vite failed');
  expect(existsSync(path.join(root, 'console', 'dist', BUILD_HASH_FILE))).toBe(false);
  expect(await run()).toBe(true);
});

test('on this repository: the shared schemas and contracts the console imports, and vite, react, rollup and esbuild from the lockfile', () => {
  const { files, packages } = consoleBuildInputs();
  expect(files).toEqual(
    expect.arrayContaining([
      'console/index.html',
      'console/vite.config.ts',
      'console/src/main.tsx',
      'contracts/admin/keys.ts',
      'contracts/scopes.ts',
    ]),
  );
  // The console imports contracts/ and itself: nothing of the gateway, backend-sim or the composition root.
  expect(files.filter((file) => /^(server|backend-sim|appliance|seed)\//.test(file))).toEqual([]);
  expect(files).not.toContain('server/db/database.ts');
  expect(files).not.toContain('server/app.ts');
  for (const name of ['vite', 'react', 'react-dom', 'zod', '@vitejs/plugin-react', 'esbuild']) {
    expect(
      packages.some((line) => line.startsWith(`node_modules/${name} `)),
      name,
    ).toBe(true);
  }
  expect(packages.some((line) => /node_modules\/rollup /.test(line))).toBe(true);
  expect(packages.some((line) => line.startsWith('node_modules/fastify '))).toBe(false);
});
