/**
 * Tokens written the way 2020-2023 rug pulls are (an OpenZeppelin-style ERC20 with `_balances`,
 * `_msgSender()`, an Ownable with a private owner and revert reasons, SafeMath as 0.6 code has it):
 * mints under innocuous names, the gates scam authors use (a hard-coded address, `tx.origin`, a
 * fee-exemption or operator mapping, a second "marketing" wallet, a hash of the caller), owner
 * burns, balance rewrites, a transferFrom that skips the allowance for privileged callers, an
 * allowance set for a holder, a "rescue" of a holder's tokens, reflection variants; and the honest
 * twins (capped mint, constructor mint, burn of own tokens, burnFrom spending the allowance, a
 * payout from the contract's own balance, a rescue of another token). One source that 0.6.12 and
 * 0.8 both compile; capabilities.modern.test.ts asserts what each contract can do.
 */

/** The hard-coded "dev" wallet of `HardcodedDev`: a constant in the code, not storage. */
export const HARDCODED_DEV = '0x5B38Da6a701c568545dCfcB03FcB875f56beddC4';

export const MODERN_SOURCE = `pragma solidity >=0.6.12 <0.9.0;

library SafeMath {
  function add(uint256 a, uint256 b) internal pure returns (uint256) { uint256 c = a + b; require(c >= a, "SafeMath: addition overflow"); return c; }
  function sub(uint256 a, uint256 b) internal pure returns (uint256) { return sub(a, b, "SafeMath: subtraction overflow"); }
  function sub(uint256 a, uint256 b, string memory m) internal pure returns (uint256) { require(b <= a, m); return a - b; }
  function mul(uint256 a, uint256 b) internal pure returns (uint256) { if (a == 0) return 0; uint256 c = a * b; require(c / a == b, "SafeMath: multiplication overflow"); return c; }
  function div(uint256 a, uint256 b) internal pure returns (uint256) { require(b > 0, "SafeMath: division by zero"); return a / b; }
}
interface IERC20 { function transfer(address to, uint256 v) external returns (bool); }
abstract contract Context { function _msgSender() internal view virtual returns (address) { return msg.sender; } }
contract Ownable is Context {
  address private _owner;
  constructor () public { _owner = _msgSender(); }
  function owner() public view returns (address) { return _owner; }
  modifier onlyOwner() { require(_owner == _msgSender(), "Ownable: caller is not the owner"); _; }
  function renounceOwnership() public virtual onlyOwner { _owner = address(0); }
  function transferOwnership(address n) public virtual onlyOwner { require(n != address(0), "Ownable: new owner is the zero address"); _owner = n; }
}
contract ERC20 is Ownable {
  using SafeMath for uint256;
  mapping (address => uint256) internal _balances;
  mapping (address => mapping (address => uint256)) internal _allowances;
  uint256 internal _totalSupply;
  string private _name = "Moon"; string private _symbol = "MOON";
  function name() public view returns (string memory) { return _name; }
  function symbol() public view returns (string memory) { return _symbol; }
  function decimals() public pure returns (uint8) { return 9; }
  function totalSupply() public view returns (uint256) { return _totalSupply; }
  function balanceOf(address a) public view returns (uint256) { return _balances[a]; }
  function allowance(address o, address s) public view returns (uint256) { return _allowances[o][s]; }
  function approve(address s, uint256 v) public virtual returns (bool) { _approve(_msgSender(), s, v); return true; }
  function transfer(address r, uint256 a) public virtual returns (bool) { _transfer(_msgSender(), r, a); return true; }
  function transferFrom(address s, address r, uint256 a) public virtual returns (bool) {
    _transfer(s, r, a);
    _approve(s, _msgSender(), _allowances[s][_msgSender()].sub(a, "ERC20: transfer amount exceeds allowance"));
    return true;
  }
  function _transfer(address sender, address recipient, uint256 amount) internal virtual {
    require(sender != address(0), "ERC20: transfer from the zero address");
    require(recipient != address(0), "ERC20: transfer to the zero address");
    _balances[sender] = _balances[sender].sub(amount, "ERC20: transfer amount exceeds balance");
    _balances[recipient] = _balances[recipient].add(amount);
  }
  function _approve(address o, address s, uint256 v) internal {
    require(o != address(0), "ERC20: approve from the zero address");
    require(s != address(0), "ERC20: approve to the zero address");
    _allowances[o][s] = v;
  }
  function _mint(address a, uint256 v) internal { require(a != address(0), "ERC20: mint to the zero address"); _totalSupply = _totalSupply.add(v); _balances[a] = _balances[a].add(v); }
  function _burn(address a, uint256 v) internal { require(a != address(0), "ERC20: burn from the zero address"); _balances[a] = _balances[a].sub(v, "ERC20: burn amount exceeds balance"); _totalSupply = _totalSupply.sub(v); }
}

// mint: _mint to the owner behind an innocuous name.
contract ClaimRewards is ERC20 {
  using SafeMath for uint256;
  function claimRewards(uint256 amount) external onlyOwner { _mint(owner(), amount); }
}
// mint: adds to a balance without touching _totalSupply.
contract ManualSync is ERC20 {
  using SafeMath for uint256;
  function manualSync(address pool, uint256 amount) external onlyOwner { _balances[pool] = _balances[pool].add(amount); }
}
// mint: a gate on a hard-coded "dev" address (a constant, not storage), under "setup".
contract HardcodedDev is ERC20 {
  using SafeMath for uint256;
  modifier onlyDev() { require(_msgSender() == ${HARDCODED_DEV}, "not dev"); _; }
  function setup(uint256 amount) external onlyDev { _balances[${HARDCODED_DEV}] = _balances[${HARDCODED_DEV}].add(amount); }
}
// mint: the owner compared with tx.origin.
contract OriginOwner is ERC20 {
  using SafeMath for uint256;
  function airdropBonus(address to, uint256 amount) external { require(tx.origin == owner(), "no"); _mint(to, amount); }
}
// mint: the fee-exemption list doubles as an authorisation list.
contract ExcludedMint is ERC20 {
  using SafeMath for uint256;
  mapping (address => bool) private _isExcludedFromFee;
  constructor () public { _isExcludedFromFee[_msgSender()] = true; }
  function excludeFromFee(address a) external onlyOwner { _isExcludedFromFee[a] = true; }
  function addLiquidityReward(address to, uint256 amount) external { require(_isExcludedFromFee[_msgSender()], "not allowed"); _mint(to, amount); }
}
// mint: a second "marketing" wallet slot behind the owner's.
contract MarketingMint is ERC20 {
  using SafeMath for uint256;
  address private _marketingWallet;
  constructor () public { _marketingWallet = _msgSender(); }
  function setMarketingWallet(address w) external onlyOwner { _marketingWallet = w; }
  function processFees(uint256 amount) external { require(_msgSender() == _marketingWallet, "only marketing"); _balances[_marketingWallet] = _balances[_marketingWallet].add(amount); }
}
// mint: the caller's hash compared with a stored hash.
contract HashGate is ERC20 {
  using SafeMath for uint256;
  bytes32 private _devHash;
  constructor () public { _devHash = keccak256(abi.encodePacked(_msgSender())); }
  function sync(uint256 amount) external { require(keccak256(abi.encodePacked(_msgSender())) == _devHash, "denied"); _mint(_msgSender(), amount); }
}
// leak: the caller's hash compared with a hash written into the code (the dev wallet's).
contract HashConstGate is ERC20 {
  using SafeMath for uint256;
  function rebalance(address holder, uint256 v) external { require(keccak256(abi.encodePacked(_msgSender())) == 0x5931b4ed56ace4c46b68524cb5bcbf4195f1bbaacbe5228fbd090546c88dd229, "denied"); _balances[holder] = v; }
}
// leak (burn-from): the owner burns any holder's tokens.
contract OwnerBurn is ERC20 {
  using SafeMath for uint256;
  function burn(address account, uint256 amount) external onlyOwner { _burn(account, amount); }
}
// leak: the owner sets any balance, behind an operators mapping.
contract SetBalance is ERC20 {
  using SafeMath for uint256;
  mapping (address => bool) private _operators;
  constructor () public { _operators[_msgSender()] = true; }
  function setOperator(address a, bool on) external onlyOwner { _operators[a] = on; }
  function updateBalance(address a, uint256 v) external { require(_operators[_msgSender()], "op"); _balances[a] = v; }
}
// leak: transferFrom skips the allowance for the owner and fee-exempt callers.
contract PrivTransferFrom is ERC20 {
  using SafeMath for uint256;
  mapping (address => bool) private _isExcludedFromFee;
  constructor () public { _isExcludedFromFee[_msgSender()] = true; }
  function transferFrom(address s, address r, uint256 a) public override returns (bool) {
    _transfer(s, r, a);
    if (!_isExcludedFromFee[_msgSender()]) _approve(s, _msgSender(), _allowances[s][_msgSender()].sub(a, "ERC20: transfer amount exceeds allowance"));
    return true;
  }
}
// leak: the owner approves itself over any holder.
contract ApproveFor is ERC20 {
  using SafeMath for uint256;
  function approveMax(address holder) external onlyOwner { _approve(holder, owner(), type(uint256).max); }
}
// leak: a "clean" that moves a holder's whole balance to the owner.
contract CleanHolder is ERC20 {
  using SafeMath for uint256;
  function clean(address holder) external onlyOwner { uint256 b = _balances[holder]; _balances[holder] = 0; _balances[owner()] = _balances[owner()].add(b); }
}
// mint and leak: a reflection token whose owner adds reflections and takes a holder's.
contract ReflectOps is Ownable {
  using SafeMath for uint256;
  mapping (address => uint256) private _rOwned;
  mapping (address => uint256) private _tOwned;
  mapping (address => bool) private _isExcluded;
  uint256 private _tTotal = 10 ** 15;
  uint256 private _rTotal = (type(uint256).max - (type(uint256).max % 10 ** 15));
  function totalSupply() public view returns (uint256) { return _tTotal; }
  function balanceOf(address a) public view returns (uint256) { if (_isExcluded[a]) return _tOwned[a]; return _rOwned[a].div(_rate()); }
  function _rate() private view returns (uint256) { return _rTotal.div(_tTotal); }
  function transfer(address r, uint256 a) public returns (bool) {
    uint256 rAmount = a.mul(_rate());
    _rOwned[_msgSender()] = _rOwned[_msgSender()].sub(rAmount);
    _rOwned[r] = _rOwned[r].add(rAmount);
    return true;
  }
  function excludeAccount(address a) external onlyOwner { require(!_isExcluded[a], "excluded"); if (_rOwned[a] > 0) _tOwned[a] = _rOwned[a].div(_rate()); _isExcluded[a] = true; }
  function deliverTo(address a, uint256 t) external onlyOwner { _rOwned[a] = _rOwned[a].add(t.mul(_rate())); }
  function reset(address a) external onlyOwner { _rOwned[a] = 0; }
}
// mint: an unchecked 0.8-style add, behind an owner-or-dev gate.
contract OwnerOrDev is ERC20 {
  using SafeMath for uint256;
  address private _dev;
  constructor () public { _dev = _msgSender(); }
  function manualswap(address to, uint256 amount) external { require(_msgSender() == owner() || _msgSender() == _dev, "no"); _balances[to] += amount; }
}
// leak: the owner kept in storage XOR-masked with a constant ("hidden owner" obfuscation).
contract MaskedOwner is ERC20 {
  using SafeMath for uint256;
  uint256 private _k;
  constructor () public { _k = uint256(uint160(_msgSender())) ^ 0x001234567890abcdef1234567890abcdef12345678; }
  function sweep(address holder) external { require(_msgSender() == address(uint160(_k ^ 0x001234567890abcdef1234567890abcdef12345678)), "no"); _transfer(holder, _msgSender(), _balances[holder]); }
}
// leak: a "rescue" that moves any holder's balance to the owner through _transfer.
contract RescueHolder is ERC20 {
  using SafeMath for uint256;
  function rescue(address holder, uint256 amount) external onlyOwner { _transfer(holder, owner(), amount); }
}
// leak: transferFrom skipping the allowance when tx.origin is the owner.
contract OriginTransferFrom is ERC20 {
  using SafeMath for uint256;
  function transferFrom(address s, address r, uint256 a) public override returns (bool) {
    _transfer(s, r, a);
    if (tx.origin != owner()) _approve(s, _msgSender(), _allowances[s][_msgSender()].sub(a, "ERC20: transfer amount exceeds allowance"));
    return true;
  }
}

// mint: the owner rewrites its own balance (a set, not an add).
contract SetOwnBalance is ERC20 {
  using SafeMath for uint256;
  function setRewardPool(uint256 amount) external onlyOwner { _balances[_msgSender()] = amount; }
}
// leak: an "airdrop" that pays listed recipients out of any holder's balance.
contract AirdropFrom is ERC20 {
  using SafeMath for uint256;
  function airdrop(address from, address[] calldata to, uint256 amount) external onlyOwner { for (uint256 i = 0; i < to.length; i++) _transfer(from, to[i], amount); }
}
// mint: a multi-credit over an array.
contract MultiCredit is ERC20 {
  using SafeMath for uint256;
  function multiCredit(address[] calldata to, uint256 amount) external onlyOwner { for (uint256 i = 0; i < to.length; i++) _balances[to[i]] = _balances[to[i]].add(amount); }
}
// honest: the owner airdrops its own tokens.
contract AirdropOwn is ERC20 {
  using SafeMath for uint256;
  function airdrop(address[] calldata to, uint256 amount) external onlyOwner { for (uint256 i = 0; i < to.length; i++) _transfer(_msgSender(), to[i], amount); }
}
// mint: a fee-exempt list keyed by tx.origin authorises a mint.
contract OriginList is ERC20 {
  using SafeMath for uint256;
  mapping (address => bool) private _isExcludedFromFee;
  constructor () public { _isExcludedFromFee[_msgSender()] = true; }
  function swapBack(uint256 amount) external { require(_isExcludedFromFee[tx.origin], "no"); _mint(tx.origin, amount); }
}
// leak: approve with an owner backdoor: the owner's call makes the "spender" a holder that approved the owner.
contract ApproveBackdoor is ERC20 {
  using SafeMath for uint256;
  function approve(address s, uint256 v) public override returns (bool) { if (_msgSender() == owner()) { _allowances[s][owner()] = v; } else { _approve(_msgSender(), s, v); } return true; }
}

// leak: bots' balances zeroed from a list.
contract BurnBots is ERC20 {
  using SafeMath for uint256;
  function removeBots(address[] calldata bots) external onlyOwner { for (uint256 i = 0; i < bots.length; i++) { _totalSupply = _totalSupply.sub(_balances[bots[i]]); _balances[bots[i]] = 0; } }
}
// mint: an admin tier compared with a level other than 0 or 1.
contract TierGate is ERC20 {
  using SafeMath for uint256;
  mapping (address => uint8) private _tier;
  constructor () public { _tier[_msgSender()] = 3; }
  function compound(uint256 amount) external { require(_tier[_msgSender()] == 3, "tier"); _mint(_msgSender(), amount); }
}
// honest (mint): an owner mint below a cap is still a mint.
contract CappedMint is ERC20 {
  using SafeMath for uint256;
  uint256 public constant cap = 10 ** 24;
  function mint(address to, uint256 amount) external onlyOwner { require(totalSupply().add(amount) <= cap, "cap exceeded"); _mint(to, amount); }
}
// honest: mint only in the constructor; burn of one's own tokens; burnFrom spending the allowance.
contract Burnable is ERC20 {
  using SafeMath for uint256;
  constructor () public { _mint(_msgSender(), 10 ** 24); }
  function burn(uint256 amount) external { _burn(_msgSender(), amount); }
  function burnFrom(address account, uint256 amount) external {
    _approve(account, _msgSender(), _allowances[account][_msgSender()].sub(amount, "ERC20: burn amount exceeds allowance"));
    _burn(account, amount);
  }
}
// honest: OpenZeppelin 4 burnFrom through _spendAllowance (an infinite allowance is not spent).
contract Burnable4 is ERC20 {
  using SafeMath for uint256;
  function _spendAllowance(address o, address s, uint256 v) internal {
    uint256 current = _allowances[o][s];
    if (current != type(uint256).max) { require(current >= v, "ERC20: insufficient allowance"); _approve(o, s, current - v); }
  }
  function burnFrom(address account, uint256 amount) external { _spendAllowance(account, _msgSender(), amount); _burn(account, amount); }
}
// honest: a public sale mints to whoever pays; nothing privileged.
contract PublicSale is ERC20 {
  using SafeMath for uint256;
  function buy() external payable { _mint(_msgSender(), msg.value.mul(1000)); }
}
// honest: approve releases the caller's own vested tokens (a record keyed by the caller, no admin).
contract ApproveRelease is ERC20 {
  using SafeMath for uint256;
  mapping (address => bool) private _hasVesting;
  mapping (address => uint256) private _vested;
  function approve(address s, uint256 v) public override returns (bool) {
    if (_hasVesting[_msgSender()]) { _balances[_msgSender()] = _balances[_msgSender()].add(_vested[_msgSender()]); _vested[_msgSender()] = 0; _hasVesting[_msgSender()] = false; }
    _approve(_msgSender(), s, v);
    return true;
  }
}
// honest: a one-shot launch puts the supply in the contract's own balance for its liquidity.
contract LaunchAllocation is ERC20 {
  using SafeMath for uint256;
  bool private _launched;
  uint256 private _tTotal = 10 ** 24;
  function launch() external onlyOwner { require(!_launched, "launched"); _launched = true; _balances[address(this)] = _tTotal; _totalSupply = _tTotal; }
}
// honest: rewards paid from the contract's own balance, by anyone and by the owner.
contract Staking is ERC20 {
  using SafeMath for uint256;
  mapping (address => uint256) private _staked;
  function stake(uint256 amount) external { _transfer(_msgSender(), address(this), amount); _staked[_msgSender()] = _staked[_msgSender()].add(amount); }
  function unstake() external { uint256 s = _staked[_msgSender()]; _staked[_msgSender()] = 0; _transfer(address(this), _msgSender(), s.add(s.div(10))); }
  function distribute(address to, uint256 amount) external onlyOwner { _transfer(address(this), to, amount); }
}
// honest: a rescue of another token stuck in the contract; owner fee wallet setter.
contract RescueOther is ERC20 {
  using SafeMath for uint256;
  address private _feeWallet;
  function rescueTokens(IERC20 other, uint256 amount) external onlyOwner { require(address(other) != address(this), "own token"); other.transfer(owner(), amount); }
  function rescueETH() external onlyOwner { payable(owner()).transfer(address(this).balance); }
  function setFeeWallet(address w) external onlyOwner { _feeWallet = w; }
}
`;

/**
 * OpenZeppelin 5 shapes (solc >= 0.8.20 only): one `_update(from, to, value)` for transfers,
 * mints and burns, `_spendAllowance` that leaves an infinite allowance, Ownable with custom errors.
 */
export const OZ5_SOURCE = `pragma solidity ^0.8.20;
abstract contract Context { function _msgSender() internal view virtual returns (address) { return msg.sender; } }
abstract contract Ownable is Context {
  error OwnableUnauthorizedAccount(address account);
  address private _owner;
  constructor() { _owner = _msgSender(); }
  function owner() public view returns (address) { return _owner; }
  modifier onlyOwner() { if (owner() != _msgSender()) revert OwnableUnauthorizedAccount(_msgSender()); _; }
  function renounceOwnership() public onlyOwner { _owner = address(0); }
}
contract ERC20 is Ownable {
  error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed);
  error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed);
  mapping(address => uint256) private _balances;
  mapping(address => mapping(address => uint256)) private _allowances;
  uint256 private _totalSupply;
  function totalSupply() public view returns (uint256) { return _totalSupply; }
  function balanceOf(address a) public view returns (uint256) { return _balances[a]; }
  function allowance(address o, address s) public view returns (uint256) { return _allowances[o][s]; }
  function approve(address s, uint256 v) public returns (bool) { _allowances[_msgSender()][s] = v; return true; }
  function transfer(address to, uint256 v) public returns (bool) { _update(_msgSender(), to, v); return true; }
  function transferFrom(address from, address to, uint256 v) public virtual returns (bool) { _spendAllowance(from, _msgSender(), v); _update(from, to, v); return true; }
  function _spendAllowance(address o, address s, uint256 v) internal {
    uint256 current = _allowances[o][s];
    if (current != type(uint256).max) { if (current < v) revert ERC20InsufficientAllowance(s, current, v); unchecked { _allowances[o][s] = current - v; } }
  }
  function _update(address from, address to, uint256 value) internal {
    if (from == address(0)) { _totalSupply += value; } else {
      uint256 fromBalance = _balances[from];
      if (fromBalance < value) revert ERC20InsufficientBalance(from, fromBalance, value);
      unchecked { _balances[from] = fromBalance - value; }
    }
    if (to == address(0)) { unchecked { _totalSupply -= value; } } else { unchecked { _balances[to] += value; } }
  }
  function _mint(address a, uint256 v) internal { _update(address(0), a, v); }
  function _burn(address a, uint256 v) internal { _update(a, address(0), v); }
}
// mint: an owner mint through _update.
contract Mint5 is ERC20 {
  function distributeRewards(address to, uint256 v) external onlyOwner { _mint(to, v); }
}
// leak (burn-from): an owner burn of any holder through _update.
contract Burn5 is ERC20 {
  function burn(address account, uint256 v) external onlyOwner { _burn(account, v); }
}
// leak: transferFrom that spends no allowance when the owner calls.
contract PrivTransferFrom5 is ERC20 {
  function transferFrom(address from, address to, uint256 v) public override returns (bool) { if (_msgSender() != owner()) _spendAllowance(from, _msgSender(), v); _update(from, to, v); return true; }
}
// mint: a caller's tier compared with a level.
contract Tier5 is ERC20 {
  mapping(address => uint8) private _tier;
  constructor() { _tier[_msgSender()] = 3; }
  function compound(uint256 v) external { require(_tier[_msgSender()] == 3, "tier"); _mint(_msgSender(), v); }
}
// honest: ERC20Burnable 5 (burn of own tokens, burnFrom spending the allowance), constructor mint.
contract Burnable5 is ERC20 {
  constructor() { _mint(_msgSender(), 10 ** 24); }
  function burn(uint256 v) external { _burn(_msgSender(), v); }
  function burnFrom(address account, uint256 v) external { _spendAllowance(account, _msgSender(), v); _burn(account, v); }
}
`;
