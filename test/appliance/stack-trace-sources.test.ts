import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownSourcesMap } from '../../appliance/own-sources-map.mjs';

/**
 * Issue 32 § 6 (decision T32-1): the launcher's bundles map the appliance's own sources only, and their stack
 * traces name the TypeScript sources through a map read when the first stack is formatted (not Node's source-map
 * support, which scanned the whole bundle at every start).
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
let work = '';
beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'gw-stack-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('ownSourcesMap', () => {
  it("keeps every position of the appliance's sources as esbuild mapped it and leaves the packages' unmapped", async () => {
    // An appliance source that uses a package: both are in the bundle.
    const result = await build({
      absWorkingDir: ROOT,
      stdin: {
        contents:
          "import { z } from 'zod';\nimport { ApiError } from './server/errors.ts';\nexport const both = [z.string(), ApiError];\n",
        resolveDir: ROOT,
        sourcefile: 'entry.ts',
        loader: 'ts',
      },
      outfile: path.join(work, 'out.mjs'),
      write: false,
      bundle: true,
      platform: 'node',
      format: 'esm',
      sourcemap: 'external',
      sourcesContent: false,
      logLevel: 'silent',
    });
    const text = result.outputFiles.find((o) => o.path.endsWith('.map'))!.text;
    const code = result.outputFiles.find((o) => o.path.endsWith('.mjs'))!.text.split('\n');
    const full = new SourceMap(JSON.parse(text));
    const filtered = JSON.parse(ownSourcesMap(text));
    expect(filtered.sources.some((s: string) => s.includes('node_modules'))).toBe(false);
    expect(filtered.sources.some((s: string) => s.endsWith('server/errors.ts'))).toBe(true);
    const own = new SourceMap(filtered);
    let ours = 0;
    let packages = 0;
    for (let line = 0; line < code.length; line++) {
      for (let column = 0; column < code[line].length; column += 7) {
        const before: { originalSource?: string } = full.findEntry(line, column);
        const after: { originalSource?: string } = own.findEntry(line, column);
        if (before.originalSource && !before.originalSource.includes('node_modules')) {
          ours++;
          expect(after).toEqual(before);
        } else if (before.originalSource) {
          packages++;
          expect(after.originalSource).toBeUndefined();
        }
      }
    }
    expect(ours).toBeGreaterThan(100);
    expect(packages).toBeGreaterThan(100);
  });
});

describe('stack traces of a bundle the launcher runs', () => {
  it('name the TypeScript file, line and column of each frame in it', () => {
    const entry = path.join(work, 'thrower.ts');
    writeFileSync(
      entry,
      [
        'function inner(): never {',
        "  throw new TypeError('thrown on purpose');",
        '}',
        'export function outer(): void {',
        '  inner();',
        '}',
        'try {',
        '  outer();',
        '} catch (error) {',
        '  console.log((error as Error).stack);',
        '}',
        '',
      ].join('\n'),
    );
    const run = spawnSync(process.execPath, [path.join(ROOT, 'appliance', 'start.mjs'), '--entry=cli'], {
      cwd: ROOT,
      env: { ...process.env, START_CACHE_DIR: path.join(work, 'cache'), START_ENTRY: entry },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toBe('TypeError: thrown on purpose');
    expect(lines[1]).toBe(`    at inner (${entry}:2:9)`);
    expect(lines[2]).toBe(`    at outer (${entry}:5:3)`);
    expect(lines[3]).toBe(`    at ${entry}:8:3`);
  });
});
