import { describe, expect, it } from 'vitest';
import { oncePerTurn } from '../../server/once-per-turn.ts';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('oncePerTurn', () => {
  it('runs the flush once on the next turn however often it is asked for in this one', async () => {
    let flushes = 0;
    const schedule = oncePerTurn(() => flushes++);
    schedule();
    schedule();
    schedule();
    expect(flushes).toBe(0);
    await nextTurn();
    expect(flushes).toBe(1);
  });

  it('asks made during a flush, or in a later turn, get a flush of their own', async () => {
    const flushed: number[] = [];
    let turn = 0;
    const schedule = oncePerTurn(() => {
      flushed.push(turn);
      if (turn === 0) {
        turn = 1;
        schedule();
      }
    });
    schedule();
    await nextTurn();
    await nextTurn();
    expect(flushed).toEqual([0, 1]);
    schedule();
    await nextTurn();
    expect(flushed).toEqual([0, 1, 1]);
  });
});
