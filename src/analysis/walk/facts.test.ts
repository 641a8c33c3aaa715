import { beforeAll, describe, expect, it } from 'vitest';
import { capabilityHelpers, summary } from '../../../test/support/capabilities.ts';
import { compileSolidityAsync } from '../../../test/support/solc.ts';
import { solidityFixture } from '../../../test/support/solidity.ts';
import { decidedByCaller } from './facts.ts';
import { CALLER, node, ORIGIN } from './symbolic.ts';

/**
 * The caller and tx.origin are never the zero address, so a branch that needs either to be zero
 * is no path. OpenZeppelin 5 tokens whose `_update` override checks the sender (fee exemption
 * against a hard-coded treasury, a bot list, max transaction and trading gate, an exemption
 * mapping) were read as "transfer() mints": `_update`'s `from == address(0)` branch, reached with
 * `from = msg.sender`. Each honest token has a twin with the same names and checks and a real mint.
 */

const COMPILE_TIMEOUT_MS = 300_000;
const MASK = (1n << 160n) - 1n;
const masked = node('and', [MASK, CALLER]);

describe('decidedByCaller', () => {
  it('decides conditions that need the caller or tx.origin to be zero', () => {
    expect(decidedByCaller(CALLER)).toBe(true);
    expect(decidedByCaller(node('iszero', [masked]))).toBe(false);
    expect(decidedByCaller(node('iszero', [node('iszero', [ORIGIN])]))).toBe(true);
    expect(decidedByCaller(node('eq', [0n, masked]))).toBe(false);
    expect(decidedByCaller(node('sub', [masked, 0n]))).toBe(true);
    expect(decidedByCaller(node('gt', [masked, 0n]))).toBe(true);
    expect(decidedByCaller(node('lt', [0n, CALLER]))).toBe(true);
    expect(decidedByCaller(node('or', [node('iszero', [CALLER]), node('iszero', [ORIGIN])]))).toBe(
      false,
    );
  });

  it('leaves every other comparison of the caller to the walk', () => {
    expect(decidedByCaller(node('eq', [masked, 0x7a250d5630b4cf539739df2c5dacb4c659f2488dn]))).toBe(
      null,
    );
    // a mask that drops address bits could make a non-zero caller zero
    expect(decidedByCaller(node('iszero', [node('and', [0xffn, CALLER])]))).toBe(null);
    expect(decidedByCaller(node('iszero', [node('sload', [CALLER])]))).toBe(null);
    expect(decidedByCaller(node('or', [node('iszero', [CALLER]), node('sload', [0n])]))).toBe(null);
  });
});

const EXPECTED_MINTS: [name: string, mints: boolean][] = [
  ['TreasuryFee5', false],
  ['TreasuryFeeMint5', true],
  ['BotList5', false],
  ['BotListMint5', true],
  ['MaxTxGate5', false],
  ['MaxTxGateMint5', true],
  ['Exempt5', false],
];

describe.each([
  { label: 'optimized', options: {} },
  { label: 'unoptimized', options: { optimize: false } },
  { label: 'via IR', options: { viaIR: true } },
])('OpenZeppelin 5 `_update` overrides, solc 0.8 $label', ({ options }) => {
  let h: ReturnType<typeof capabilityHelpers>;
  beforeAll(async () => {
    h = capabilityHelpers(await compileSolidityAsync(solidityFixture('oz5-update'), options));
  }, COMPILE_TIMEOUT_MS);

  it.each(EXPECTED_MINTS)('%s mints: %s', (name, mints) => {
    expect(summary(h.analyse(name)).includes('mint:mint')).toBe(mints);
    const { hints, assessment } = h.flagsOf(name);
    expect(hints.is_mintable).toBe(mints);
    const mintFactors = assessment.risk_factors.filter((f) => f.code === 'admin:mint');
    expect(mintFactors.length > 0).toBe(mints);
  });

  it('transfer() of an honest token is no mint function', () => {
    for (const [name] of EXPECTED_MINTS.filter(([, m]) => !m))
      expect([name, h.admin(name).filter((a) => a.includes(' mint '))]).toEqual([name, []]);
  });

  it('the bot list stays a limit', () => {
    expect(summary(h.analyse('BotList5'))).toEqual(['limit:blacklist']);
  });
});
