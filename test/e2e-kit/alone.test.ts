import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApplianceLock } from '../../e2e/kit/alone.ts';

// The kit's lock between Playwright workers (e2e/kit/alone.ts): two holders with two live process ids (this
// process and its parent stand for two workers).
const settled = async (promise: Promise<unknown>, ms = 300) =>
  Promise.race([promise.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), ms))]);

describe('ApplianceLock', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const locks = () => {
    dir = mkdtempSync(path.join(tmpdir(), 'kit-lock-'));
    return [new ApplianceLock(dir, process.pid), new ApplianceLock(dir, process.ppid)];
  };

  it('shared holders run together', async () => {
    const [a, b] = locks();
    await a.acquireShared();
    expect(await settled(b.acquireShared())).toBe(true);
  });

  it('a test alone waits for the running test, and the next test waits for it', async () => {
    const [a, b] = locks();
    await a.acquireShared();
    const alone = b.acquireAlone();
    expect(await settled(alone)).toBe(false);
    a.release();
    expect(await settled(alone)).toBe(true);
    const next = a.acquireShared();
    expect(await settled(next)).toBe(false);
    b.release();
    expect(await settled(next)).toBe(true);
  });

  it('two tests alone take turns', async () => {
    const [a, b] = locks();
    await a.acquireAlone();
    const second = b.acquireAlone();
    expect(await settled(second)).toBe(false);
    a.release();
    expect(await settled(second)).toBe(true);
  });

  it('a holder whose process is gone (a crashed worker) does not block', async () => {
    const [a] = locks();
    const dead = 2 ** 22 + 12_345; // above Linux's default pid_max: no such process
    writeFileSync(path.join(dir, 'shared', String(dead)), '');
    expect(await settled(a.acquireAlone())).toBe(true);
    a.release();
    writeFileSync(path.join(dir, 'alone'), String(dead));
    expect(await settled(a.acquireShared())).toBe(true);
  });
});
