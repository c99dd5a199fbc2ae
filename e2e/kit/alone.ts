import { linkSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A readers-writer lock between the workers of one Playwright run, in a folder the global setup makes
 * (`E2E_LOCK_DIR`). Every test holds it shared; a test that changes what the whole appliance does (its clock,
 * faults on every clinic, the operators or tokens lists another test compares) holds it alone: it waits for the
 * other workers' running tests to end, and they wait for it before starting their next one.
 *
 * Files, not a server: each holder is a file named after its process id (one test at a time per worker), the
 * exclusive holder a hard link `alone` (created atomically: `link` fails when it exists). A holder whose process
 * is gone (a crashed worker) is ignored and removed.
 */
export class ApplianceLock {
  private readonly shared: string;
  private readonly alone: string;

  constructor(
    readonly dir: string,
    private readonly pid = process.pid,
  ) {
    this.shared = path.join(dir, 'shared');
    this.alone = path.join(dir, 'alone');
    mkdirSync(this.shared, { recursive: true });
  }

  /** Waits until no test holds the lock alone, then holds it shared. */
  async acquireShared(): Promise<void> {
    const mine = path.join(this.shared, String(this.pid));
    for (;;) {
      if (!this.aloneHeldByOther()) {
        writeFileSync(mine, '');
        // Re-checked after the file exists: a test taking the lock alone from now on sees this holder and waits.
        if (!this.aloneHeldByOther()) return;
        rmSync(mine, { force: true });
      }
      await sleep(50);
    }
  }

  /** Takes the lock alone (others starting a test wait), then waits until no other worker's test holds it. */
  async acquireAlone(): Promise<void> {
    const claim = path.join(this.dir, `claim-${this.pid}`);
    writeFileSync(claim, String(this.pid));
    try {
      for (;;) {
        try {
          linkSync(claim, this.alone);
          break;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
          const owner = this.owner();
          if (owner !== null && !alive(owner)) rmSync(this.alone, { force: true });
          else await sleep(50);
        }
      }
    } finally {
      rmSync(claim, { force: true });
    }
    rmSync(path.join(this.shared, String(this.pid)), { force: true });
    while (this.otherHolders().length > 0) await sleep(50);
  }

  release(): void {
    rmSync(path.join(this.shared, String(this.pid)), { force: true });
    if (this.owner() === this.pid) rmSync(this.alone, { force: true });
  }

  private owner(): number | null {
    try {
      return Number(readFileSync(this.alone, 'utf8')) || null;
    } catch {
      return null;
    }
  }

  private aloneHeldByOther(): boolean {
    const owner = this.owner();
    return owner !== null && owner !== this.pid && alive(owner);
  }

  private otherHolders(): number[] {
    const holders: number[] = [];
    for (const name of readdirSync(this.shared)) {
      const pid = Number(name);
      if (pid === this.pid) continue;
      if (alive(pid)) holders.push(pid);
      else rmSync(path.join(this.shared, name), { force: true });
    }
    return holders;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
