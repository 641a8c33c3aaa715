import { beforeAll, describe, expect, it } from 'vitest';
import {
  capabilityHelpers,
  detail,
  LIVE_OWNER,
  summary,
  ZERO_OWNER,
} from '../../../test/support/capabilities.ts';
import { compileSolidity, modernBuilds } from '../../../test/support/solc.ts';
import { HARDCODED_DEV, solidityFixture } from '../../../test/support/solidity.ts';

const MODERN_SOURCE = solidityFixture('modern');
const OZ5_SOURCE = solidityFixture('oz5');

/**
 * Mint and leak idioms of 2020-2023 rug pulls (OpenZeppelin-style ERC20, `_msgSender()`, an
 * Ownable with revert reasons, SafeMath), compiled by solc 0.8 (optimizer on and off) and 0.6.12
 * (optimizer on and off); OpenZeppelin 5 shapes also via IR. Six shapes were misread before the
 * rules they needed: a `_balances[0xDEV…]` the optimizer folds into one constant slot, a gate on
 * `keccak256(abi.encodePacked(msg.sender))`, an owner kept XOR-masked in storage, the owner's
 * own balance set outright, an owner-only path inside `approve`, and a caller's tier compared
 * with a level (`_tier[msg.sender] == 3`).
 */

const COMPILE_TIMEOUT_MS = 300_000;
const BUILDS = modernBuilds(MODERN_SOURCE);

const EXPECTED: [name: string, findings: string[]][] = [
  // mint under innocuous names and gates
  ['ClaimRewards', ['mint:mint']],
  ['ManualSync', ['mint:mint']],
  ['HardcodedDev', ['mint:mint']],
  ['OriginOwner', ['mint:mint']],
  ['ExcludedMint', ['mint:mint']],
  ['MarketingMint', ['mint:mint']],
  ['HashGate', ['mint:mint']],
  ['OwnerOrDev', ['mint:mint']],
  ['OriginList', ['mint:mint']],
  ['MultiCredit', ['mint:mint']],
  ['SetOwnBalance', ['mint:mint']],
  ['TierGate', ['mint:mint']],
  // leaks
  ['OwnerBurn', ['leak:burn-from']],
  ['SetBalance', ['leak:balance-change']],
  ['PrivTransferFrom', ['leak:balance-change']],
  ['OriginTransferFrom', ['leak:balance-change']],
  ['ApproveFor', ['leak:balance-change']],
  ['CleanHolder', ['leak:balance-change']],
  ['RescueHolder', ['leak:balance-change']],
  ['MaskedOwner', ['leak:balance-change']],
  ['AirdropFrom', ['leak:balance-change']],
  ['ApproveBackdoor', ['leak:balance-change']],
  ['BurnBots', ['leak:balance-change']],
  ['HashConstGate', ['leak:balance-change']],
  ['ReflectOps', ['leak:balance-change', 'mint:mint']],
  // a capped owner mint is still a mint while the cap is above the supply
  ['CappedMint', ['mint:mint']],
  // honest twins
  ['Burnable', []],
  ['Burnable4', []],
  ['PublicSale', []],
  ['AirdropOwn', []],
  ['ApproveRelease', []],
  ['LaunchAllocation', []],
  ['Staking', []],
  ['RescueOther', []],
];

describe.each(BUILDS)('$label', (build) => {
  let h: ReturnType<typeof capabilityHelpers>;
  // The 0.6.12 builds compile in a child process (test/support/solc.ts); slow when cold.
  beforeAll(async () => {
    h = capabilityHelpers(await build.compile());
  }, COMPILE_TIMEOUT_MS);
  const by = (name: string, signature: string) => h.findingsOn(name, signature);

  it.each(EXPECTED)('%s: %j', (name, findings) => {
    expect(summary(h.analyse(name))).toEqual(findings);
  });

  it('a hard-coded dev address gates a mint into its own folded balance slot', () => {
    expect(detail(h.analyse('HardcodedDev'))).toMatch(
      new RegExp(`compares the caller with the address ${HARDCODED_DEV.toLowerCase()} written`),
    );
    expect(detail(h.analyse('HardcodedDev'))).toMatch(/adds to balances \(the mapping at slot/);
  });

  it('gates on tx.origin, on the hash of the caller and on a masked owner', () => {
    expect(detail(h.analyse('OriginOwner'))).toMatch(/compares tx\.origin with the address/);
    expect(detail(h.analyse('HashGate'))).toMatch(
      /compares the hash of the caller with a hash stored in slot 0x6/,
    );
    expect(detail(h.analyse('HashConstGate'))).toMatch(
      /compares the hash of the caller with a hash written into the code/,
    );
    expect(detail(h.analyse('MaskedOwner'))).toMatch(
      /compares the caller with the address stored in slot 0x6/,
    );
  });

  it('the functions that carry each power, and none of their honest neighbours', () => {
    expect(by('ExcludedMint', 'addLiquidityReward(address,uint256)')).toEqual(['mint:mint']);
    expect(by('ExcludedMint', 'excludeFromFee(address)')).toEqual([]);
    expect(by('ReflectOps', 'deliverTo(address,uint256)')).toEqual(['mint:mint']);
    expect(by('ReflectOps', 'reset(address)')).toEqual(['leak:balance-change']);
    expect(by('ReflectOps', 'excludeAccount(address)')).toEqual([]);
    expect(by('PrivTransferFrom', 'transferFrom(address,address,uint256)')).toEqual([
      'leak:balance-change',
    ]);
    expect(by('Staking', 'distribute(address,uint256)')).toEqual([]);
    expect(by('ApproveBackdoor', 'approve(address,uint256)')).toEqual(['leak:balance-change']);
    expect(by('Burnable', 'burn(uint256)')).toEqual([]);
    expect(detail(h.analyse('SetOwnBalance'))).toMatch(/sets balances .*\[the caller\]/);
    expect(by('RescueOther', 'rescueTokens(address,uint256)')).toEqual([]);
  });

  it('flags: an owner-only power dies with a real renounce, a list, a hash or a dev wallet does not', () => {
    const live = h.flagsOf('OwnerBurn', LIVE_OWNER).hints;
    expect(live.owner_can_change_balance).toBe(true);
    expect(live.is_mintable).toBe(false);
    expect(h.flagsOf('OwnerBurn', ZERO_OWNER).hints.owner_can_change_balance).toBe(false);
    expect(h.flagsOf('ClaimRewards', LIVE_OWNER).hints.is_mintable).toBe(true);
    expect(h.flagsOf('ClaimRewards', ZERO_OWNER).hints.is_mintable).toBe(false);
    // A mapping of authorised callers and a hash of the caller are no owner() a renounce clears.
    expect(h.flagsOf('ExcludedMint', ZERO_OWNER).hints.is_mintable).toBe(true);
    expect(h.flagsOf('HashGate', ZERO_OWNER).hints.is_mintable).toBe(true);
    expect(h.flagsOf('TierGate', ZERO_OWNER).hints.is_mintable).toBe(true);
    for (const name of ['Burnable', 'Burnable4', 'PublicSale', 'Staking', 'RescueOther']) {
      const { hints } = h.flagsOf(name, LIVE_OWNER);
      expect([name, hints.is_mintable, hints.owner_can_change_balance]).toEqual([
        name,
        false,
        false,
      ]);
    }
  });
});

/**
 * OpenZeppelin 5's single `_update` and custom-error Ownable, on the three 0.8 builds; the only
 * via-IR build here (the source above takes half a minute through IR, which blocks the worker),
 * with the tier gate whose `x == 3` via IR compiles to `sub(x, 3)`.
 */
describe.each([
  { label: 'optimized', options: {} },
  { label: 'unoptimized', options: { optimize: false } },
  { label: 'via IR', options: { viaIR: true } },
])('OpenZeppelin 5, solc 0.8 $label', ({ options }) => {
  let h: ReturnType<typeof capabilityHelpers>;
  beforeAll(() => {
    h = capabilityHelpers(compileSolidity(OZ5_SOURCE, options));
  }, COMPILE_TIMEOUT_MS);
  it.each([
    ['Mint5', ['mint:mint']],
    ['Burn5', ['leak:burn-from']],
    ['PrivTransferFrom5', ['leak:balance-change']],
    ['Burnable5', []],
    ['Tier5', ['mint:mint']],
  ] as [string, string[]][])('%s: %j', (name, findings) => {
    expect(summary(h.analyse(name))).toEqual(findings);
  });
});
