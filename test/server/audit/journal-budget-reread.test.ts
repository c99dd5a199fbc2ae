import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { gatewayRows } from '../../helpers/journal.ts';
import type { JournalStore } from '../../../server/audit/journal-budget.ts';

/**
 * The budget's totals are kept in memory beside audit_budget and read again from it (every second on PostgreSQL,
 * where other instances write too; after the CLI's prune on gateway.db). A re-read that overlapped one of this
 * process's commits would put back totals without that commit: the budget then under-counts until the next read
 * (a CI run of journal-prune.test.ts on PostgreSQL saw 2 verified rows held for 3 stored).
 */

describe("the budget's re-read of its stored totals never loses or doubles a commit that overlapped it", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.stop());

  test('a re-read (every second on PostgreSQL) whose SELECT ran before a signed request committed: its stale totals are not taken', async () => {
    const budget = stack.app.auditWriter.budget;
    expect((await stack.call({ path: '/v1/ping' })).status).toBe(200);
    await stack.app.auditWriter.flush();
    const store = (budget as unknown as { store: JournalStore }).store;
    const readTotals = store.readTotals.bind(store);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reads = 0;
    // The real read runs at once; only its answer waits for the gate, as a slow SELECT's would.
    store.readTotals = async () => {
      reads += 1;
      const totals = await readTotals();
      await gate;
      return totals;
    };
    try {
      const rereading = budget.open();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect((await stack.call({ path: '/v1/ping' })).status).toBe(200);
      await stack.app.auditWriter.flush();
      release();
      await rereading;
    } finally {
      store.readTotals = readTotals;
    }
    const [stored] = await gatewayRows<{ n: number; b: number }>(
      stack,
      'SELECT count(*) AS n, coalesce(sum(bytes), 0) AS b FROM audit_log WHERE verified = 1',
    );
    expect(budget.status().totals.verified).toEqual({ rows: Number(stored.n), bytes: Number(stored.b) });
    // The stale answer was put aside and the totals read again.
    expect(reads).toBeGreaterThanOrEqual(2);
  });
});
