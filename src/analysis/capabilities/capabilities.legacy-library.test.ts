import { beforeAll, describe, expect, it } from 'vitest';
import { capabilityHelpers, detail, summary } from '../../../test/support/capabilities.ts';
import { compileLegacy, type LegacySolc } from '../../../test/support/solc.ts';
import { type Dialect, dialect, solidityFixture } from '../../../test/support/solidity.ts';

const LIBRARY_SOURCE = solidityFixture('legacy-library');

/**
 * Library-built 0.4–0.6 tokens (SafeMath, OpenZeppelin 1.x, the ethereum.org advanced token) and
 * the rules these idioms needed, each compiled by a 0.4 and a 0.6 release, optimizer on and off:
 * - an allowance read is no consent unless the path relied on it (`allowed < value && msg.sender
 *   != owner` lets the owner through with none);
 * - `admins[msg.sender] > 0` proves a role as `admins[msg.sender]` does, but the caller's own
 *   balance proves nothing;
 * - only the member of a balances struct balanceOf reads is the balance (`accounts[h].frozen`
 *   beside it is a flag), and `entry + 0` in unoptimised code is the entry itself;
 * - an amount locked for an account on the path that credits it that amount locks only what the
 *   path gives (an allocation vested to its holder), no limit on tokens held.
 */

const COMPILE_TIMEOUT_MS = 300_000;
const BUILDS: { version: LegacySolc; dialect: Dialect; optimize: boolean }[] = [
  { version: '0.4.18', dialect: '0.4', optimize: true },
  { version: '0.4.18', dialect: '0.4', optimize: false },
  { version: '0.6.12', dialect: '0.5', optimize: true },
  { version: '0.6.12', dialect: '0.5', optimize: false },
];

const EXPECTED: [name: string, findings: string[]][] = [
  ['OzMint', ['mint:mint']],
  ['OzPause', ['limit:pause']],
  ['Advanced', ['limit:blacklist', 'mint:mint']],
  ['OrOwner', ['leak:balance-change']],
  ['AndOwner', ['leak:balance-change']],
  ['TwoMinters', ['mint:mint']],
  ['AdminLevel', ['mint:mint']],
  ['StructBal', ['leak:balance-change', 'limit:blacklist', 'mint:mint']],
  ['Whitelisted', ['limit:trading-switch']],
  ['LockedAmount', ['limit:blacklist']],
  ['AllocateLocked', ['mint:mint']],
  ['Blacklist', ['leak:balance-change', 'limit:blacklist']],
  ['OriginOwner', ['leak:balance-change']],
  ['Release', ['limit:trading-switch']],
  ['AdminMove', ['leak:balance-change']],
  ['Sale', []],
  ['Distribute', []],
  ['HolderBonus', []],
  ['OwnerCollect', []],
];

describe.each(BUILDS)('solc $version, optimizer $optimize', (build) => {
  let h: ReturnType<typeof capabilityHelpers>;
  // Compiled in a child process (test/support/solc.ts); a cold old solc is slow on a busy machine.
  beforeAll(async () => {
    h = capabilityHelpers(await compileLegacy(dialect(LIBRARY_SOURCE, build.dialect), build));
  }, COMPILE_TIMEOUT_MS);
  const by = (name: string, signature: string) => h.findingsOn(name, signature);

  it.each(EXPECTED)('%s: %j', (name, findings) => {
    expect(summary(h.analyse(name))).toEqual(findings);
  });

  it('an allowance the owner passes without is no consent; one the path checks is', () => {
    const transferFrom = 'transferFrom(address,address,uint256)';
    expect(by('AndOwner', transferFrom)).toEqual(['leak:balance-change']);
    expect(by('OrOwner', transferFrom)).toEqual(['leak:balance-change']);
    expect(detail(h.analyse('AndOwner'))).toMatch(
      /compares the caller with the address stored in slot 0x3 .*without reading any allowance/,
    );
    // Spent (OzPause's transferFrom) or checked and left (OwnerCollect): the holder consented.
    expect(by('OzPause', transferFrom)).toEqual([]);
    expect(by('OwnerCollect', 'collect(address,uint256)')).toEqual([]);
  });

  it("an admin level greater than zero is a role; the caller's own balance is none", () => {
    expect(detail(h.analyse('AdminLevel'))).toContain('looks the caller up in a mapping');
    expect(h.admin('AdminLevel')).toContainEqual(expect.stringMatching(/\) mint role$/));
    expect(by('HolderBonus', 'bonus()')).toEqual([]);
    expect(by('HolderBonus', 'claim()')).toEqual([]);
  });

  it('an amount locked for what the same call credits is vesting; locking held tokens is a limit', () => {
    // allocate(address,uint256,uint8): the uint8 argument no longer zeroes the walk's call data.
    expect(by('AllocateLocked', 'allocate(address,uint256,uint8)')).toEqual(['mint:mint']);
    expect(by('LockedAmount', 'lockTokens(address,uint256)')).toEqual(['limit:blacklist']);
  });

  it('a struct of balances: the frozen member is a flag, not a balance', () => {
    const r = h.analyse('StructBal');
    expect(r.layout.balanceMember).toBe(0n);
    expect(by('StructBal', 'setFrozen(address,bool)')).toEqual(['limit:blacklist']);
    expect(by('StructBal', 'issue(address,uint256)')).toEqual(['mint:mint']);
    // `accounts[a].balance = 0` after crediting the owner: a take, with or without the optimizer.
    expect(by('StructBal', 'seize(address)')).toEqual(['leak:balance-change']);
  });

  it('library tokens: a closed-looking canMint mint is live on code alone; pause is one-way safe', () => {
    const mint = h.analyse('OzMint').findings[0]!;
    // The path needs `mintingFinished` false: the chain's storage decides whether it is closed.
    expect(mint.requires?.length).toBeGreaterThan(0);
    expect(by('OzPause', 'unpause()')).toEqual([]);
    expect(by('Advanced', 'burnFrom(address,uint256)')).toEqual([]);
    expect(by('Whitelisted', 'enableTransfer()')).toEqual([]);
    expect(by('Whitelisted', 'disableTransfer()')).toEqual(['limit:trading-switch']);
  });
});
