import { describe, expect, it } from 'vitest';
import { firstBreak } from './reorg.ts';

const h = (n: number, branch = 'a') => `0x${branch}${String(n).padStart(63, '0')}`;
const chain = (from: number, to: number, branch = 'a', forkParent?: string) =>
  Array.from({ length: to - from + 1 }, (_, i) => {
    const n = from + i;
    return {
      blockNumber: n,
      blockHash: h(n, branch),
      parentHash: i === 0 && forkParent ? forkParent : h(n - 1, branch),
    };
  });

describe('firstBreak', () => {
  it('accepts a batch that extends the stored predecessor', () => {
    expect(firstBreak(chain(5, 9), h(4))).toBe(-1);
  });
  it('accepts the first block when nothing is stored before it', () => {
    expect(firstBreak(chain(0, 3, 'b', h(99)), undefined)).toBe(-1);
  });
  it('reports a batch whose first block has another parent than the stored one', () => {
    expect(firstBreak(chain(5, 9, 'b'), h(4, 'a'))).toBe(0);
  });
  it('reports a break inside the batch (the node changed branch while answering)', () => {
    const batch = [...chain(5, 6), ...chain(7, 8, 'b')];
    expect(firstBreak(batch, h(4))).toBe(2);
  });
});
