import type { OpenedPostgresDb } from '../db/postgres.ts';
import type { StorageFaultRow } from '../db/tables/cluster.ts';
import { failureRateOf, type PresignFaults, type StorageFault, type StorageFaultInput } from './storage-faults.ts';

/** Channel of the NOTIFY that migration 021's trigger sends when the storage_faults table changes. */
export const STORAGE_FAULTS_CHANNEL = 'gateway_storage_faults';

const viewOf = (row: StorageFaultRow): StorageFault => ({
  id: row.id,
  tenant: row.tenant,
  failure_rate: row.failure_rate,
  criado_em: row.criado_em,
  hits: row.hits,
});

/**
 * The cluster's presign faults, in PostgreSQL (storage_faults, migration 021), so a fault switched through any
 * instance's console applies to the file redirects of every instance. Each instance consults a copy in memory
 * (a presign must not wait for the database), read again on every change notified and after a lost listener;
 * the instance that made a change reads it before answering. Hits are counted in the database, off the request.
 * Unlike the single process's table, faults survive a restart of the gateways: the table is the console's.
 */
export class SharedStorageFaults implements PresignFaults {
  private copy: StorageFault[] = [];
  private refreshing: Promise<void> | null = null;
  private again = false;
  /** Hit counts still on their way to the table: a list waits for them, so it shows this instance's hits so far. */
  private readonly hitsInFlight = new Set<Promise<unknown>>();

  private constructor(
    private readonly opened: OpenedPostgresDb,
    private readonly random: () => number,
    private readonly now: () => Date,
  ) {}

  static async open(
    opened: OpenedPostgresDb,
    random: () => number = Math.random,
    now: () => Date = () => new Date(),
  ): Promise<SharedStorageFaults> {
    const faults = new SharedStorageFaults(opened, random, now);
    opened.listen(STORAGE_FAULTS_CHANNEL, () => void faults.refresh());
    opened.onReconnect(() => void faults.refresh());
    await faults.refresh();
    return faults;
  }

  /** Reads the table again; calls made while a read runs are served by one more read after it. */
  refresh(): Promise<void> {
    if (this.refreshing) {
      this.again = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      do {
        this.again = false;
        try {
          this.copy = (await this.opened.db.selectFrom('storage_faults').selectAll().orderBy('id').execute()).map(
            viewOf,
          );
        } catch (error) {
          console.error(
            `storage faults: the shared table could not be read (${(error as Error).message}); keeping the last copy`,
          );
        }
      } while (this.again);
      this.refreshing = null;
    })();
    return this.refreshing;
  }

  async add(input: StorageFaultInput = {}): Promise<StorageFault> {
    const row = await this.opened.db
      .insertInto('storage_faults')
      .values({ tenant: input.tenant ?? '*', failure_rate: failureRateOf(input), criado_em: this.now().toISOString() })
      .returningAll()
      .executeTakeFirstOrThrow();
    await this.refresh();
    return viewOf(row);
  }

  async list(): Promise<StorageFault[]> {
    await Promise.all(this.hitsInFlight);
    return (await this.opened.db.selectFrom('storage_faults').selectAll().orderBy('id').execute()).map(viewOf);
  }

  async remove(id: number): Promise<boolean> {
    const result = await this.opened.db.deleteFrom('storage_faults').where('id', '=', id).executeTakeFirst();
    await this.refresh();
    return Number(result.numDeletedRows) > 0;
  }

  async clear(): Promise<number> {
    const result = await this.opened.db.deleteFrom('storage_faults').executeTakeFirst();
    await this.refresh();
    return Number(result.numDeletedRows);
  }

  shouldFail(tenant: string | null): boolean {
    const fault = this.copy.find((f) => f.tenant === '*' || f.tenant === tenant);
    if (!fault) return false;
    fault.hits += 1;
    const counted = this.opened.db
      .updateTable('storage_faults')
      .set((eb) => ({ hits: eb('hits', '+', 1) }))
      .where('id', '=', fault.id)
      .execute()
      .catch(() => undefined)
      .finally(() => this.hitsInFlight.delete(counted));
    this.hitsInFlight.add(counted);
    return this.random() < fault.failure_rate;
  }
}
