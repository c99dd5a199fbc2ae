/**
 * Repeats `round` (several steps, each a count or a promise of one) while `again(deleted in the round)`, and
 * answers the total: synchronously while every step is synchronous (gateway.db), as a promise from the first
 * asynchronous step on (PostgreSQL). One loop for both stores instead of a synchronous and an async copy.
 */
export function allSettledLoop(
  round: () => Array<number | Promise<number>>,
  again: (roundTotal: number) => boolean,
  total = 0,
): number | Promise<number> {
  for (;;) {
    const steps = round();
    if (steps.some((step) => step instanceof Promise)) {
      return Promise.all(steps).then((counts) => {
        const n = counts.reduce((a, b) => a + b, 0);
        return again(n) ? allSettledLoop(round, again, total + n) : total + n;
      });
    }
    const n = (steps as number[]).reduce((a, b) => a + b, 0);
    total += n;
    if (!again(n)) return total;
  }
}
