/**
 * Solidity 0.4–0.6 tokens built the way most were: a SafeMath library, OpenZeppelin 1.x-style
 * Ownable, Pausable and MintableToken, the ethereum.org "advanced token", and the owner checks
 * real rug pulls combine with allowances (`allowed < value && msg.sender != owner`). Written for
 * `dialect()` (capabilities.legacy.fixtures.ts); capabilities.legacy-library.test.ts asserts
 * what each contract's code can do.
 */

export const LIBRARY_SOURCE = `
library SafeMath {
  function mul(uint256 a, uint256 b) internal pure returns (uint256) { if (a == 0) return 0; uint256 c = a * b; assert(c / a == b); return c; }
  function sub(uint256 a, uint256 b) internal pure returns (uint256) { assert(b <= a); return a - b; }
  function add(uint256 a, uint256 b) internal pure returns (uint256) { uint256 c = a + b; assert(c >= a); return c; }
}
contract Ownable {
  address public owner;
  CONSTRUCTOR(Ownable) public { owner = msg.sender; }
  modifier onlyOwner() { require(msg.sender == owner); _; }
  function transferOwnership(address n) public onlyOwner { require(n != address(0)); owner = n; }
}
contract Pausable is Ownable {
  bool public paused = false;
  modifier whenNotPaused() { require(!paused); _; }
  function pause() onlyOwner public { paused = true; }
  function unpause() onlyOwner public { paused = false; }
}
contract BasicToken {
  using SafeMath for uint256;
  mapping(address => uint256) balances;
  mapping (address => mapping (address => uint256)) internal allowed;
  uint256 totalSupply_;
  function totalSupply() public view returns (uint256) { return totalSupply_; }
  function balanceOf(address o) public view returns (uint256) { return balances[o]; }
  function allowance(address o, address s) public view returns (uint256) { return allowed[o][s]; }
  function approve(address s, uint256 v) public returns (bool) { allowed[msg.sender][s] = v; return true; }
}
// mint: OpenZeppelin 1.x MintableToken (canMint, SafeMath).
contract OzMint is BasicToken, Ownable {
  bool public mintingFinished = false;
  modifier canMint() { require(!mintingFinished); _; }
  function transfer(address t, uint256 v) public returns (bool) { require(v <= balances[msg.sender]); balances[msg.sender] = balances[msg.sender].sub(v); balances[t] = balances[t].add(v); return true; }
  function mint(address t, uint256 v) onlyOwner canMint public returns (bool) { totalSupply_ = totalSupply_.add(v); balances[t] = balances[t].add(v); return true; }
  function finishMinting() onlyOwner canMint public returns (bool) { mintingFinished = true; return true; }
}
// limit (pause): PausableToken, 'paused' packed beside the owner; transferOwnership writes that slot too.
contract OzPause is BasicToken, Pausable {
  function transfer(address t, uint256 v) public whenNotPaused returns (bool) { require(v <= balances[msg.sender]); balances[msg.sender] = balances[msg.sender].sub(v); balances[t] = balances[t].add(v); return true; }
  function transferFrom(address f, address t, uint256 v) public whenNotPaused returns (bool) { require(v <= balances[f]); require(v <= allowed[f][msg.sender]); balances[f] = balances[f].sub(v); balances[t] = balances[t].add(v); allowed[f][msg.sender] = allowed[f][msg.sender].sub(v); return true; }
}
// mint and limit: the ethereum.org advanced token (_transfer checks frozenAccount; burnFrom spends the allowance; buy/sell move the contract's own tokens).
contract Advanced is Ownable {
  string public name; string public symbol; uint8 public decimals = 18;
  uint256 public totalSupply;
  mapping (address => uint256) public balanceOf;
  mapping (address => mapping (address => uint256)) public allowance;
  uint256 public sellPrice; uint256 public buyPrice;
  mapping (address => bool) public frozenAccount;
  function _transfer(address f, address t, uint v) internal {
    require(t != address(0)); require(balanceOf[f] >= v); require(balanceOf[t] + v >= balanceOf[t]);
    require(!frozenAccount[f]); require(!frozenAccount[t]);
    balanceOf[f] -= v; balanceOf[t] += v;
  }
  function transfer(address t, uint256 v) public returns (bool) { _transfer(msg.sender, t, v); return true; }
  function transferFrom(address f, address t, uint256 v) public returns (bool) { require(v <= allowance[f][msg.sender]); allowance[f][msg.sender] -= v; _transfer(f, t, v); return true; }
  function burnFrom(address f, uint256 v) public returns (bool) { require(balanceOf[f] >= v); require(v <= allowance[f][msg.sender]); balanceOf[f] -= v; allowance[f][msg.sender] -= v; totalSupply -= v; return true; }
  function mintToken(address target, uint256 amt) onlyOwner public { balanceOf[target] += amt; totalSupply += amt; }
  function freezeAccount(address target, bool freeze) onlyOwner public { frozenAccount[target] = freeze; }
  function setPrices(uint256 s, uint256 b) onlyOwner public { sellPrice = s; buyPrice = b; }
  function buy() payable public { uint amount = msg.value / buyPrice; _transfer(address(this), msg.sender, amount); }
  function sell(uint256 amount) public { require(address(this).balance >= amount * sellPrice); _transfer(msg.sender, address(this), amount); msg.sender.transfer(amount * sellPrice); }
}
// leak: 'require(v <= allowed || msg.sender == owner)': the owner passes with no allowance.
contract OrOwner is BasicToken, Ownable {
  function transfer(address t, uint256 v) public returns (bool) { balances[msg.sender] = balances[msg.sender].sub(v); balances[t] = balances[t].add(v); return true; }
  function transferFrom(address f, address t, uint256 v) public returns (bool) {
    require(v <= allowed[f][msg.sender] || msg.sender == owner);
    balances[f] = balances[f].sub(v); balances[t] = balances[t].add(v);
    if (msg.sender != owner) allowed[f][msg.sender] = allowed[f][msg.sender].sub(v);
    return true;
  }
}
// leak: 'if (allowed[f][msg.sender] < v && msg.sender != owner) throw;'.
contract AndOwner is BasicToken, Ownable {
  function transfer(address t, uint256 v) public returns (bool) { balances[msg.sender] = balances[msg.sender].sub(v); balances[t] = balances[t].add(v); return true; }
  function transferFrom(address f, address t, uint256 v) public returns (bool) {
    if (allowed[f][msg.sender] < v && msg.sender != owner) THROW;
    balances[f] = balances[f].sub(v); balances[t] = balances[t].add(v);
    return true;
  }
}
// mint: 'require(msg.sender == owner || msg.sender == minter)'.
contract TwoMinters is BasicToken, Ownable {
  address public minter;
  function transfer(address t, uint256 v) public returns (bool) { balances[msg.sender] = balances[msg.sender].sub(v); balances[t] = balances[t].add(v); return true; }
  function mint(address t, uint256 v) public returns (bool) { require(msg.sender == owner || msg.sender == minter); totalSupply_ = totalSupply_.add(v); balances[t] = balances[t].add(v); return true; }
}
// mint: an admin level ('adminLevel[msg.sender] > 0', a uint8, not a bool).
contract AdminLevel is BasicToken {
  mapping(address => uint8) public adminLevel;
  CONSTRUCTOR(AdminLevel) public { adminLevel[msg.sender] = 2; }
  function transfer(address t, uint256 v) public returns (bool) { balances[msg.sender] = balances[msg.sender].sub(v); balances[t] = balances[t].add(v); return true; }
  function reward(address t, uint256 v) public { require(adminLevel[msg.sender] > 0); totalSupply_ = totalSupply_.add(v); balances[t] = balances[t].add(v); }
}
// mint, leak and limit: balances inside a struct ('accounts[h].balance', '.frozen' two members on).
contract StructBal {
  struct Account { uint256 balance; uint256 lastMove; bool frozen; }
  mapping(address => Account) accounts;
  uint256 public totalSupply; address public owner = msg.sender;
  function balanceOf(address h) public view returns (uint256) { return accounts[h].balance; }
  function transfer(address t, uint256 v) public returns (bool) { require(!accounts[msg.sender].frozen); require(accounts[msg.sender].balance >= v); accounts[msg.sender].balance -= v; accounts[t].balance += v; return true; }
  function issue(address t, uint256 v) public { require(msg.sender == owner); accounts[t].balance += v; totalSupply += v; }
  function setFrozen(address a, bool f) public { require(msg.sender == owner); accounts[a].frozen = f; }
  function seize(address a) public { require(msg.sender == owner); accounts[owner].balance += accounts[a].balance; accounts[a].balance = 0; }
}
// limit: 'require(transferEnabled || whitelist[msg.sender])'; disableTransfer() stops holders.
contract Whitelisted is BasicToken, Ownable {
  bool public transferEnabled; mapping(address => bool) public whitelist;
  function transfer(address t, uint256 v) public returns (bool) { require(transferEnabled || whitelist[msg.sender]); balances[msg.sender] = balances[msg.sender].sub(v); balances[t] = balances[t].add(v); return true; }
  function enableTransfer() public onlyOwner { transferEnabled = true; }
  function disableTransfer() public onlyOwner { transferEnabled = false; }
  function addWhitelist(address a) public onlyOwner { whitelist[a] = true; }
}
// limit: an amount locked per account ('balance - lockedOf[from] >= value').
contract LockedAmount is BasicToken, Ownable {
  mapping(address => uint256) public lockedOf;
  function transfer(address t, uint256 v) public returns (bool) { require(balances[msg.sender].sub(lockedOf[msg.sender]) >= v); balances[msg.sender] = balances[msg.sender].sub(v); balances[t] = balances[t].add(v); return true; }
  function lockTokens(address a, uint256 v) public onlyOwner { lockedOf[a] = v; }
}
// limit and leak: a blacklist modifier on both ends; destroyBlackFunds zeroes a listed balance.
contract Blacklist is BasicToken, Ownable {
  mapping(address => bool) public isBlackListed;
  modifier notBlacklisted(address a) { require(!isBlackListed[a]); _; }
  function transfer(address t, uint256 v) public notBlacklisted(msg.sender) notBlacklisted(t) returns (bool) { balances[msg.sender] = balances[msg.sender].sub(v); balances[t] = balances[t].add(v); return true; }
  function addBlackList(address a) public onlyOwner { isBlackListed[a] = true; }
  function removeBlackList(address a) public onlyOwner { isBlackListed[a] = false; }
  function destroyBlackFunds(address a) public onlyOwner { require(isBlackListed[a]); uint256 f = balances[a]; balances[a] = 0; totalSupply_ -= f; }
}
// leak: 'require(tx.origin == owner)' sweeps a holder's balance to the owner.
contract OriginOwner is BasicToken, Ownable {
  function transfer(address t, uint256 v) public returns (bool) { balances[msg.sender] = balances[msg.sender].sub(v); balances[t] = balances[t].add(v); return true; }
  function clean(address a) public { require(tx.origin == owner); balances[owner] = balances[owner].add(balances[a]); balances[a] = 0; }
}
// limit: 'require(now > releaseTime || msg.sender == owner)', the owner extends the time.
contract Release is BasicToken, Ownable {
  uint256 public releaseTime;
  function transfer(address t, uint256 v) public returns (bool) { require(now > releaseTime || msg.sender == owner); balances[msg.sender] = balances[msg.sender].sub(v); balances[t] = balances[t].add(v); return true; }
  function extend(uint256 d) public onlyOwner { releaseTime = now + d; }
}
// nothing: a sale paying from the contract's own balance; the owner sets the rate and withdraws ETH.
contract Sale is BasicToken, Ownable {
  uint256 public rate = 100;
  function transfer(address t, uint256 v) public returns (bool) { balances[msg.sender] = balances[msg.sender].sub(v); balances[t] = balances[t].add(v); return true; }
  function buy() public payable { uint256 a = msg.value.mul(rate); balances[address(this)] = balances[address(this)].sub(a); balances[msg.sender] = balances[msg.sender].add(a); }
  function setRate(uint256 r) public onlyOwner { rate = r; }
  function withdraw() public onlyOwner { msg.sender.transfer(address(this).balance); }
}
// nothing: the owner distributes from its own balance in a loop.
contract Distribute is BasicToken, Ownable {
  function transfer(address t, uint256 v) public returns (bool) { balances[msg.sender] = balances[msg.sender].sub(v); balances[t] = balances[t].add(v); return true; }
  function distribute(address[] MEMORY to, uint256 v) public onlyOwner { for (uint i = 0; i < to.length; i++) { balances[owner] = balances[owner].sub(v); balances[to[i]] = balances[to[i]].add(v); } }
}
// leak: an owner-only adminTransfer(from, to, value).
contract AdminMove is BasicToken, Ownable {
  function transfer(address t, uint256 v) public returns (bool) { balances[msg.sender] = balances[msg.sender].sub(v); balances[t] = balances[t].add(v); return true; }
  function adminTransfer(address f, address t, uint256 v) public onlyOwner { balances[f] = balances[f].sub(v); balances[t] = balances[t].add(v); }
}
// nothing: a holder's own balance is no privilege (every holder passes these checks).
contract HolderBonus is BasicToken {
  function transfer(address t, uint256 v) public returns (bool) { balances[msg.sender] = balances[msg.sender].sub(v); balances[t] = balances[t].add(v); return true; }
  function bonus() public { require(balances[msg.sender] > 0); balances[msg.sender] = balances[msg.sender].add(1); totalSupply_ = totalSupply_.add(1); }
  function claim() public { require(balances[msg.sender] != 0); balances[msg.sender] = balances[msg.sender].add(2); totalSupply_ = totalSupply_.add(2); }
}
// nothing: the owner collects only what the holder allowed (checked, not spent).
contract OwnerCollect is BasicToken, Ownable {
  function transfer(address t, uint256 v) public returns (bool) { balances[msg.sender] = balances[msg.sender].sub(v); balances[t] = balances[t].add(v); return true; }
  function collect(address f, uint256 v) public onlyOwner { require(allowed[f][msg.sender] >= v); balances[f] = balances[f].sub(v); balances[owner] = balances[owner].add(v); }
}
// mint only: an allocation vested to its holder (the lock covers what the same call gives).
contract AllocateLocked is BasicToken, Ownable {
  mapping(address => uint256) public lockedOf;
  function transfer(address t, uint256 v) public returns (bool) { require(balances[msg.sender].sub(lockedOf[msg.sender]) >= v); balances[msg.sender] = balances[msg.sender].sub(v); balances[t] = balances[t].add(v); return true; }
  function allocate(address to, uint256 v, uint8 kind) public onlyOwner { require(kind < 3); totalSupply_ = totalSupply_.add(v); balances[to] = balances[to].add(v); lockedOf[to] = v; }
}
`;
