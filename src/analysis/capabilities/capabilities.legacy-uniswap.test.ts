import { beforeAll, describe, expect, it } from 'vitest';
import { capabilityHelpers, detail, summary } from '../../../test/support/capabilities.ts';
import { compileLegacy, type LegacySolc } from '../../../test/support/solc.ts';
import { solidityFixture } from '../../../test/support/solidity.ts';

const UNISWAP_ERA_SOURCE = solidityFixture('legacy-uniswap');

/**
 * Uniswap-era 0.5/0.6 tokens, compiled by 0.5.17 and 0.6.12 with the optimizer on and off.
 * Among them the rules a cap computed from the supply needed (`amount <= supply * pct / 100` with
 * `pct` set to zero fails whatever the supply: a product or quotient with a zero side is zero;
 * a setter that keeps the percent at one or more stops no one), and a reflection token's
 * (balanceOf reads `_tOwned` or `_rOwned`: the balances are what transfer writes on most paths).
 */

const COMPILE_TIMEOUT_MS = 300_000;
const BUILDS = (['0.5.17', '0.6.12'] as LegacySolc[]).flatMap((version) => [
  { version, optimize: true },
  { version, optimize: false },
]);

const EXPECTED: [name: string, findings: string[]][] = [
  ['Bots', ['limit:blacklist']],
  ['MaxTx', ['limit:trading-switch']],
  ['OpenOnce', []],
  ['SellDelay', ['limit:trading-switch']],
  ['OwnerOps', ['leak:burn-from', 'mint:mint']],
  ['ApproveAll', ['leak:balance-change']],
  ['SellPct', ['limit:trading-switch']],
  ['SellPctBounded', []],
  ['Toggle', ['limit:pause']],
  ['FeeOnly', []],
  ['Reflect', ['limit:trading-switch']],
  ['ReflectClean', ['leak:balance-change', 'limit:trading-switch']],
];

describe.each(BUILDS)('solc $version, optimizer $optimize', (build) => {
  let h: ReturnType<typeof capabilityHelpers>;
  // Compiled in a child process (test/support/solc.ts); a cold old solc is slow on a busy machine.
  beforeAll(async () => {
    h = capabilityHelpers(await compileLegacy(UNISWAP_ERA_SOURCE, build));
  }, COMPILE_TIMEOUT_MS);
  const by = (name: string, signature: string) => h.findingsOn(name, signature);

  it.each(EXPECTED)('%s: %j', (name, findings) => {
    expect(summary(h.analyse(name))).toEqual(findings);
  });

  it('a sell cap of a percent of the supply, set to zero, stops every sale', () => {
    expect(detail(h.analyse('SellPct'))).toMatch(
      /with a cap on the amount sold that a transfer of 1000 base units fails/,
    );
  });

  it('the owner behind `_owner == _msgSender()` with a revert reason, in slot 0', () => {
    expect(detail(h.analyse('OwnerOps'))).toMatch(
      /compares the caller with the address stored in slot 0x0/,
    );
    expect(h.admin('Bots')).toContainEqual(
      expect.stringMatching(/\(address\[\]\) blacklist owner-only$/),
    );
  });

  it('a reflection token: the balances are the mapping transfer writes on most paths', () => {
    const r = h.analyse('Reflect');
    // balanceOf reads _tOwned (slot 1) for excluded accounts, _rOwned (slot 0) for the others.
    expect(r.layout.balances).toBe(0n);
    expect(r.layout.held).toEqual([1n]);
    // excludeAccount writes _tOwned[account] from _rOwned[account]: no balance taken.
    expect(by('Reflect', 'excludeAccount(address)')).toEqual([]);
    expect(by('ReflectClean', 'clean(address)')).toEqual(['leak:balance-change']);
  });

  it('releases and one-way switches are no limit: delBot, openTrading', () => {
    expect(by('Bots', 'delBot(address)')).toEqual([]);
    expect(by('OpenOnce', 'openTrading()')).toEqual([]);
    expect(h.analyse('OpenOnce').oneWay).toHaveLength(1);
  });
});
