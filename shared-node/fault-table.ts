// Injected faults of both services (backend-sim's route faults, the gateway's presign faults): an in-memory table,
// switched on and off by tests and the console, gone on restart. What a fault does is the service's own.

/** A fault aimed at one clinic (its slug) or every clinic (`*`), counting the calls it matched. */
export interface TableFault {
  id: number;
  tenant: string;
  hits: number;
}

/** Faults numbered from 1 in the order they are added, and consulted in that order. */
export class FaultTable<F extends TableFault> {
  private readonly faults = new Map<number, F>();
  private nextId = 1;

  /** Stores the fault `make` builds with the next id, and answers it. */
  add(make: (id: number) => F): F {
    const fault = make(this.nextId++);
    this.faults.set(fault.id, fault);
    return fault;
  }

  all(): F[] {
    return [...this.faults.values()];
  }

  remove(id: number): boolean {
    return this.faults.delete(id);
  }

  /** Removes every fault; answers how many there were. */
  clear(): number {
    const removed = this.faults.size;
    this.faults.clear();
    return removed;
  }

  /** The first fault for `tenant` (aimed at it or at every clinic) that `matches`, its hit counted. */
  first(tenant: string | null, matches: (fault: F) => boolean = () => true): F | undefined {
    for (const fault of this.faults.values()) {
      if (fault.tenant !== '*' && fault.tenant !== tenant) continue;
      if (matches(fault)) {
        fault.hits++;
        return fault;
      }
    }
    return undefined;
  }
}
