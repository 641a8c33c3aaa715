import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { capabilityHelpers, detail, summary } from '../../../test/support/capabilities.ts';
import { compileSolidityAsync } from '../../../test/support/solc.ts';

/**
 * The modern set's variants (test/fixtures/modern/variants.sol), read from the code alone: the
 * shapes that were misread when they were written, each beside its honest twin (docs/risk-model.md,
 * "Families of today's tokens"). The fee setters' caps need an execution and are asserted by the
 * modern accuracy e2e; here the walk's own findings are.
 */

const COMPILE_TIMEOUT_MS = 600_000;
const SOURCE = readFileSync(
  new URL('../../../test/fixtures/modern/variants.sol', import.meta.url),
  'utf8',
);

/** The two builds whose code differs most: the optimizer, and via-IR without it. */
const BUILDS = [
  { label: 'solc 0.8.30, optimizer', options: { version: '0.8.30', optimize: true, viaIR: false } },
  {
    label: 'solc 0.8.30, via-IR, no optimizer',
    options: { version: '0.8.30', optimize: false, viaIR: true },
  },
] as const;

const EXPECTED: [name: string, findings: string[]][] = [
  // An enum phase whose setter refuses 1,000: walked again with 1 and 0.
  ['PhaseSettable', ['limit:trading-switch']],
  ['PhaseOneWay', []],
  // A cap computed from the supply: its overflow check bounds nothing, and supply * 0 is zero.
  ['MaxTxPercent', ['limit:trading-switch']],
  ['MaxTxPercentBounded', []],
  // A listed sender's amount set to zero: a transfer that writes back what it read moves nothing.
  ['ZeroAmountBots', ['limit:blacklist']],
  ['ZeroAmountBotsRemoveOnly', []],
  // A cooldown capped at 60 seconds: the times the short walks store are not judged.
  ['CooldownCapped', []],
  // A fixed fee behind a switch, a fee swap through a fixed router: failures on the balance or on
  // the call's own outcome blame no switch.
  ['FeeSwitchFixed', []],
  ['TaxSwapHonest', []],
  // Fee tokens (via-IR's unoptimised update of the recipient's credit is no debit).
  ['Fees3Capped', []],
  ['PercentFeeCapped', []],
  // The owner's transferFrom without allowance, for anyone's tokens or only its own (the
  // optimizer's retest of `a` in `a && b` is decided, not forked).
  ['OwnerSkipsAllowance', ['leak:balance-change']],
  ['OwnerSkipsOwnAllowance', []],
];

describe.each(BUILDS)('$label', ({ options }) => {
  let h: ReturnType<typeof capabilityHelpers>;
  beforeAll(async () => {
    h = capabilityHelpers(await compileSolidityAsync(SOURCE, options));
  }, COMPILE_TIMEOUT_MS);

  it.each(EXPECTED)('%s: %j', (name, findings) => {
    expect(summary(h.analyse(name))).toEqual(findings);
  });

  it('says why: the no-op path and the enum phase', () => {
    expect(detail(h.analyse('ZeroAmountBots'))).toMatch(
      /branches on it at pc \d+ to a path that returns true without moving tokens/,
    );
    expect(detail(h.analyse('PhaseSettable'))).toMatch(/a flag that transfers need set/);
  });

  it('a percent fee setter capped below 1,000 is still found as the fee setter', () => {
    for (const name of ['PercentFeeCapped', 'PercentFeeSiphon'])
      expect(h.analyse(name).fees.map((f) => [f.divisor, f.setters.length])).toEqual([[100n, 1]]);
  });
});
