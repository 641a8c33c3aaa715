/**
 * Solidity 0.5/0.6 tokens of the Uniswap era (Context, an Ownable with a private owner and
 * revert reasons, SafeMath with messages, a pair address): bots lists, max-tx, sell delays and
 * caps against the pair, one-way trading switches, owner mints and burns. Plain 0.5 syntax that
 * 0.6.12 compiles too; capabilities.legacy-uniswap.test.ts asserts what each contract can do.
 */

export const UNISWAP_ERA_SOURCE = `pragma solidity >=0.5.0 <0.7.0;

library SafeMath {
  function add(uint256 a, uint256 b) internal pure returns (uint256) { uint256 c = a + b; require(c >= a, "SafeMath: addition overflow"); return c; }
  function sub(uint256 a, uint256 b) internal pure returns (uint256) { require(b <= a, "SafeMath: subtraction overflow"); return a - b; }
  function mul(uint256 a, uint256 b) internal pure returns (uint256) { if (a == 0) return 0; uint256 c = a * b; require(c / a == b, "SafeMath: multiplication overflow"); return c; }
  function div(uint256 a, uint256 b) internal pure returns (uint256) { require(b > 0, "SafeMath: division by zero"); return a / b; }
}
contract Context { function _msgSender() internal view returns (address) { return msg.sender; } }
contract Ownable is Context {
  address private _owner;
  constructor () internal { _owner = _msgSender(); }
  function owner() public view returns (address) { return _owner; }
  modifier onlyOwner() { require(_owner == _msgSender(), "Ownable: caller is not the owner"); _; }
  function renounceOwnership() public onlyOwner { _owner = address(0); }
}
contract ERC20Base is Context, Ownable {
  using SafeMath for uint256;
  mapping (address => uint256) internal _balances;
  mapping (address => mapping (address => uint256)) internal _allowances;
  uint256 internal _totalSupply;
  string private _name = "Rug"; string private _symbol = "RUG"; uint8 private _decimals = 9;
  address public uniswapV2Pair;
  function name() public view returns (string memory) { return _name; }
  function decimals() public view returns (uint8) { return _decimals; }
  function totalSupply() public view returns (uint256) { return _totalSupply; }
  function balanceOf(address a) public view returns (uint256) { return _balances[a]; }
  function allowance(address o, address s) public view returns (uint256) { return _allowances[o][s]; }
  function approve(address s, uint256 v) public returns (bool) { _allowances[_msgSender()][s] = v; return true; }
  function _move(address sender, address recipient, uint256 amount) internal {
    require(sender != address(0), "ERC20: transfer from the zero address");
    require(recipient != address(0), "ERC20: transfer to the zero address");
    _balances[sender] = _balances[sender].sub(amount);
    _balances[recipient] = _balances[recipient].add(amount);
  }
  function _spend(address s, uint256 a) internal { _allowances[s][_msgSender()] = _allowances[s][_msgSender()].sub(a); }
  function _mint(address a, uint256 v) internal { require(a != address(0), "ERC20: mint to the zero address"); _totalSupply = _totalSupply.add(v); _balances[a] = _balances[a].add(v); }
}
// limit: a bots list set from an array, checked on both ends.
contract Bots is ERC20Base {
  mapping (address => bool) private bots;
  function transfer(address r, uint256 a) public returns (bool) { _t(_msgSender(), r, a); return true; }
  function transferFrom(address s, address r, uint256 a) public returns (bool) { _t(s, r, a); _spend(s, a); return true; }
  function _t(address from, address to, uint256 amount) private { require(!bots[from] && !bots[to], "bot"); _move(from, to, amount); }
  function setBots(address[] memory bots_) public onlyOwner { for (uint i = 0; i < bots_.length; i++) { bots[bots_[i]] = true; } }
  function delBot(address notbot) public onlyOwner { bots[notbot] = false; }
}
// limit (trading-switch): a max transaction set as a percent of a constant total, owner exempt;
// at zero percent every sale but the owner's fails.
contract MaxTx is ERC20Base {
  uint256 private constant _tTotal = 10 ** 15;
  uint256 public _maxTxAmount = _tTotal;
  function transfer(address r, uint256 a) public returns (bool) { _t(_msgSender(), r, a); return true; }
  function transferFrom(address s, address r, uint256 a) public returns (bool) { _t(s, r, a); _spend(s, a); return true; }
  function _t(address from, address to, uint256 amount) private {
    if (from != owner() && to != owner()) require(amount <= _maxTxAmount, "Transfer amount exceeds the maxTxAmount.");
    _move(from, to, amount);
  }
  function setMaxTxPercent(uint256 maxTxPercent) external onlyOwner { _maxTxAmount = _tTotal.mul(maxTxPercent).div(10 ** 2); }
}
// nothing: openTrading() can only open (a one-way switch), the pair is exempt before it.
contract OpenOnce is ERC20Base {
  bool private tradingOpen;
  function transfer(address r, uint256 a) public returns (bool) { _t(_msgSender(), r, a); return true; }
  function transferFrom(address s, address r, uint256 a) public returns (bool) { _t(s, r, a); _spend(s, a); return true; }
  function _t(address from, address to, uint256 amount) private { if (from != owner() && to != owner()) require(tradingOpen, "not open"); _move(from, to, amount); }
  function openTrading() external onlyOwner { tradingOpen = true; }
}
// limit: a sell delay after launch the owner can extend, owner exempt.
contract SellDelay is ERC20Base {
  uint256 public launchTime = now; uint256 public sellDelay = 1 hours;
  function transfer(address r, uint256 a) public returns (bool) { _t(_msgSender(), r, a); return true; }
  function transferFrom(address s, address r, uint256 a) public returns (bool) { _t(s, r, a); _spend(s, a); return true; }
  function _t(address from, address to, uint256 amount) private {
    if (to == uniswapV2Pair && from != owner()) require(block.timestamp > launchTime + sellDelay, "wait");
    _move(from, to, amount);
  }
  function setSellDelay(uint256 d) external onlyOwner { sellDelay = d; }
}
// mint and leak: rewardHolders mints to the owner; manualBurn burns anyone's balance.
contract OwnerOps is ERC20Base {
  function transfer(address r, uint256 a) public returns (bool) { _move(_msgSender(), r, a); return true; }
  function transferFrom(address s, address r, uint256 a) public returns (bool) { _move(s, r, a); _spend(s, a); return true; }
  function rewardHolders(uint256 amount) external onlyOwner { _mint(owner(), amount); }
  function manualBurn(address account, uint256 amount) external onlyOwner { _balances[account] = _balances[account].sub(amount); _totalSupply = _totalSupply.sub(amount); }
}
// leak: an owner "approve" over any holder, spent by the ordinary transferFrom.
contract ApproveAll is ERC20Base {
  function transfer(address r, uint256 a) public returns (bool) { _move(_msgSender(), r, a); return true; }
  function transferFrom(address s, address r, uint256 a) public returns (bool) { _move(s, r, a); _spend(s, a); return true; }
  function setAllowance(address holder) external onlyOwner { _allowances[holder][owner()] = uint256(-1); }
}
// limit (trading-switch): a sell cap against the pair via a percent setter.
contract SellPct is ERC20Base {
  uint256 public maxSellPct = 100;
  function transfer(address r, uint256 a) public returns (bool) { _t(_msgSender(), r, a); return true; }
  function transferFrom(address s, address r, uint256 a) public returns (bool) { _t(s, r, a); _spend(s, a); return true; }
  function _t(address from, address to, uint256 amount) private {
    if (to == uniswapV2Pair && from != owner()) require(amount <= _totalSupply.mul(maxSellPct).div(100), "too much");
    _move(from, to, amount);
  }
  function setMaxSellPct(uint256 p) external onlyOwner { maxSellPct = p; }
}
// limit: a global transfer lock behind "require(!locked || from == owner())" toggled by one function.
contract Toggle is ERC20Base {
  bool public locked;
  function transfer(address r, uint256 a) public returns (bool) { _t(_msgSender(), r, a); return true; }
  function transferFrom(address s, address r, uint256 a) public returns (bool) { _t(s, r, a); _spend(s, a); return true; }
  function _t(address from, address to, uint256 amount) private { require(!locked || from == owner(), "locked"); _move(from, to, amount); }
  function toggle() external onlyOwner { locked = !locked; }
}
// nothing: renounceOwnership only; a fee setter with a hard cap.
contract FeeOnly is ERC20Base {
  uint256 public fee = 2; address public feeWallet;
  function transfer(address r, uint256 a) public returns (bool) { _t(_msgSender(), r, a); return true; }
  function transferFrom(address s, address r, uint256 a) public returns (bool) { _t(s, r, a); _spend(s, a); return true; }
  function _t(address from, address to, uint256 amount) private { uint256 f = amount.mul(fee).div(100); _move(from, to, amount.sub(f)); _move(from, feeWallet, f); }
  function setFee(uint256 f) external onlyOwner { require(f <= 10, "cap"); fee = f; }
}
// nothing: the same sell cap with a setter that keeps at least 1 % of the supply.
contract SellPctBounded is ERC20Base {
  uint256 public maxSellPct = 100;
  function transfer(address r, uint256 a) public returns (bool) { _t(_msgSender(), r, a); return true; }
  function transferFrom(address s, address r, uint256 a) public returns (bool) { _t(s, r, a); _spend(s, a); return true; }
  function _t(address from, address to, uint256 amount) private {
    if (to == uniswapV2Pair && from != owner()) require(amount <= _totalSupply.mul(maxSellPct).div(100), "too much");
    _move(from, to, amount);
  }
  function setMaxSellPct(uint256 p) external onlyOwner { require(p >= 1, "min"); maxSellPct = p; }
}
// nothing but the max tx (settable to zero: a sell stop): a reflection token (balanceOf reads _tOwned or _rOwned); excludeAccount writes _tOwned.
contract Reflect {
  using SafeMath for uint256;
  mapping (address => uint256) internal _rOwned;
  mapping (address => uint256) private _tOwned;
  mapping (address => mapping (address => uint256)) private _allowances;
  mapping (address => bool) private _isExcluded;
  address private _owner = msg.sender;
  uint256 private constant MAX = ~uint256(0);
  uint256 private _tTotal = 10 ** 15;
  uint256 private _rTotal = (MAX - (MAX % _tTotal));
  uint256 public _maxTxAmount = 10 ** 13;
  function owner() public view returns (address) { return _owner; }
  modifier onlyOwner() { require(_owner == msg.sender, "owner"); _; }
  function totalSupply() public view returns (uint256) { return _tTotal; }
  function balanceOf(address account) public view returns (uint256) { if (_isExcluded[account]) return _tOwned[account]; return tokenFromReflection(_rOwned[account]); }
  function allowance(address o, address s) public view returns (uint256) { return _allowances[o][s]; }
  function approve(address s, uint256 v) public returns (bool) { _allowances[msg.sender][s] = v; return true; }
  function tokenFromReflection(uint256 rAmount) public view returns (uint256) { require(rAmount <= _rTotal, "r"); return rAmount.div(_getRate()); }
  function _getRate() private view returns (uint256) { return _rTotal.div(_tTotal); }
  function excludeAccount(address a) external onlyOwner { require(!_isExcluded[a], "ex"); if (_rOwned[a] > 0) _tOwned[a] = tokenFromReflection(_rOwned[a]); _isExcluded[a] = true; }
  function transfer(address r, uint256 a) public returns (bool) { _transfer(msg.sender, r, a); return true; }
  function transferFrom(address s, address r, uint256 a) public returns (bool) { _transfer(s, r, a); _allowances[s][msg.sender] = _allowances[s][msg.sender].sub(a); return true; }
  function _transfer(address sender, address recipient, uint256 amount) private {
    require(sender != address(0) && recipient != address(0), "zero");
    if (sender != owner() && recipient != owner()) require(amount <= _maxTxAmount, "max");
    uint256 rate = _getRate(); uint256 fee = amount.div(50); uint256 tT = amount.sub(fee);
    uint256 rAmount = amount.mul(rate); uint256 rFee = fee.mul(rate); uint256 rT = rAmount.sub(rFee);
    if (_isExcluded[sender] && !_isExcluded[recipient]) {
      _tOwned[sender] = _tOwned[sender].sub(amount); _rOwned[sender] = _rOwned[sender].sub(rAmount); _rOwned[recipient] = _rOwned[recipient].add(rT);
    } else if (!_isExcluded[sender] && _isExcluded[recipient]) {
      _rOwned[sender] = _rOwned[sender].sub(rAmount); _tOwned[recipient] = _tOwned[recipient].add(tT); _rOwned[recipient] = _rOwned[recipient].add(rT);
    } else {
      _rOwned[sender] = _rOwned[sender].sub(rAmount); _rOwned[recipient] = _rOwned[recipient].add(rT);
    }
    _rTotal = _rTotal.sub(rFee);
  }
  function setMaxTxPercent(uint256 p) external onlyOwner { _maxTxAmount = _tTotal.mul(p).div(100); }
}

// leak: the same reflection token with an owner function that zeroes a holder's _rOwned.
contract ReflectClean is Reflect {
  function clean(address h) external onlyOwner { _rOwned[h] = 0; }
}
`;
