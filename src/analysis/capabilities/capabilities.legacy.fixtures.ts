/**
 * Token idioms as Solidity 0.4–0.6 wrote them, for capabilities.legacy.test.ts. One source in
 * the subset the three dialects share, with three markers `dialect()` fills in: `THROW` (0.4's
 * `throw`, `revert()` after), `CONSTRUCTOR(Name)` (0.4.18 knows only the named constructor) and
 * `MEMORY` (0.5 needs a data location on array parameters). Each contract says in a comment what
 * the code can do, whatever its functions are called; the test asserts exactly that.
 */

export type Dialect = '0.4' | '0.5';

export function dialect(source: string, d: Dialect): string {
  const pragma = d === '0.4' ? 'pragma solidity ^0.4.18;' : 'pragma solidity >=0.5.0 <0.7.0;';
  return `${pragma}\n${source}`
    .replaceAll('THROW', d === '0.4' ? 'throw' : 'revert()')
    .replace(/CONSTRUCTOR\((\w+)\)/g, d === '0.4' ? 'function $1()' : 'constructor()')
    .replaceAll(' MEMORY', d === '0.4' ? '' : ' memory');
}

export const LEGACY_SOURCE = `
contract Base {
  mapping(address => uint256) public balanceOf;
  uint256 public totalSupply;
  function _move(address f, address t, uint256 v) internal { require(balanceOf[f] >= v); balanceOf[f] -= v; balanceOf[t] += v; }
}
contract Owned {
  address public owner;
  modifier onlyOwner { require(msg.sender == owner); _; }
  CONSTRUCTOR(Owned) public { owner = msg.sender; }
}
// mint: an inline 0.4 owner check, the owner packed with decimals and a flag in slot 4.
contract InlineMint is Base {
  string public name = "Inline"; string public symbol = "INL";
  uint8 public decimals = 18; address public owner = msg.sender; bool public live = true;
  function transfer(address t, uint256 v) public returns (bool) { _move(msg.sender, t, v); return true; }
  function mintToken(address t, uint256 v) public { if (msg.sender != owner) THROW; balanceOf[t] += v; totalSupply += v; }
}
// mint: an admin mapping; decimals declared uint256, no name or symbol.
contract AdminGenerate is Base {
  uint256 public decimals = 18;
  mapping(address => bool) public admins;
  CONSTRUCTOR(AdminGenerate) public { admins[msg.sender] = true; }
  function transfer(address t, uint256 v) public returns (bool) { _move(msg.sender, t, v); return true; }
  function generateTokens(address t, uint256 v) public returns (bool) { require(admins[msg.sender]); totalSupply = totalSupply + v; balanceOf[t] = balanceOf[t] + v; return true; }
}
// mint twice, through a modifier (owner in slot 2), no decimals, name or symbol at all.
contract IssueReward is Base, Owned {
  function transfer(address t, uint256 v) public returns (bool) { _move(msg.sender, t, v); return true; }
  function issue(uint256 v) public onlyOwner { balanceOf[owner] += v; totalSupply += v; }
  function reward(address t, uint256 v) public onlyOwner { balanceOf[t] += v; totalSupply += v; }
}
// mint: an airdrop loop with arithmetic on the supply.
contract Airdrop is Base, Owned {
  function transfer(address t, uint256 v) public returns (bool) { _move(msg.sender, t, v); return true; }
  function airdrop(address[] MEMORY to, uint256 v) public onlyOwner {
    for (uint256 i = 0; i < to.length; i++) balanceOf[to[i]] += v;
    totalSupply += v * to.length;
  }
}
// leak: transferFrom skips the allowance for the owner.
contract OwnerTransferFrom is Base, Owned {
  mapping(address => mapping(address => uint256)) public allowance;
  function transfer(address t, uint256 v) public returns (bool) { _move(msg.sender, t, v); return true; }
  function transferFrom(address f, address t, uint256 v) public returns (bool) {
    if (msg.sender != owner) { require(allowance[f][msg.sender] >= v); allowance[f][msg.sender] -= v; }
    _move(f, t, v); return true;
  }
}
// leak: burnFrom by the owner without an allowance.
contract OwnerBurnFrom is Base, Owned {
  function transfer(address t, uint256 v) public returns (bool) { _move(msg.sender, t, v); return true; }
  function burnFrom(address f, uint256 v) public onlyOwner returns (bool) { require(balanceOf[f] >= v); balanceOf[f] -= v; totalSupply -= v; return true; }
}
// leak: destroyTokens behind a controller in slot 3, inline check.
contract Destroy is Base {
  uint256 public created = now; address public controller = msg.sender;
  function transfer(address t, uint256 v) public returns (bool) { _move(msg.sender, t, v); return true; }
  function destroyTokens(address a, uint256 v) public returns (bool) { if (msg.sender != controller) THROW; balanceOf[a] -= v; totalSupply -= v; return true; }
}
// leak twice: setBalance, and sync(address,uint256) that rewrites a balance under an innocuous name.
contract Rewrite is Base, Owned {
  function transfer(address t, uint256 v) public returns (bool) { _move(msg.sender, t, v); return true; }
  function setBalance(address a, uint256 v) public onlyOwner { balanceOf[a] = v; }
  function sync(address a, uint256 v) public onlyOwner { balanceOf[a] = v; }
}
// limit: frozenAccount[from] read inside transfer and transferFrom.
contract Frozen is Base, Owned {
  mapping(address => bool) public frozenAccount;
  mapping(address => mapping(address => uint256)) public allowance;
  function transfer(address t, uint256 v) public returns (bool) { require(!frozenAccount[msg.sender]); _move(msg.sender, t, v); return true; }
  function transferFrom(address f, address t, uint256 v) public returns (bool) {
    require(!frozenAccount[f]); require(allowance[f][msg.sender] >= v); allowance[f][msg.sender] -= v; _move(f, t, v); return true;
  }
  function freezeAccount(address a, bool f) public onlyOwner { frozenAccount[a] = f; }
}
// limit: setTransferable(bool), the flag packed beside the owner; the owner is exempt.
contract Transferable is Base, Owned {
  bool public transferable;
  function transfer(address t, uint256 v) public returns (bool) { require(transferable || msg.sender == owner); _move(msg.sender, t, v); return true; }
  function setTransferable(bool b) public onlyOwner { transferable = b; }
}
// limit (pause): lock() sets a flag every transfer throws on; unlock() only opens.
contract LockAll is Base, Owned {
  bool public locked;
  function transfer(address t, uint256 v) public returns (bool) { if (locked) THROW; _move(msg.sender, t, v); return true; }
  function lock() public onlyOwner { locked = true; }
  function unlock() public onlyOwner { locked = false; }
}
// limit (pause): a whenNotPaused modifier.
contract Paused is Base, Owned {
  bool public paused;
  modifier whenNotPaused { require(!paused); _; }
  function transfer(address t, uint256 v) public whenNotPaused returns (bool) { _move(msg.sender, t, v); return true; }
  function pause() public onlyOwner { paused = true; }
  function unpause() public onlyOwner { paused = false; }
}
// limit: a time lock on every transfer that the owner can move.
contract TimeLock is Base, Owned {
  uint256 public unlockTime;
  function transfer(address t, uint256 v) public returns (bool) { require(now > unlockTime); _move(msg.sender, t, v); return true; }
  function setUnlockTime(uint256 when) public onlyOwner { unlockTime = when; }
}
// limit: a per-account time lock.
contract AccountLock is Base, Owned {
  mapping(address => uint256) public lockedUntil;
  function transfer(address t, uint256 v) public returns (bool) { require(now >= lockedUntil[msg.sender]); _move(msg.sender, t, v); return true; }
  function lockUntil(address a, uint256 when) public onlyOwner { lockedUntil[a] = when; }
}
// limit: a sell cap against the pair.
contract SellCap is Base, Owned {
  address public pair; uint256 public maxSell = 10 ** 21;
  function transfer(address t, uint256 v) public returns (bool) { if (t == pair) require(v <= maxSell); _move(msg.sender, t, v); return true; }
  function setMaxSell(uint256 m) public onlyOwner { maxSell = m; }
  function setPair(address p) public onlyOwner { pair = p; }
}
// limit: a trading switch set by updateConfig beside a harmless number.
contract Config is Base, Owned {
  bool public tradingOpen; uint256 public rewardRate;
  function transfer(address t, uint256 v) public returns (bool) { require(tradingOpen || msg.sender == owner); _move(msg.sender, t, v); return true; }
  function updateConfig(bool open, uint256 rate) public onlyOwner { tradingOpen = open; rewardRate = rate; }
}
// mint and limit: two kinds of power.
contract TwoPowers is Base, Owned {
  mapping(address => bool) public frozenAccount;
  function transfer(address t, uint256 v) public returns (bool) { require(!frozenAccount[msg.sender]); _move(msg.sender, t, v); return true; }
  function mintToken(address t, uint256 v) public onlyOwner { balanceOf[t] += v; totalSupply += v; }
  function freezeAccount(address a, bool f) public onlyOwner { frozenAccount[a] = f; }
}
// nothing: a mint only the constructor reaches, and a mint that pays from the owner's reserve.
contract HonestMint is Base, Owned {
  CONSTRUCTOR(HonestMint) public { _mint(msg.sender, 10 ** 24); }
  function _mint(address t, uint256 v) internal { balanceOf[t] += v; totalSupply += v; }
  function transfer(address t, uint256 v) public returns (bool) { _move(msg.sender, t, v); return true; }
  function mint(address t, uint256 v) public onlyOwner { _move(owner, t, v); }
}
// nothing: freeze() freezes the caller's own tokens; burnFrom spends the allowance even for the owner.
contract HonestHolder is Base, Owned {
  mapping(address => uint256) public frozenOf;
  mapping(address => mapping(address => uint256)) public allowance;
  function transfer(address t, uint256 v) public returns (bool) { require(balanceOf[msg.sender] - frozenOf[msg.sender] >= v); _move(msg.sender, t, v); return true; }
  function freeze(uint256 v) public { require(balanceOf[msg.sender] >= v); frozenOf[msg.sender] = v; }
  function burnFrom(address f, uint256 v) public onlyOwner returns (bool) {
    require(allowance[f][msg.sender] >= v); allowance[f][msg.sender] -= v; balanceOf[f] -= v; totalSupply -= v; return true;
  }
}
// nothing: setBalance on an unrelated mapping, lock/freezeAccount on entries transfer never reads.
contract HonestNames is Base, Owned {
  mapping(address => uint256) public points;
  mapping(address => bool) public lockedList;
  mapping(address => bool) public frozenAccount;
  function transfer(address t, uint256 v) public returns (bool) { _move(msg.sender, t, v); return true; }
  function setBalance(address a, uint256 v) public onlyOwner { points[a] = v; }
  function lock(address a) public onlyOwner { lockedList[a] = true; }
  function freezeAccount(address a, bool f) public onlyOwner { frozenAccount[a] = f; }
}
// mint hidden in transfer: the owner's transfer credits without debiting anyone.
contract TransferMint is Base, Owned {
  function transfer(address t, uint256 v) public returns (bool) {
    if (msg.sender == owner) { balanceOf[t] += v; totalSupply += v; return true; }
    _move(msg.sender, t, v); return true;
  }
}
// nothing: the owner's transfer skips the fee, and still moves its own tokens.
contract OwnerNoFee is Base, Owned {
  address public feeWallet;
  function transfer(address t, uint256 v) public returns (bool) {
    if (msg.sender == owner) { _move(msg.sender, t, v); return true; }
    _move(msg.sender, feeWallet, v / 100); _move(msg.sender, t, v - v / 100); return true;
  }
}
// limit: a uint8 status per account (1 = frozen), set from a uint8 argument.
contract Status is Base, Owned {
  mapping(address => uint8) public status;
  function transfer(address t, uint256 v) public returns (bool) { require(status[msg.sender] != 1); _move(msg.sender, t, v); return true; }
  function setStatus(address a, uint8 s) public onlyOwner { status[a] = s; }
}
`;
