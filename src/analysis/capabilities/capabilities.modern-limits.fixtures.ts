/**
 * Sell-side limits as 2020-2023 meme and scam tokens write them: an OpenZeppelin-style ERC20
 * `_transfer` with the Uniswap/Pancake pair in storage, `_msgSender()`, an Ownable with a private
 * owner, SafeMath (kept in 0.8 too, as copied code does). One source that solc 0.6.12 and 0.8
 * both compile; capabilities.modern-limits.test.ts asserts what each contract can do. Each
 * contract says above it what the owner can do to holders, and the honest ones why they are not
 * a limit.
 */

export const MODERN_LIMITS_SOURCE = `pragma solidity >=0.6.12 <0.9.0;

library SafeMath {
  function add(uint256 a, uint256 b) internal pure returns (uint256) { uint256 c = a + b; require(c >= a, "SafeMath: addition overflow"); return c; }
  function sub(uint256 a, uint256 b) internal pure returns (uint256) { require(b <= a, "SafeMath: subtraction overflow"); return a - b; }
  function sub(uint256 a, uint256 b, string memory m) internal pure returns (uint256) { require(b <= a, m); return a - b; }
  function mul(uint256 a, uint256 b) internal pure returns (uint256) { if (a == 0) return 0; uint256 c = a * b; require(c / a == b, "SafeMath: multiplication overflow"); return c; }
  function div(uint256 a, uint256 b) internal pure returns (uint256) { require(b > 0, "SafeMath: division by zero"); return a / b; }
}
contract Context { function _msgSender() internal view returns (address) { return msg.sender; } }
contract Ownable is Context {
  address private _owner = msg.sender;
  function owner() public view returns (address) { return _owner; }
  modifier onlyOwner() { require(_owner == _msgSender(), "Ownable: caller is not the owner"); _; }
  function renounceOwnership() public onlyOwner { _owner = address(0); }
  function transferOwnership(address newOwner) public onlyOwner { require(newOwner != address(0), "Ownable: zero"); _owner = newOwner; }
}
contract ERC20Base is Context, Ownable {
  using SafeMath for uint256;
  mapping (address => uint256) internal _balances;
  mapping (address => mapping (address => uint256)) internal _allowances;
  mapping (address => bool) internal _isExcludedFromFee;
  uint256 internal _totalSupply = 10 ** 27;
  address public uniswapV2Pair;
  address public marketingWallet;
  function name() public pure returns (string memory) { return "Moon"; }
  function symbol() public pure returns (string memory) { return "MOON"; }
  function decimals() public pure returns (uint8) { return 18; }
  function totalSupply() public view returns (uint256) { return _totalSupply; }
  function balanceOf(address a) public view returns (uint256) { return _balances[a]; }
  function allowance(address o, address s) public view returns (uint256) { return _allowances[o][s]; }
  function approve(address s, uint256 v) public returns (bool) { _allowances[_msgSender()][s] = v; return true; }
  function transfer(address r, uint256 a) public virtual returns (bool) { _transfer(_msgSender(), r, a); return true; }
  function transferFrom(address s, address r, uint256 a) public virtual returns (bool) {
    _transfer(s, r, a);
    _allowances[s][_msgSender()] = _allowances[s][_msgSender()].sub(a, "ERC20: transfer amount exceeds allowance");
    return true;
  }
  function setPair(address p) external onlyOwner { uniswapV2Pair = p; }
  function excludeFromFee(address a, bool on) external onlyOwner { _isExcludedFromFee[a] = on; }
  /** What a token checks before a transfer, and the fee it takes (0 by default). */
  function _checks(address from, address to, uint256 amount) internal virtual returns (uint256) { from; to; amount; return 0; }
  function _transfer(address from, address to, uint256 amount) internal {
    require(from != address(0), "ERC20: transfer from the zero address");
    require(to != address(0), "ERC20: transfer to the zero address");
    require(amount > 0, "Transfer amount must be greater than zero");
    uint256 fee = _checks(from, to, amount);
    _balances[from] = _balances[from].sub(amount, "ERC20: transfer amount exceeds balance");
    _balances[to] = _balances[to].add(amount.sub(fee));
    if (fee > 0) _balances[marketingWallet] = _balances[marketingWallet].add(fee);
  }
}

// limit (blacklist): sellers marked as snipers cannot sell to the pair; the owner marks anyone.
contract SniperSell is ERC20Base {
  mapping (address => bool) private _isSniper;
  function _checks(address from, address to, uint256) internal override returns (uint256) { if (to == uniswapV2Pair) require(!_isSniper[from], "sniper"); }
  function setSniper(address a, bool on) external onlyOwner { _isSniper[a] = on; }
}
// limit (blacklist): a bots list set in batch, checked on both ends for everyone but the owner.
contract BotsBatch is ERC20Base {
  mapping (address => bool) private bots;
  function _checks(address from, address to, uint256) internal override returns (uint256) { if (from != owner() && to != owner()) require(!bots[from] && !bots[to], "bot"); }
  function setBots(address[] memory bots_) external onlyOwner { for (uint256 i = 0; i < bots_.length; i++) bots[bots_[i]] = true; }
  function delBot(address notbot) external onlyOwner { bots[notbot] = false; }
}
// limit (blacklist): only whitelisted holders may sell; the owner edits the list both ways, so
// everyone not listed is blocked.
contract WhitelistSell is ERC20Base {
  mapping (address => bool) private _isWhitelisted;
  function _checks(address from, address to, uint256) internal override returns (uint256) { require(_isWhitelisted[from] || to != uniswapV2Pair, "not whitelisted"); }
  function setWhitelist(address a, bool on) external onlyOwner { _isWhitelisted[a] = on; }
}
// limit (trading-switch): tradingOpen that the owner switches both ways.
contract TradingToggle is ERC20Base {
  bool public tradingOpen;
  function _checks(address from, address to, uint256) internal override returns (uint256) { if (from != owner() && to != owner()) require(tradingOpen, "Trading not open"); }
  function setTrading(bool on) external onlyOwner { tradingOpen = on; }
}
// limit (trading-switch): a one-way enableTrading() beside a disableTrading() that closes it again.
contract TradingTwoWay is ERC20Base {
  bool public tradingEnabled;
  function _checks(address from, address to, uint256) internal override returns (uint256) { if (!_isExcludedFromFee[from] && !_isExcludedFromFee[to]) require(tradingEnabled, "disabled"); }
  function enableTrading() external onlyOwner { tradingEnabled = true; }
  function disableTrading() external onlyOwner { tradingEnabled = false; }
}
// limit (trading-switch): a cap on sales to the pair with an unbounded setter.
contract MaxSell is ERC20Base {
  uint256 public _maxSellAmount = 10 ** 25;
  function _checks(address from, address to, uint256 amount) internal override returns (uint256) { if (to == uniswapV2Pair && from != owner()) require(amount <= _maxSellAmount, "sell limit"); }
  function setMaxSellAmount(uint256 m) external onlyOwner { _maxSellAmount = m; }
}
// limit: the SafeMoon max transaction as a percent, settable to zero; every transfer but the
// owner's fails then, sales included.
contract MaxTxPercent is ERC20Base {
  using SafeMath for uint256;
  uint256 public _maxTxAmount = 10 ** 25;
  function _checks(address from, address to, uint256 amount) internal override returns (uint256) { if (from != owner() && to != owner()) require(amount <= _maxTxAmount, "Transfer amount exceeds the maxTxAmount."); }
  function setMaxTxPercent(uint256 maxTxPercent) external onlyOwner { _maxTxAmount = _totalSupply.mul(maxTxPercent).div(10 ** 2); }
}
// limit (blacklist): only listed accounts may sell and the owner only adds to the list: whoever
// the owner does not list cannot sell, so listing is the insiders' privilege, not a release.
contract AddOnlyWhitelist is ERC20Base {
  mapping (address => bool) private _wl;
  function _checks(address from, address to, uint256) internal override returns (uint256) { if (to == uniswapV2Pair) require(_wl[from], "no"); }
  function addToWhitelist(address a) external onlyOwner { _wl[a] = true; }
}
// limit (trading-switch): a sell cooldown per seller with an unbounded setter.
contract SellCooldown is ERC20Base {
  mapping (address => uint256) private _lastSell;
  uint256 public sellCooldown = 30;
  function _checks(address from, address to, uint256) internal override returns (uint256) {
    if (to == uniswapV2Pair && from != owner()) { require(block.timestamp >= _lastSell[from] + sellCooldown, "cooldown"); _lastSell[from] = block.timestamp; }
  }
  function setCooldown(uint256 c) external onlyOwner { sellCooldown = c; }
}
// No limit: a sell fee the owner can raise past 100 %. The fee is subtracted from the amount
// with an underflow check, so such a fee reverts every sale, but by arithmetic on a share of the
// amount: the fee's risk (fee_modifiable), not a stop the owner switches.
contract SellFeeUnbounded is ERC20Base {
  using SafeMath for uint256;
  uint256 public sellFee = 5;
  function _checks(address from, address to, uint256 amount) internal override returns (uint256) {
    if (to == uniswapV2Pair && !_isExcludedFromFee[from]) return amount.mul(sellFee).div(100);
    return 0;
  }
  function setSellFee(uint256 f) external onlyOwner { sellFee = f; }
}
// limit (trading-switch): a sale may move at most a per-mille share of the pair's balance,
// and the owner may set that share to zero.
contract PairShareSellCap is ERC20Base {
  using SafeMath for uint256;
  uint256 public maxSellPerMille = 10;
  function _checks(address from, address to, uint256 amount) internal override returns (uint256) {
    if (to == uniswapV2Pair && from != owner()) require(amount <= _balances[uniswapV2Pair].mul(maxSellPerMille).div(1000), "sell too big");
  }
  function setMaxSellPerMille(uint256 p) external onlyOwner { maxSellPerMille = p; }
}
// limit (trading-switch): a daily sell allowance per seller, settable to zero by the owner.
contract DailySellLimit is ERC20Base {
  mapping (address => uint256) private _soldToday;
  uint256 public maxSellPerDay = 10 ** 24;
  function _checks(address from, address to, uint256 amount) internal override returns (uint256) {
    if (to == uniswapV2Pair && from != owner()) {
      require(_soldToday[from] + amount <= maxSellPerDay, "daily sell limit");
      _soldToday[from] = _soldToday[from] + amount;
    }
  }
  function setMaxSellPerDay(uint256 m) external onlyOwner { maxSellPerDay = m; }
}
// limit (pause): a global lock only fee-exempt insiders pass, toggled by the owner.
contract ExemptLock is ERC20Base {
  bool public locked;
  function _checks(address from, address to, uint256) internal override returns (uint256) { require(!locked || _isExcludedFromFee[from] || _isExcludedFromFee[to], "locked"); }
  function setLocked(bool on) external onlyOwner { locked = on; }
}
// limit (blacklist): the blacklist is checked in transferFrom only, the router's sell path.
contract FromOnlyBlacklist is ERC20Base {
  using SafeMath for uint256;
  mapping (address => bool) public isBlacklisted;
  function transferFrom(address s, address r, uint256 a) public override returns (bool) {
    require(!isBlacklisted[s], "blacklisted");
    _balances[s] = _balances[s].sub(a);
    _balances[r] = _balances[r].add(a);
    _allowances[s][_msgSender()] = _allowances[s][_msgSender()].sub(a);
    return true;
  }
  function blacklist(address a, bool on) external onlyOwner { isBlacklisted[a] = on; }
}
// limit (trading-switch): anti-bot blocks after launch whose number the owner can raise at will.
contract DeadBlocksSettable is ERC20Base {
  uint256 public launchedAt; uint256 public deadBlocks = 2;
  function _checks(address from, address to, uint256) internal override returns (uint256) {
    if (from != owner() && to != owner()) require(launchedAt != 0 && block.number > launchedAt + deadBlocks, "not live");
  }
  function launch() external onlyOwner { require(launchedAt == 0, "launched"); launchedAt = block.number; }
  function setDeadBlocks(uint256 n) external onlyOwner { deadBlocks = n; }
}

// honest: a fixed 5 % fee to a marketing wallet, no setter.
contract FixedFee is ERC20Base {
  using SafeMath for uint256;
  function _checks(address from, address to, uint256 amount) internal override returns (uint256) {
    if (!_isExcludedFromFee[from] && !_isExcludedFromFee[to]) return amount.mul(5).div(100);
    return 0;
  }
}
// honest: a one-way enableTrading(); fee-exempt insiders may move tokens before it.
contract EnableOnce is ERC20Base {
  bool public tradingEnabled;
  function _checks(address from, address to, uint256) internal override returns (uint256) { if (!_isExcludedFromFee[from] && !_isExcludedFromFee[to]) require(tradingEnabled, "Trading not active"); }
  function enableTrading() external onlyOwner { tradingEnabled = true; }
}
// honest: anti-bot for the first 3 blocks after a one-shot launch; the owner cannot restart it.
contract DeadBlocksOnce is ERC20Base {
  uint256 public launchedAt;
  uint256 private constant DEAD_BLOCKS = 3;
  function _checks(address from, address to, uint256) internal override returns (uint256) {
    if (from != owner() && to != owner()) require(launchedAt != 0 && block.number > launchedAt + DEAD_BLOCKS, "not live");
  }
  function launch() external onlyOwner { require(launchedAt == 0, "launched"); launchedAt = block.number; }
}
// honest: openTrading() runs once (its own flag) and starts a 60-second sell delay from now.
contract LaunchDelayOnce is ERC20Base {
  bool public tradingOpen; uint256 public launchTime;
  function _checks(address from, address to, uint256) internal override returns (uint256) {
    if (from == owner() || to == owner()) return 0;
    require(tradingOpen, "closed");
    if (to == uniswapV2Pair) require(block.timestamp > launchTime + 60, "too early");
  }
  function openTrading() external onlyOwner { require(!tradingOpen, "open"); tradingOpen = true; launchTime = block.timestamp; }
}
// honest: the 2021 launch template's buy cooldown (30 seconds per buyer, switched on and off by
// the owner): it only ever fails a buy from the pair, never a holder's sale.
contract BuyCooldown is ERC20Base {
  mapping (address => uint256) private cooldown; bool private cooldownEnabled;
  function _checks(address from, address to, uint256) internal override returns (uint256) {
    if (from != owner() && to != owner()) {
      if (from == uniswapV2Pair && to != address(0) && cooldownEnabled) {
        require(cooldown[to] < block.timestamp, "cooldown"); cooldown[to] = block.timestamp + (30 seconds);
      }
    }
  }
  function setCooldownEnabled(bool onoff) external onlyOwner { cooldownEnabled = onoff; }
}
// honest: max tx with a setter bounded below by 1 % of the supply.
contract MaxTxBounded is ERC20Base {
  uint256 public _maxTxAmount = 10 ** 25;
  function _checks(address from, address to, uint256 amount) internal override returns (uint256) { if (from != owner() && to != owner()) require(amount <= _maxTxAmount, "max tx"); }
  function setMaxTx(uint256 m) external onlyOwner { require(m >= _totalSupply / 100, "too low"); _maxTxAmount = m; }
}
// honest: a sell fee setter capped at 25 %.
contract SellFeeCapped is ERC20Base {
  using SafeMath for uint256;
  uint256 public sellFee = 5;
  function _checks(address from, address to, uint256 amount) internal override returns (uint256) {
    if (to == uniswapV2Pair && !_isExcludedFromFee[from]) return amount.mul(sellFee).div(100);
    return 0;
  }
  function setSellFee(uint256 f) external onlyOwner { require(f <= 25, "fee too high"); sellFee = f; }
}
// not a sell stop: a max wallet on buys (the pair exempt) with an unbounded setter; it limits
// what a buyer may hold, never what a holder may sell.
contract MaxWallet is ERC20Base {
  uint256 public _maxWalletSize = 10 ** 25;
  function _checks(address, address to, uint256 amount) internal override returns (uint256) { if (to != uniswapV2Pair && to != owner()) require(_balances[to] + amount <= _maxWalletSize, "max wallet"); }
  function setMaxWallet(uint256 m) external onlyOwner { _maxWalletSize = m; }
}
// not a sell stop: a cap on buys (from the pair) with an unbounded setter, an anti-whale limit
// (max-tx), not a limit on holders.
contract MaxBuy is ERC20Base {
  uint256 public _maxBuy = 10 ** 25;
  function _checks(address from, address, uint256 amount) internal override returns (uint256) { if (from == uniswapV2Pair) require(amount <= _maxBuy, "max buy"); }
  function setMaxBuy(uint256 m) external onlyOwner { _maxBuy = m; }
}
// honest: an exemption from a max tx bounded at 1 % of the supply; the owner edits the
// exemptions, which only lift a cap every holder can live with.
contract MaxTxExempt is ERC20Base {
  mapping (address => bool) private _isExcludedFromMaxTx;
  uint256 public _maxTxAmount = 10 ** 25;
  function _checks(address from, address, uint256 amount) internal override returns (uint256) { require(amount <= _maxTxAmount || _isExcludedFromMaxTx[from], "max tx"); }
  function excludeFromMaxTx(address a, bool on) external onlyOwner { _isExcludedFromMaxTx[a] = on; }
  function setMaxTx(uint256 m) external onlyOwner { require(m >= _totalSupply / 100, "too low"); _maxTxAmount = m; }
}
// pause: an OpenZeppelin-style Pausable; a live owner can stop transfers, a renounced one cannot.
contract PausableToken is ERC20Base {
  bool private _paused;
  function paused() public view returns (bool) { return _paused; }
  function _checks(address, address, uint256) internal override returns (uint256) { require(!_paused, "Pausable: paused"); }
  function pause() external onlyOwner { require(!_paused, "Pausable: paused"); _paused = true; }
  function unpause() external onlyOwner { require(_paused, "Pausable: not paused"); _paused = false; }
}
`;

/**
 * Known misses (docs/risk-model.md "Known limits"), kept so a change in them is seen: a sell fee
 * that may reach exactly 100 % (the pair receives nothing, the router's sale reverts), and sales
 * closed to all but the owner in the code itself, with nothing the owner writes.
 */
export const MODERN_LIMITS_MISSED_SOURCE = `${MODERN_LIMITS_SOURCE}
contract FeeTo100 is ERC20Base {
  using SafeMath for uint256;
  uint256 public sellFee = 5;
  function _checks(address from, address to, uint256 amount) internal override returns (uint256) {
    if (to == uniswapV2Pair && !_isExcludedFromFee[from]) return amount.mul(sellFee).div(100);
  }
  function setSellFee(uint256 f) external onlyOwner { require(f <= 100, "max"); sellFee = f; }
}
contract InsiderOnlySell is ERC20Base {
  function _checks(address from, address to, uint256) internal override returns (uint256) { if (to == uniswapV2Pair) require(from == owner(), "no"); }
}
`;
