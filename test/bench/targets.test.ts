import { describe, expect, it } from 'vitest';
import { TARGETS, verdict } from '../../bench/targets.ts';

// The bench prints each target with its verdict; a target not met says by how much (issue 32's Done when).
describe('bench targets', () => {
  it('says yes for a ratio within an upper bound, and how far over it one is', () => {
    expect(verdict(2.4, TARGETS.ping.maxCpuRatio)).toEqual({ met: true, text: 'yes' });
    expect(verdict(2.5, TARGETS.ping.maxCpuRatio)).toEqual({ met: true, text: 'yes' });
    expect(verdict(5, TARGETS.ping.maxCpuRatio)).toEqual({ met: false, text: '**no**, by 2.00 ×' });
  });

  it('for a lower bound (creates per second) says how many times short a rate is', () => {
    expect(verdict(2600, TARGETS.createsPerSecond, true).met).toBe(true);
    expect(verdict(1000, TARGETS.createsPerSecond, true)).toEqual({ met: false, text: '**no**, by 2.50 ×' });
  });

  it("holds issue 32's figures", () => {
    expect(TARGETS.ping.maxCpuRatio).toBe(2.5);
    expect(TARGETS.postgresMaxRatio).toBe(1.5);
    expect(TARGETS.secondStartMs).toBe(1500);
    expect(TARGETS.list.maxCpuRatioToWireMock).toBe(1);
    expect(TARGETS.create.maxCpuRatioToWireMock).toBe(3);
  });
});
