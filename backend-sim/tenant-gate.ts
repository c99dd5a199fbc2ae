import { BackendError } from './errors.ts';

/** How long a clinic's request waits for a restore to finish before it is answered 503 (TENANT_BUSY). */
export const GATE_WAIT_MS = 10_000;
/** How long a restore waits for the clinic's requests under way to finish before it gives up (503). */
export const GATE_DRAIN_MS = 30_000;

interface Clinic {
  /** Requests admitted and not answered yet. */
  active: number;
  /** While an exclusive operation runs (or waits for the requests under way): resolved when it is over. */
  closed: Promise<void> | null;
  drained: (() => void) | null;
  /** The tail of the clinic's administrative operations (snapshots, restores, resets), one at a time. */
  ops: Promise<unknown>;
}

const busy = (message: string) => new BackendError('TENANT_BUSY', message);

/** Resolves true when `p` settles within `ms`, false otherwise. */
function within(p: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    p.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * A per-clinic gate between its requests and the operations that swap its whole state (a restore, an import,
 * a reset with files): while one runs, the clinic's new requests wait (at most GATE_WAIT_MS, then 503), and it
 * starts only once the requests under way are answered. So no request sees a database from one state and
 * objects from another, and no upload lands between a restore's listing of the clinic's objects and its
 * removal of those the restored state does not hold. The database alone would not need it (one connection,
 * one transaction); the files do.
 */
export class TenantGate {
  private readonly clinics = new Map<string, Clinic>();

  private clinic(slug: string): Clinic {
    let c = this.clinics.get(slug);
    if (!c) {
      c = { active: 0, closed: null, drained: null, ops: Promise.resolve() };
      this.clinics.set(slug, c);
    }
    return c;
  }

  /** Admits a request: undefined when at once (the hot path allocates nothing), else a promise that admits or refuses. */
  enter(slug: string): Promise<void> | undefined {
    const c = this.clinic(slug);
    if (!c.closed) {
      c.active++;
      return undefined;
    }
    return this.waitThenEnter(c);
  }

  private async waitThenEnter(c: Clinic): Promise<void> {
    const deadline = Date.now() + GATE_WAIT_MS;
    while (c.closed) {
      const left = deadline - Date.now();
      if (left <= 0 || !(await within(c.closed, left)))
        throw busy('A clinica esta sendo restaurada; a requisicao esperou e nao pode seguir.');
    }
    c.active++;
  }

  leave(slug: string): void {
    const c = this.clinics.get(slug);
    if (!c || c.active === 0) return;
    c.active--;
    if (c.active === 0) c.drained?.();
  }

  /** Runs the clinic's administrative operations one at a time, in order of arrival. */
  serial<T>(slug: string, work: () => Promise<T>): Promise<T> {
    const c = this.clinic(slug);
    const run = c.ops.then(work, work);
    c.ops = run.catch(() => undefined);
    return run;
  }

  /** Runs `work` with the clinic's requests held off; call it inside `serial` (one exclusive at a time). */
  async exclusive<T>(slug: string, work: () => Promise<T>): Promise<T> {
    const c = this.clinic(slug);
    let reopen = () => {};
    c.closed = new Promise<void>((resolve) => {
      reopen = resolve;
    });
    try {
      if (c.active > 0) {
        const drained = new Promise<void>((resolve) => {
          c.drained = resolve;
        });
        if (!(await within(drained, GATE_DRAIN_MS)))
          throw busy('A clinica tem requisicoes em andamento que nao terminaram; tente novamente.');
      }
      return await work();
    } finally {
      c.drained = null;
      c.closed = null;
      reopen();
    }
  }

  /** Forgets a clinic that no longer exists. */
  forget(slug: string): void {
    const c = this.clinics.get(slug);
    if (c && c.active === 0 && !c.closed) this.clinics.delete(slug);
  }
}
