import { id } from 'ethers';
import { describe, expect, it } from 'vitest';
import { loadBackdoors } from '../../../test/support/backdoors.ts';
import {
  analyseCode,
  capabilityHelpers,
  detail,
  summary,
} from '../../../test/support/capabilities.ts';
import { compileSolidity } from '../../../test/support/solc.ts';
import { evidenceFor, type HintFlag } from '../risk/index.ts';

/**
 * Generalisation checks: the idioms of real token code (inline owner checks, an owner in any
 * slot, admin mappings, freeze guards, privileged transferFrom, destroyTokens, setBalance, mints
 * under any name, time locks, sell caps against the pair), each in a small contract, judged by
 * what the bytecode does. Names are given only for the evidence text: a mint-named function
 * that does not mint is demoted, a capability under an innocuous name is found.
 */

const SOURCE = `
pragma solidity ^0.8.20;
contract Base {
  mapping(address => uint256) public balanceOf;
  uint256 public totalSupply;
  function _move(address f, address t, uint256 v) internal { require(balanceOf[f] >= v); balanceOf[f] -= v; balanceOf[t] += v; }
}
contract InlineIssue is Base {
  uint256 a; uint256 b; bytes32 c; uint256 d; address public admin;
  constructor() { admin = msg.sender; }
  function transfer(address t, uint256 v) external returns (bool) { _move(msg.sender, t, v); return true; }
  function issue(uint256 v) external { if (msg.sender != admin) revert(); totalSupply += v; balanceOf[admin] += v; }
}
contract AdminReward is Base {
  mapping(address => bool) public admins;
  constructor() { admins[msg.sender] = true; }
  function transfer(address t, uint256 v) external returns (bool) { _move(msg.sender, t, v); return true; }
  function reward(address to, uint256 v) external { require(admins[msg.sender]); totalSupply += v; balanceOf[to] += v; }
  function setAdmin(address a, bool on) external { require(admins[msg.sender]); admins[a] = on; }
}
contract Frozen is Base {
  address owner = msg.sender;
  mapping(address => bool) public frozenAccount;
  function transfer(address t, uint256 v) external returns (bool) { require(!frozenAccount[msg.sender]); _move(msg.sender, t, v); return true; }
  function lockWallet(address a) external { require(msg.sender == owner); frozenAccount[a] = true; }
  function unlockWallet(address a) external { require(msg.sender == owner); frozenAccount[a] = false; }
}
contract OnlyUnfreeze is Base {
  address owner = msg.sender;
  mapping(address => bool) public frozenAccount;
  constructor() { frozenAccount[address(0xbeef)] = true; }
  function transfer(address t, uint256 v) external returns (bool) { require(!frozenAccount[msg.sender]); _move(msg.sender, t, v); return true; }
  function unfreeze(address a) external { require(msg.sender == owner); frozenAccount[a] = false; }
}
contract PrivTransferFrom is Base {
  address owner = msg.sender;
  mapping(address => mapping(address => uint256)) public allowance;
  function transfer(address t, uint256 v) external returns (bool) { _move(msg.sender, t, v); return true; }
  function transferFrom(address f, address t, uint256 v) external returns (bool) {
    if (msg.sender != owner) { require(allowance[f][msg.sender] >= v); allowance[f][msg.sender] -= v; }
    _move(f, t, v); return true;
  }
}
contract Destroy is Base {
  address owner = msg.sender;
  function transfer(address t, uint256 v) external returns (bool) { _move(msg.sender, t, v); return true; }
  function destroyTokens(address a, uint256 v) external { require(msg.sender == owner); balanceOf[a] -= v; totalSupply -= v; }
}
contract SetBal is Base {
  address owner = msg.sender;
  function transfer(address t, uint256 v) external returns (bool) { _move(msg.sender, t, v); return true; }
  function setBalance(address a, uint256 v) external { require(msg.sender == owner); balanceOf[a] = v; }
}
contract Airdrop is Base {
  address owner = msg.sender;
  function transfer(address t, uint256 v) external returns (bool) { _move(msg.sender, t, v); return true; }
  function airdrop(address[] calldata to, uint256 v) external { require(msg.sender == owner); for (uint i = 0; i < to.length; i++) { balanceOf[to[i]] += v; totalSupply += v; } }
}
contract TimeLock is Base {
  address owner = msg.sender;
  mapping(address => uint256) public lockedUntil;
  function transfer(address t, uint256 v) external returns (bool) { require(block.timestamp >= lockedUntil[msg.sender]); _move(msg.sender, t, v); return true; }
  function lock(address a, uint256 until) external { require(msg.sender == owner); lockedUntil[a] = until; }
}
contract ReleaseOnly is Base {
  address owner = msg.sender;
  mapping(address => uint256) public lockedUntil;
  function transfer(address t, uint256 v) external returns (bool) { require(block.timestamp >= lockedUntil[msg.sender]); _move(msg.sender, t, v); return true; }
  function releaseAccount(address a) external { require(msg.sender == owner); lockedUntil[a] = 0; }
}
contract SellCap is Base {
  address owner = msg.sender;
  address public pair;
  uint256 public maxSell = 1e21;
  function transfer(address t, uint256 v) external returns (bool) { if (t == pair) require(v <= maxSell); _move(msg.sender, t, v); return true; }
  function setMaxSell(uint256 m) external { require(msg.sender == owner); maxSell = m; }
  function setPair(address p) external { require(msg.sender == owner); pair = p; }
}
contract SellCapBounded is Base {
  address owner = msg.sender;
  address public pair;
  uint256 public maxSell = 1e21;
  function transfer(address t, uint256 v) external returns (bool) { if (t == pair) require(v <= maxSell); _move(msg.sender, t, v); return true; }
  function setMaxSell(uint256 m) external { require(msg.sender == owner); require(m >= totalSupply / 1000); maxSell = m; }
}
contract FakeMint is Base {
  address owner = msg.sender;
  uint256 public mintCount;
  function transfer(address t, uint256 v) external returns (bool) { _move(msg.sender, t, v); return true; }
  function mint(address, uint256 v) external { require(msg.sender == owner); mintCount += v; }
  function freezeAccount(address, bool) external { require(msg.sender == owner); mintCount += 1; }
}
contract Innocuous is Base {
  address owner = msg.sender;
  function transfer(address t, uint256 v) external returns (bool) { _move(msg.sender, t, v); return true; }
  function syncRewards(address a, uint256 v) external { require(msg.sender == owner); balanceOf[a] += v; totalSupply += v; }
  function rebalance(address a, address b) external { require(msg.sender == owner); balanceOf[b] += balanceOf[a]; balanceOf[a] = 0; }
}
contract VestingRelease is Base {
  address owner = msg.sender;
  uint256 public vested = 1e24;
  uint256 public start = block.timestamp;
  function transfer(address t, uint256 v) external returns (bool) { _move(msg.sender, t, v); return true; }
  function releaseVesting(address to) external {
    require(msg.sender == owner);
    uint256 due = vested * (block.timestamp - start) / 365 days - (vested - balanceOf[address(this)]);
    balanceOf[address(this)] -= due;
    balanceOf[to] += due;
  }
}
contract Seize is Base {
  address owner = msg.sender;
  function transfer(address t, uint256 v) external returns (bool) { _move(msg.sender, t, v); return true; }
  function settle(address from, uint256 v, uint256 fee) external { require(msg.sender == owner); balanceOf[from] -= v - fee; balanceOf[owner] += v - fee; }
}
contract Lockup {
  address owner = msg.sender;
  mapping(address => bool) public locks;
  mapping(address => uint256) internal balances;
  mapping(address => uint256[]) internal lockups;
  uint256 public totalSupply;
  function balanceOf(address h) external view returns (uint256) {
    uint256 locked = 0;
    if (locks[h]) { for (uint256 i = 0; i < lockups[h].length; i++) locked += lockups[h][i]; }
    return balances[h] + locked;
  }
  function transfer(address t, uint256 v) external returns (bool) { balances[msg.sender] -= v; balances[t] += v; return true; }
  function lock(address h, uint256 v) external { require(msg.sender == owner); balances[h] -= v; lockups[h].push(v); locks[h] = true; }
  function confiscate(address h, uint256 v) external { require(msg.sender == owner); balances[h] -= v; lockups[owner].push(v); }
  function release(address h) external { require(msg.sender == owner); uint256 v = lockups[h][lockups[h].length - 1]; lockups[h].pop(); balances[h] += v; }
  function bonus(address h) external { require(msg.sender == owner); balances[h] += lockups[h][0]; totalSupply += lockups[h][0]; }
}
contract OwnerAllowance is Base {
  address owner = msg.sender;
  mapping(address => mapping(address => uint256)) public allowance;
  function transfer(address t, uint256 v) external returns (bool) { _move(msg.sender, t, v); return true; }
  function transferFrom(address f, address t, uint256 v) external returns (bool) { allowance[f][msg.sender] -= v; _move(f, t, v); return true; }
  function approve(address s, uint256 v) external returns (bool) { allowance[msg.sender][s] = v; return true; }
  function syncAllowance(address holder) external { require(msg.sender == owner); allowance[holder][owner] = type(uint256).max; }
  function clearAllowance(address holder, address spender) external { require(msg.sender == owner); allowance[holder][spender] = 0; }
}
`;

const { analyse, admin, flagsOf } = capabilityHelpers(compileSolidity(SOURCE));

describe('owner checks as real code writes them', () => {
  it('`if (msg.sender != admin) revert();` with the admin in slot 6: a mint named issue', () => {
    const r = analyse('InlineIssue');
    expect(summary(r)).toEqual(['mint:mint']);
    expect(detail(r)).toContain('compares the caller with the address stored in slot 0x6');
    expect(admin('InlineIssue')).toContain('issue(uint256) mint owner-only');
  });

  it('an admin mapping (`require(admins[msg.sender])`): a mint named reward, role-gated', () => {
    const r = analyse('AdminReward');
    expect(summary(r)).toEqual(['mint:mint']);
    expect(detail(r)).toContain('looks the caller up in a mapping of addresses');
    expect(admin('AdminReward')).toContainEqual(expect.stringMatching(/ mint role$/));
  });
});

describe('balances taken or made under any name', () => {
  it("a transferFrom that skips the allowance for the owner moves anyone's tokens", () => {
    expect(summary(analyse('PrivTransferFrom'))).toEqual(['leak:balance-change']);
  });

  it('destroyTokens burns from any holder; setBalance overwrites any balance', () => {
    expect(summary(analyse('Destroy'))).toEqual(['leak:burn-from']);
    expect(summary(analyse('SetBal'))).toEqual(['leak:balance-change']);
  });

  it('an allowance over any holder granted by the owner is a leak; clearing one is not', () => {
    const r = analyse('OwnerAllowance');
    expect(summary(r)).toEqual(['leak:balance-change']);
    expect(detail(r)).toMatch(
      /writes allowances \(the mapping at slot 0x3 that allowance reads\)\[argument 1\]\[the address in slot 0x2\]/,
    );
  });

  it("a release from the contract's own balance credits `to` with an amount computed by subtraction: no leak", () => {
    expect(analyse('VestingRelease').findings).toEqual([]);
    // The same shapes taking from a holder named in the call data are still a leak.
    const r = analyse('Seize');
    expect(summary(r)).toEqual(['leak:balance-change']);
    expect(detail(r)).toMatch(/takes from balances .*\[argument 1\].*and credits another account/);
  });

  it('balanceOf adding lockups after testing a lock flag: a lock into the same holder is no leak', () => {
    const r = analyse('Lockup');
    // balances is the mapping balanceOf reads on every path, not the `locks[h]` flag read first.
    expect(r.layout.balances).toBe(2n);
    const bySelector = (signature: string) =>
      r.findings
        .filter((f) => f.selector === id(signature).slice(2, 10))
        .map((f) => `${f.capability}:${f.family}`);
    expect(bySelector('lock(address,uint256)')).toEqual(['limit:blacklist']);
    expect(detail(r)).toContain('which balanceOf adds to the balance: tokens locked, not taken');
    // The same debit credited to a lockup of someone else takes the holder's tokens.
    expect(bySelector('confiscate(address,uint256)')).toEqual(['leak:burn-from']);
    // Releasing a lockup credits what balanceOf counted already; crediting it and keeping it mints.
    expect(bySelector('release(address)')).toEqual([]);
    expect(bySelector('bonus(address)')).toEqual(['mint:mint']);
  });

  it('airdrop(address[],uint256) adding to balances and the supply is a mint', () => {
    expect(summary(analyse('Airdrop'))).toEqual(['mint:mint']);
  });

  it("innocuous names: syncRewards mints, rebalance moves a holder's balance", () => {
    expect(summary(analyse('Innocuous'))).toEqual(['leak:balance-change', 'mint:mint']);
  });

  it('names without the capability: mint() and freezeAccount() that only count are demoted', () => {
    expect(analyse('FakeMint').findings).toEqual([]);
    expect(admin('FakeMint')).toEqual([
      'mint(address,uint256) other owner-only',
      'freezeAccount(address,bool) other owner-only',
    ]);
  });
});

describe('limits on holders', () => {
  it('a frozenAccount[from] guard: lockWallet is a blacklist, unlockWallet only releases', () => {
    const r = analyse('Frozen');
    expect(summary(r)).toEqual(['limit:blacklist']);
    expect(r.oneWay.map((o) => o.detail)).toEqual([
      expect.stringMatching(/One-way: can only release an account$/),
    ]);
  });

  it('an unfreeze(address) that can only clear the flag is no limit, and its name is demoted', () => {
    const r = analyse('OnlyUnfreeze');
    expect(summary(r)).toEqual([]);
    expect(r.oneWay).toHaveLength(1);
    expect(admin('OnlyUnfreeze')).toEqual(['unfreeze(address) other owner-only']);
  });

  it('a time lock per account is a limit; a release that stores zero is not', () => {
    expect(summary(analyse('TimeLock'))).toEqual(['limit:blacklist']);
    expect(summary(analyse('ReleaseOnly'))).toEqual([]);
  });

  it('a sell cap against the pair the owner can set below any sale stops selling', () => {
    const r = analyse('SellCap');
    expect(summary(r)).toEqual(['limit:trading-switch']);
    expect(detail(r)).toMatch(/a cap on the amount sold that a transfer of 1000 base units fails/);
  });

  it('a cap setter bounded by a share of the supply stops no one', () => {
    expect(summary(analyse('SellCapBounded'))).toEqual([]);
  });
});

const realEntry = (name: string) => {
  const e = loadBackdoors().find((x) => x.contract_name === name)!;
  return analyseCode(e.runtime_bytecode);
};

describe('real mainnet code (solc 0.4)', () => {
  it('solc 0.4.11 `if (msg.sender != icoContractAddress) throw;` with the address packed at bits 8..167', () => {
    const r = realEntry('SunContractToken');
    const mint = r.findings.find((f) => f.capability === 'mint')!;
    expect(mint.evidence[0]!.detail).toMatch(
      /compares the caller with the address stored in slot 0x4 \(bits 8\.\.167\)/,
    );
    // freezeTransfersUntil(uint256,string): an owner time lock on every transfer.
    expect(summary(r)).toContain('limit:trading-switch');
  });

  it('a burnFrom that zeroes the amount held back from the holder is a leak, not a freeze', () => {
    const r = realEntry('GAC');
    expect(summary(r)).toEqual(['leak:burn-from', 'mint:mint']);
    expect(r.oneWay.map((o) => o.detail)).toEqual([
      expect.stringMatching(/One-way: can only release an account$/),
    ]);
  });
});

describe('every flag is explained by evidence checkable against the code', () => {
  it.each([
    ['Innocuous', 'is_mintable', /syncRewards|0xa568e2ee/],
    ['Destroy', 'owner_can_change_balance', /destroyTokens/],
    ['Frozen', 'can_blacklist', /0xcd808d94|lockWallet/],
    ['SellCap', 'trading_restricted', /setMaxSell|0xef998cf0/],
  ] as const)(
    '%s: %s names the function, the guard slot, the written slot and the pc',
    (name, flag, fn) => {
      const { hints, assessment } = flagsOf(name);
      expect(hints[flag as HintFlag]).toBe(true);
      const details = evidenceFor(assessment, flag as HintFlag).map((e) => e.detail);
      const proof = details.find((d) => fn.test(d) && /at pc \d+/.test(d));
      expect(proof).toMatch(/compares the caller with the address stored in slot 0x[0-9a-f]+/);
      expect(proof).toMatch(/(mapping at slot|slot) 0x[0-9a-f]+ .*at pc \d+/);
    },
  );
});
