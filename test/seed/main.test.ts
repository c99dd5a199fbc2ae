import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'seed-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const run = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'seed/main.ts', ...args], { encoding: 'utf8', cwd: process.cwd() });

describe('npm run seed', () => {
  it('seeds the requested sizes and exits 0', () => {
    const r = run(
      '--tenant',
      'cli-demo',
      '--patients',
      '40',
      '--exams',
      '60',
      '--appointments',
      '20',
      '--seed',
      '5',
      '--data-dir',
      dir,
    );
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('seeded cli-demo');
    const db = new SQLite(join(dir, 'backend', 'cli-demo.db'), { readonly: true });
    try {
      expect(db.prepare('SELECT COUNT(*) AS n FROM exames').get()).toEqual({ n: 60 });
      expect(db.prepare('SELECT COUNT(*) AS n FROM pacientes').get()).toEqual({ n: 40 });
    } finally {
      db.close();
    }
  });

  it('refuses bad arguments with a clear message and a non-zero exit', () => {
    const bad = run('--tenant', 'x', '--patients', 'many', '--data-dir', dir);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('--patients must be a non-negative integer');
    const noTenant = run('--patients', '3', '--data-dir', dir);
    expect(noTenant.status).not.toBe(0);
    expect(noTenant.stderr).toContain("required option '--tenant <slug>'");
    const slug = run('--tenant', 'Bad Slug', '--data-dir', dir);
    expect(slug.status).not.toBe(0);
    expect(slug.stderr).toContain('slug must be 1-40 lowercase letters, digits or hyphens');
    const impossible = run('--tenant', 'x', '--patients', '0', '--exams', '3', '--data-dir', dir);
    expect(impossible.status).toBe(1);
    expect(impossible.stderr).toContain('seed failed: exams and appointments need at least one patient');
  });
});
