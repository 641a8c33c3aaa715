import { beforeAll, describe, expect, it } from 'vitest';
import {
  capabilityHelpers,
  detail,
  LIVE_OWNER,
  summary,
  ZERO_OWNER,
} from '../../../test/support/capabilities.ts';
import { compileLegacy, type LegacySolc } from '../../../test/support/solc.ts';
import { type Dialect, dialect, solidityFixture } from '../../../test/support/solidity.ts';

const LEGACY_SOURCE = solidityFixture('legacy');

/**
 * The idioms of capabilities.idioms.test.ts as Solidity 0.4–0.6 wrote them (most real rug pulls
 * were compiled by these), each source compiled by two releases of its dialect with the
 * optimizer on and off: the same code must be read the same way whatever the compiler made of it.
 * Honest twins carry a power's name without its effect, and powers hide under innocuous names.
 */

const COMPILERS: { version: LegacySolc; dialect: Dialect }[] = [
  { version: '0.4.18', dialect: '0.4' },
  { version: '0.4.26', dialect: '0.4' },
  { version: '0.5.17', dialect: '0.5' },
  { version: '0.6.12', dialect: '0.5' },
];
const COMPILE_TIMEOUT_MS = 300_000;
const BUILDS = COMPILERS.flatMap((c) => [
  { ...c, optimize: true },
  { ...c, optimize: false },
]);

/** Every contract of the fixture but the two bases, with the capabilities its code has. */
const EXPECTED: [name: string, findings: string[], what: string][] = [
  ['InlineMint', ['mint:mint'], '`if (msg.sender != owner) throw;`, owner packed in slot 4'],
  ['AdminGenerate', ['mint:mint'], 'generateTokens behind an admin mapping, decimals uint256'],
  ['IssueReward', ['mint:mint', 'mint:mint'], 'issue and reward through onlyOwner, no metadata'],
  ['Airdrop', ['mint:mint'], 'an airdrop loop with arithmetic on the supply'],
  [
    'OwnerTransferFrom',
    ['leak:balance-change'],
    'transferFrom skipping the allowance for the owner',
  ],
  ['OwnerBurnFrom', ['leak:burn-from'], 'burnFrom by the owner without an allowance'],
  ['Destroy', ['leak:burn-from'], 'destroyTokens behind an inline controller check'],
  [
    'Rewrite',
    ['leak:balance-change', 'leak:balance-change'],
    'setBalance, and sync(address,uint256)',
  ],
  ['Frozen', ['limit:blacklist'], 'frozenAccount[from] read by transfer and transferFrom'],
  ['Transferable', ['limit:trading-switch'], 'setTransferable(bool), flag packed beside the owner'],
  ['LockAll', ['limit:pause'], 'lock() sets what transfer throws on; unlock() only opens'],
  ['Paused', ['limit:pause'], 'a whenNotPaused modifier'],
  ['TimeLock', ['limit:trading-switch'], '`require(now > unlockTime)`, the owner sets the time'],
  ['AccountLock', ['limit:blacklist'], 'a per-account time lock'],
  ['SellCap', ['limit:trading-switch'], '`if (to == pair) require(amount <= maxSell)`'],
  ['Config', ['limit:trading-switch'], 'updateConfig(bool,uint256) sets a trading switch'],
  ['TwoPowers', ['limit:blacklist', 'mint:mint'], 'mintToken and freezeAccount'],
  ['Status', ['limit:blacklist'], '`status[from] != 1`, set by setStatus(address,uint8)'],
  ['TransferMint', ['mint:mint'], "transfer()'s owner-only path credits without a debit"],
  ['HonestMint', [], 'a mint only the constructor reaches; `mint` paying from the reserve'],
  ['OwnerNoFee', [], "the owner's transfer skips the fee and still moves its own tokens"],
  ['HonestHolder', [], "freeze() of the caller's own tokens; burnFrom spending the allowance"],
  ['HonestNames', [], 'setBalance of points; lock and freezeAccount of entries transfer ignores'],
  [
    'VestRelease',
    [],
    'balanceOf adds a vesting entry read first; releases move the entry into the balances',
  ],
  [
    'VestSeize',
    ['leak:balance-change', 'mint:mint'],
    'the vesting token with a balance zeroed and an amount due credited from nowhere',
  ],
];

describe.each(BUILDS)('solc $version, optimizer $optimize', (build) => {
  let h: ReturnType<typeof capabilityHelpers>;
  // Compiled in a child process (test/support/solc.ts); a cold old solc is slow on a busy machine.
  beforeAll(async () => {
    h = capabilityHelpers(await compileLegacy(dialect(LEGACY_SOURCE, build.dialect), build));
  }, COMPILE_TIMEOUT_MS);

  it.each(EXPECTED)('%s: %j (%s)', (name, findings) => {
    expect(summary(h.analyse(name))).toEqual(findings);
  });

  it('names the guard as the code writes it: a packed owner, an admin mapping, a controller', () => {
    expect(detail(h.analyse('InlineMint'))).toMatch(
      /compares the caller with the address stored in slot 0x4 \(bits 8\.\.167\)/,
    );
    expect(detail(h.analyse('AdminGenerate'))).toContain('looks the caller up in a mapping');
    expect(detail(h.analyse('Destroy'))).toMatch(
      /compares the caller with the address stored in slot 0x3/,
    );
  });

  it('powers under any name are admin functions of their family, owner-only or role', () => {
    expect(h.admin('InlineMint')).toContain('mintToken(address,uint256) mint owner-only');
    expect(h.admin('AdminGenerate')).toContainEqual(
      expect.stringMatching(/^generateTokens\(address,uint256\) mint role$/),
    );
    expect(h.admin('Rewrite')).toContainEqual(
      expect.stringMatching(/^0x[0-9a-f]{8}\(address,uint256\) balance-change owner-only$/),
    );
    expect(h.admin('Config')).toContainEqual(
      expect.stringMatching(/\(bool,uint256\) trading-switch owner-only$/),
    );
  });

  it('names without the power are demoted: no flag from a name alone', () => {
    const names = h.admin('HonestNames');
    // lock(address) is in no catalog: with no effect it is not an admin function at all.
    for (const fn of ['setBalance(address,uint256)', 'freezeAccount(address,bool)'])
      expect(names.filter((a) => a.startsWith(fn))).toEqual([`${fn} other owner-only`]);
    expect(names.filter((a) => a.startsWith('lock('))).toEqual([]);
    expect(h.admin('HonestMint').filter((a) => a.startsWith('mint('))).toEqual([
      'mint(address,uint256) other owner-only',
    ]);
    for (const name of ['HonestMint', 'HonestHolder', 'HonestNames']) {
      const { hints } = h.flagsOf(name);
      expect(hints.is_mintable).toBe(false);
      expect(hints.owner_can_change_balance).toBe(false);
      expect(hints.can_blacklist).toBe(false);
      expect(hints.can_pause).toBe(false);
    }
  });

  it('level floor: one live power is at least medium, two kinds at least high', () => {
    for (const name of ['InlineMint', 'OwnerBurnFrom', 'Frozen', 'SellCap']) {
      const { assessment } = h.flagsOf(name, LIVE_OWNER);
      expect(assessment.score).toBeGreaterThanOrEqual(31);
      expect(['medium', 'high']).toContain(assessment.level);
    }
    const two = h.flagsOf('TwoPowers', LIVE_OWNER).assessment;
    expect(two.score).toBeGreaterThanOrEqual(61);
    expect(two.level).toBe('high');
  });

  it('a real renounce (owner() answers zero, no hidden owner) removes the owner-only powers', () => {
    for (const name of ['InlineMint', 'TwoPowers', 'Frozen']) {
      const live = h.flagsOf(name, LIVE_OWNER);
      const gone = h.flagsOf(name, ZERO_OWNER);
      expect(live.assessment.risk_factors.map((f) => f.code)).not.toContain('ownership-renounced');
      expect(gone.assessment.risk_factors.map((f) => f.code)).toContain('ownership-renounced');
      expect(gone.assessment.risk_factors.map((f) => f.code)).not.toContain('admin-powers');
      expect(gone.hints.is_mintable || gone.hints.can_blacklist).toBe(false);
      expect(gone.assessment.level).toBe('low');
    }
    // A role survives the renounce: the admin mapping still mints.
    const role = h.flagsOf('AdminGenerate', ZERO_OWNER);
    expect(role.hints.is_mintable).toBe(true);
    expect(role.assessment.score).toBeGreaterThanOrEqual(31);
  });
});
