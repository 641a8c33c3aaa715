import { afterEach, describe, expect, it, vi } from 'vitest';
import { staggeredSweep } from './heartbeat.ts';

describe('staggered heartbeat sweep', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('visits every member once per interval, a slice per tick, and picks up members added since', () => {
    vi.useFakeTimers();
    const members = new Set(Array.from({ length: 100 }, (_, i) => i));
    const visits: number[][] = [];
    const sweep = staggeredSweep(members, (m) => visits.at(-1)!.push(m), 10_000, 1_000);
    for (let tick = 0; tick < 10; tick++) {
      visits.push([]);
      vi.advanceTimersByTime(1_000);
    }
    // Ten slices of ten: nobody twice, nobody missed, never all at once.
    expect(visits.map((slice) => slice.length)).toEqual(Array(10).fill(10));
    expect(visits.flat().sort((a, b) => a - b)).toEqual([...members]);
    members.delete(0);
    members.add(100);
    visits.push([]);
    vi.advanceTimersByTime(10_000);
    const secondPass = visits.at(-1)!;
    expect(secondPass).not.toContain(0);
    expect(secondPass).toContain(100);
    expect(secondPass).toHaveLength(100);
    sweep.stop();
    visits.push([]);
    vi.advanceTimersByTime(10_000);
    expect(visits.at(-1)).toEqual([]);
  });
});
