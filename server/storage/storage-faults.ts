import type { StorageFaultInput, StorageFaultView } from '../../contracts/admin/storage-faults.ts';
import { FaultTable } from '../../shared-node/fault-table.ts';

/**
 * A presign failure switched on by an operator or a test, like backend-sim's faults: as the console lists it
 * (contracts/admin/storage-faults.ts), and as the console API's `POST /storage-faults` asks for it.
 */
export type StorageFault = StorageFaultView;
export type { StorageFaultInput };

/**
 * Presign faults as the Presigner consults them (synchronously, on every presign) and the console API switches
 * them: this process's table (StorageFaults) or the cluster's (server/storage/shared-storage-faults.ts).
 */
export interface PresignFaults {
  add(input?: StorageFaultInput): StorageFault | Promise<StorageFault>;
  list(): StorageFault[] | Promise<StorageFault[]>;
  remove(id: number): boolean | Promise<boolean>;
  clear(): number | Promise<number>;
  /** Whether this presign must fail: the first fault matching the tenant decides, with its failure rate. */
  shouldFail(tenant: string | null): boolean;
}

/** The failure rate an operator asked for, checked: in (0, 1], 1 when not given. */
export function failureRateOf(input: StorageFaultInput): number {
  const failureRate = input.failure_rate ?? 1;
  if (!(failureRate > 0 && failureRate <= 1)) throw new RangeError('failure_rate must be in (0, 1]');
  return failureRate;
}

/**
 * In-memory table of presign faults, consulted by the Presigner (a hit becomes 500
 * RES_ARQUIVO_S3_FALHA) and switched through the console API (`/admin/api/storage-faults`).
 * Faults vanish on restart, as backend-sim's do.
 */
export class StorageFaults implements PresignFaults {
  private readonly faults = new FaultTable<StorageFault>();

  constructor(
    private readonly random: () => number = Math.random,
    private readonly now: () => Date = () => new Date(),
  ) {}

  add(input: StorageFaultInput = {}): StorageFault {
    const failureRate = failureRateOf(input);
    const fault = this.faults.add((id) => ({
      id,
      tenant: input.tenant ?? '*',
      failure_rate: failureRate,
      criado_em: this.now().toISOString(),
      hits: 0,
    }));
    return { ...fault };
  }

  list(): StorageFault[] {
    return this.faults.all().map((fault) => ({ ...fault }));
  }

  remove(id: number): boolean {
    return this.faults.remove(id);
  }

  clear(): number {
    return this.faults.clear();
  }

  /** Whether this presign must fail: the first fault matching the tenant decides, with its failure rate. */
  shouldFail(tenant: string | null): boolean {
    const fault = this.faults.first(tenant);
    return fault ? this.random() < fault.failure_rate : false;
  }
}
