/** A presign failure switched on by an operator or a test, like backend-sim's faults. */
export interface StorageFault {
  id: number;
  /** Tenant slug, or `*` for every clinic. */
  tenant: string;
  /** Probability (0 < rate <= 1) that a matching presign fails. */
  failure_rate: number;
  criado_em: string;
  /** Presigns this fault matched (failed or not). */
  hits: number;
}

export interface StorageFaultInput {
  tenant?: string;
  failure_rate?: number;
}

/**
 * In-memory table of presign faults, consulted by the Presigner (a hit becomes 500
 * RES_ARQUIVO_S3_FALHA) and switched through the console API (`/admin/api/storage-faults`).
 * Faults vanish on restart, as backend-sim's do.
 */
export class StorageFaults {
  private readonly faults = new Map<number, StorageFault>();
  private nextId = 1;

  constructor(
    private readonly random: () => number = Math.random,
    private readonly now: () => Date = () => new Date(),
  ) {}

  add(input: StorageFaultInput = {}): StorageFault {
    const failureRate = input.failure_rate ?? 1;
    if (!(failureRate > 0 && failureRate <= 1)) throw new RangeError('failure_rate must be in (0, 1]');
    const fault: StorageFault = {
      id: this.nextId++,
      tenant: input.tenant ?? '*',
      failure_rate: failureRate,
      criado_em: this.now().toISOString(),
      hits: 0,
    };
    this.faults.set(fault.id, fault);
    return { ...fault };
  }

  list(): StorageFault[] {
    return [...this.faults.values()].map((fault) => ({ ...fault }));
  }

  remove(id: number): boolean {
    return this.faults.delete(id);
  }

  clear(): number {
    const removed = this.faults.size;
    this.faults.clear();
    return removed;
  }

  /** Whether this presign must fail: the first fault matching the tenant decides, with its failure rate. */
  shouldFail(tenant: string | null): boolean {
    for (const fault of this.faults.values()) {
      if (fault.tenant !== '*' && fault.tenant !== tenant) continue;
      fault.hits++;
      return this.random() < fault.failure_rate;
    }
    return false;
  }
}
