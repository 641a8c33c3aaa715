import { beforeAll, describe, expect, it } from 'vitest';
import { capabilityHelpers, summary } from '../../../test/support/capabilities.ts';
import { compileSolidityAsync } from '../../../test/support/solc.ts';
import { solidityFixture } from '../../../test/support/solidity.ts';

/**
 * solc >= 0.8.19 (unoptimized) builds Panic(uint256) with `PUSH32 0x4e487b71…` some 43 bytes
 * before the REVERT, not the PUSH4 of optimized builds. A checked-arithmetic overflow is no
 * transfer check: the fee switch of fee-flag.sol stops no one, its twin stops everyone.
 */

const COMPILE_TIMEOUT_MS = 300_000;
const PUSH32_PANIC = '7f4e487b71';

describe.each([
  { label: 'optimized', options: {} },
  { label: 'unoptimized', options: { optimize: false } },
  { label: 'via IR', options: { viaIR: true } },
])('a fee flag with checked arithmetic, solc 0.8 $label', ({ label, options }) => {
  let h: ReturnType<typeof capabilityHelpers>;
  let code: string;
  beforeAll(async () => {
    const compiled = await compileSolidityAsync(solidityFixture('fee-flag'), options);
    code = compiled.FeeToken!.deployedBytecode;
    h = capabilityHelpers(compiled);
  }, COMPILE_TIMEOUT_MS);

  it.runIf(label === 'unoptimized')('the build carries the PUSH32 panic selector', () => {
    expect(code).toContain(PUSH32_PANIC);
  });

  it('an overflow check is no limit; a real stop is', () => {
    expect(summary(h.analyse('FeeToken'))).toEqual([]);
    expect(summary(h.analyse('FeeTokenSwitch'))).toEqual(['limit:pause']);
  });
});
