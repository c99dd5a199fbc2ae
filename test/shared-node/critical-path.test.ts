import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const TSX = path.resolve('node_modules/.bin/tsx');
const SCRIPT = `
import { reportCriticalPathAtExit, stageDone, stageStart, stageValue, CRITICAL_PATH_ON } from './shared-node/critical-path.ts';
reportCriticalPathAtExit('probe');
const t = stageStart();
stageDone('a', t);
stageDone('a', t);
stageValue('size', 3);
stageValue('size', 5);
if (!CRITICAL_PATH_ON && t !== 0) throw new Error('clock read while off');
`;

describe('critical path timings (C32-1)', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  function run(env: Record<string, string>): string {
    const dir = mkdtempSync(path.join(tmpdir(), 'cp-test-'));
    dirs.push(dir);
    execFileSync(TSX, ['--eval', SCRIPT], { env: { ...process.env, ...env }, cwd: process.cwd() });
    return dir;
  }

  it('writes each stage count, mean and max at exit when CRITICAL_PATH_FILE is set', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cp-test-'));
    dirs.push(dir);
    execFileSync(TSX, ['--eval', SCRIPT], {
      env: { ...process.env, CRITICAL_PATH_FILE: path.join(dir, 'path') },
      cwd: process.cwd(),
    });
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^path\.probe\.\d+\.json$/);
    const stages = JSON.parse(readFileSync(path.join(dir, files[0]), 'utf8'));
    expect(stages.a.count).toBe(2);
    expect(stages.size).toEqual({ count: 2, mean_us: 4, max_us: 5 });
  });

  it('records and writes nothing when unset', () => {
    const dir = run({ CRITICAL_PATH_FILE: '' });
    expect(readdirSync(dir)).toHaveLength(0);
  });
});
