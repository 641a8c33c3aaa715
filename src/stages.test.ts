import { describe, expect, it } from 'vitest';
import { hasReached, STAGE_ORDER } from './stages.ts';

describe('stage order', () => {
  it('ranks every stage at or beyond itself and the ones before it', () => {
    for (const [i, stage] of STAGE_ORDER.entries()) {
      for (const [j, target] of STAGE_ORDER.entries())
        expect(hasReached(stage, target)).toBe(i >= j);
    }
  });

  it('puts risk before dex, so a pass that ends at risk still counts as analysed', () => {
    expect(hasReached('risk', 'risk')).toBe(true);
    expect(hasReached('dex', 'risk')).toBe(true);
    expect(hasReached('simulate', 'risk')).toBe(false);
  });

  it('says an unknown stage reached nothing', () => {
    expect(hasReached('archived', 'detected')).toBe(false);
  });
});
