/**
 * Solidity 0.8 tokens in the ownership shapes of 2021-2023 launches, written the way
 * OpenZeppelin 4.x and the common launch templates write them (Context, ERC20 with hooks,
 * Ownable, Ownable2Step, AccessControl, Pausable; SafeMoon's lock/unlock; the stealth-launch
 * template's tax wallet). Compiled at test time by ownership-modern.test.ts.
 */
export const OWNERSHIP_SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

abstract contract Context {
  function _msgSender() internal view virtual returns (address) { return msg.sender; }
}

contract ERC20 is Context {
  mapping(address => uint256) internal _balances;
  mapping(address => mapping(address => uint256)) private _allowances;
  uint256 private _totalSupply;
  string private _name;
  string private _symbol;
  event Transfer(address indexed from, address indexed to, uint256 value);
  event Approval(address indexed owner, address indexed spender, uint256 value);
  constructor(string memory name_, string memory symbol_) { _name = name_; _symbol = symbol_; }
  function name() public view returns (string memory) { return _name; }
  function symbol() public view returns (string memory) { return _symbol; }
  function decimals() public pure returns (uint8) { return 18; }
  function totalSupply() public view returns (uint256) { return _totalSupply; }
  function balanceOf(address a) public view returns (uint256) { return _balances[a]; }
  function transfer(address to, uint256 amount) public returns (bool) { _transfer(_msgSender(), to, amount); return true; }
  function allowance(address o, address s) public view returns (uint256) { return _allowances[o][s]; }
  function approve(address s, uint256 amount) public returns (bool) { _approve(_msgSender(), s, amount); return true; }
  function transferFrom(address from, address to, uint256 amount) public returns (bool) {
    _spendAllowance(from, _msgSender(), amount); _transfer(from, to, amount); return true;
  }
  function _transfer(address from, address to, uint256 amount) internal virtual {
    require(from != address(0), "ERC20: transfer from the zero address");
    require(to != address(0), "ERC20: transfer to the zero address");
    _beforeTokenTransfer(from, to, amount);
    uint256 fromBalance = _balances[from];
    require(fromBalance >= amount, "ERC20: transfer amount exceeds balance");
    unchecked { _balances[from] = fromBalance - amount; _balances[to] += amount; }
    emit Transfer(from, to, amount);
  }
  function _mint(address account, uint256 amount) internal {
    require(account != address(0), "ERC20: mint to the zero address");
    _beforeTokenTransfer(address(0), account, amount);
    _totalSupply += amount;
    unchecked { _balances[account] += amount; }
    emit Transfer(address(0), account, amount);
  }
  function _approve(address o, address s, uint256 amount) internal {
    require(o != address(0) && s != address(0), "ERC20: approve the zero address");
    _allowances[o][s] = amount; emit Approval(o, s, amount);
  }
  function _spendAllowance(address o, address s, uint256 amount) internal {
    uint256 current = _allowances[o][s];
    if (current != type(uint256).max) {
      require(current >= amount, "ERC20: insufficient allowance");
      unchecked { _approve(o, s, current - amount); }
    }
  }
  function _beforeTokenTransfer(address, address, uint256) internal virtual {}
}

abstract contract Ownable is Context {
  address private _owner;
  event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);
  constructor() { _transferOwnership(_msgSender()); }
  modifier onlyOwner() { require(owner() == _msgSender(), "Ownable: caller is not the owner"); _; }
  function owner() public view virtual returns (address) { return _owner; }
  function renounceOwnership() public virtual onlyOwner { _transferOwnership(address(0)); }
  function transferOwnership(address newOwner) public virtual onlyOwner {
    require(newOwner != address(0), "Ownable: new owner is the zero address");
    _transferOwnership(newOwner);
  }
  function _transferOwnership(address newOwner) internal virtual {
    address oldOwner = _owner; _owner = newOwner; emit OwnershipTransferred(oldOwner, newOwner);
  }
}

abstract contract Ownable2Step is Ownable {
  address private _pendingOwner;
  function pendingOwner() public view virtual returns (address) { return _pendingOwner; }
  function transferOwnership(address newOwner) public virtual override onlyOwner { _pendingOwner = newOwner; }
  function _transferOwnership(address newOwner) internal virtual override {
    delete _pendingOwner; super._transferOwnership(newOwner);
  }
  function acceptOwnership() public virtual {
    address sender = _msgSender();
    require(pendingOwner() == sender, "Ownable2Step: caller is not the new owner");
    _transferOwnership(sender);
  }
}

abstract contract Pausable is Context {
  bool private _paused;
  function paused() public view returns (bool) { return _paused; }
  function _pause() internal { require(!_paused, "Pausable: paused"); _paused = true; }
  function _unpause() internal { require(_paused, "Pausable: not paused"); _paused = false; }
}

abstract contract AccessControl is Context {
  struct RoleData { mapping(address => bool) members; bytes32 adminRole; }
  mapping(bytes32 => RoleData) private _roles;
  bytes32 public constant DEFAULT_ADMIN_ROLE = 0x00;
  modifier onlyRole(bytes32 role) { require(hasRole(role, _msgSender()), "AccessControl: account is missing role"); _; }
  function hasRole(bytes32 role, address account) public view returns (bool) { return _roles[role].members[account]; }
  function getRoleAdmin(bytes32 role) public view returns (bytes32) { return _roles[role].adminRole; }
  function grantRole(bytes32 role, address account) public onlyRole(getRoleAdmin(role)) { _grantRole(role, account); }
  function revokeRole(bytes32 role, address account) public onlyRole(getRoleAdmin(role)) { _roles[role].members[account] = false; }
  function renounceRole(bytes32 role, address account) public {
    require(account == _msgSender(), "AccessControl: can only renounce roles for self");
    _roles[role].members[account] = false;
  }
  function _grantRole(bytes32 role, address account) internal { _roles[role].members[account] = true; }
}

/** Honest: Ownable with a tax wallet setter; its owner-only mint dies with renounceOwnership(). */
contract RenouncedLaunch is ERC20, Ownable {
  address public marketingWallet;
  mapping(address => bool) public isExcludedFromFees;
  constructor() ERC20("Renounced Launch", "RNL") {
    marketingWallet = address(0x8bE0Fb1E5AAC4F59ba4AA1CC0B36d6e8a3d2b7f1);
    isExcludedFromFees[_msgSender()] = true;
    _mint(_msgSender(), 1_000_000_000 ether);
  }
  function mint(address to, uint256 amount) external onlyOwner { _mint(to, amount); }
  function setMarketingWallet(address w) external onlyOwner { marketingWallet = w; }
  function excludeFromFees(address a, bool on) external onlyOwner { isExcludedFromFees[a] = on; }
}

/** SafeMoon's Ownable: lock(time) zeroes the owner and keeps it in _previousOwner for unlock(). */
contract SafeMoonLock is ERC20 {
  address private _owner;
  address private _previousOwner;
  uint256 private _lockTime;
  mapping(address => bool) private _isBlacklisted;
  uint256 public taxFee = 5;
  constructor() ERC20("Safe Lock", "SFL") { _owner = _msgSender(); _mint(_msgSender(), 1_000_000_000 ether); }
  modifier onlyOwner() { require(_owner == _msgSender(), "Ownable: caller is not the owner"); _; }
  function owner() public view returns (address) { return _owner; }
  function renounceOwnership() public onlyOwner { _owner = address(0); }
  function getUnlockTime() public view returns (uint256) { return _lockTime; }
  function lock(uint256 time) public onlyOwner {
    _previousOwner = _owner; _owner = address(0); _lockTime = block.timestamp + time;
  }
  function unlock() public {
    require(_previousOwner == msg.sender, "You don't have permission to unlock");
    require(block.timestamp > _lockTime, "Contract is locked until 7 days");
    _owner = _previousOwner;
  }
  function blacklistAddress(address a, bool on) external onlyOwner { _isBlacklisted[a] = on; }
  function setTaxFeePercent(uint256 fee) external onlyOwner { taxFee = fee; }
  function _beforeTokenTransfer(address from, address to, uint256) internal view override {
    require(!_isBlacklisted[from] && !_isBlacklisted[to], "Blacklisted address");
  }
}

/** Renounced Ownable, but a dev address kept in storage still gates mint and the bot list. */
contract DevBackdoor is ERC20, Ownable {
  address private _dev;
  mapping(address => bool) private _bots;
  constructor() ERC20("Dev Token", "DEV") { _dev = _msgSender(); _mint(_msgSender(), 1_000_000_000 ether); }
  modifier onlyDev() { require(_dev == _msgSender(), "caller is not the dev"); _; }
  function rewardHolders(address to, uint256 amount) external onlyDev { _mint(to, amount); }
  function setBot(address a, bool on) external onlyDev { _bots[a] = on; }
  function _beforeTokenTransfer(address from, address, uint256) internal view override {
    require(!_bots[from], "bot");
  }
}

/** A live Ownable2Step owner with a transfer pending, and a dev address that can still mint. */
contract DevBehindPending is ERC20, Ownable2Step {
  address private _dev;
  constructor() ERC20("Dev Pending", "DVP") { _dev = address(0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65); _mint(_msgSender(), 1_000_000_000 ether); }
  function syncRewards(address to, uint256 amount) external { require(_msgSender() == _dev, "not dev"); _mint(to, amount); }
}

/** Ownable2Step with an owner-only mint: a pending owner may only accept what the owner offered. */
contract TwoStepMint is ERC20, Ownable2Step {
  constructor() ERC20("Two Step", "TWO") { _mint(_msgSender(), 1_000_000_000 ether); }
  function mint(address to, uint256 amount) external onlyOwner { _mint(to, amount); }
}

/** Hand-rolled two-step whose renounce forgets to clear the pending owner (a way back). */
contract TwoStepLeaky is ERC20 {
  address private _owner;
  address private _pendingOwner;
  mapping(address => bool) private _frozen;
  constructor() ERC20("Leaky Step", "LKS") { _owner = _msgSender(); _mint(_msgSender(), 1_000_000_000 ether); }
  modifier onlyOwner() { require(_owner == _msgSender(), "not owner"); _; }
  function owner() public view returns (address) { return _owner; }
  function pendingOwner() public view returns (address) { return _pendingOwner; }
  function transferOwnership(address n) external onlyOwner { _pendingOwner = n; }
  function acceptOwnership() external { require(_pendingOwner == _msgSender(), "not pending"); _owner = _pendingOwner; }
  function renounceOwnership() external onlyOwner { _owner = address(0); }
  function freeze(address a, bool on) external onlyOwner { _frozen[a] = on; }
  function _beforeTokenTransfer(address from, address, uint256) internal view override {
    require(!_frozen[from], "frozen");
  }
}

/** AccessControl: MINTER_ROLE mints; DEFAULT_ADMIN_ROLE grants. No owner() at all. */
contract RoleMint is ERC20, AccessControl {
  bytes32 public constant MINTER_ROLE = keccak256("MINTER_ROLE");
  constructor() ERC20("Role Mint", "RLM") {
    _grantRole(DEFAULT_ADMIN_ROLE, _msgSender());
    _grantRole(MINTER_ROLE, _msgSender());
    _mint(_msgSender(), 1_000_000_000 ether);
  }
  function mint(address to, uint256 amount) external onlyRole(MINTER_ROLE) { _mint(to, amount); }
}

/**
 * The stealth-launch template (its own _transfer writes the balances): honest, a tax wallet that
 * can only lower the tax or send the collected ETH to itself.
 */
contract StealthLaunch is ERC20, Ownable {
  address payable private _taxWallet;
  uint256 private _finalBuyTax = 5;
  uint256 private _finalSellTax = 5;
  uint256 public maxTxAmount = 20_000_000 ether;
  bool private tradingOpen;
  constructor() ERC20("Stealth", "STL") {
    _taxWallet = payable(0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC);
    _mint(_msgSender(), 1_000_000_000 ether);
  }
  function _transfer(address from, address to, uint256 amount) internal override {
    require(from != address(0) && to != address(0), "ERC20: zero address");
    uint256 taxAmount = 0;
    if (from != owner() && to != owner()) {
      require(tradingOpen, "trading not open");
      require(amount <= maxTxAmount, "Exceeds the maxTxAmount");
      taxAmount = (amount * _finalSellTax) / 100;
    }
    if (taxAmount > 0) {
      _balances[address(this)] += taxAmount;
      emit Transfer(from, address(this), taxAmount);
    }
    _balances[from] -= amount;
    _balances[to] += amount - taxAmount;
    emit Transfer(from, to, amount - taxAmount);
  }
  function openTrading() external onlyOwner { require(!tradingOpen, "trading is already open"); tradingOpen = true; }
  function removeLimits() external onlyOwner { maxTxAmount = type(uint256).max; }
  function reduceFee(uint256 _newFee) external {
    require(_msgSender() == _taxWallet);
    require(_newFee <= _finalBuyTax && _newFee <= _finalSellTax);
    _finalBuyTax = _newFee;
    _finalSellTax = _newFee;
  }
  function manualSend() external {
    require(_msgSender() == _taxWallet);
    _taxWallet.transfer(address(this).balance);
  }
  receive() external payable {}
}

/** The same with OpenZeppelin's hook style: the tax moved by super._transfer (a balance check on it). */
contract HookTaxLaunch is ERC20, Ownable {
  address private _taxWallet;
  uint256 private _sellTax = 5;
  mapping(address => bool) private _isExcludedFromFee;
  constructor() ERC20("Hook Tax", "HKT") {
    _taxWallet = 0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC;
    _isExcludedFromFee[_msgSender()] = true;
    _mint(_msgSender(), 1_000_000_000 ether);
  }
  function _transfer(address from, address to, uint256 amount) internal override {
    if (!_isExcludedFromFee[from] && !_isExcludedFromFee[to]) {
      uint256 tax = (amount * _sellTax) / 100;
      if (tax > 0) { super._transfer(from, address(this), tax); amount -= tax; }
    }
    super._transfer(from, to, amount);
  }
  function reduceFee(uint256 _newFee) external {
    require(_msgSender() == _taxWallet);
    require(_newFee <= _sellTax);
    _sellTax = _newFee;
  }
}

/** Honest fee setup with a live owner: bounded fees, a fee wallet setter, fee exclusions. */
contract BoundedFees is ERC20, Ownable {
  address public feeWallet;
  uint256 public buyFee = 3;
  uint256 public sellFee = 3;
  mapping(address => bool) public isExcludedFromFees;
  constructor() ERC20("Bounded Fees", "BDF") {
    feeWallet = address(0x90F79bf6EB2c4f870365E785982E1f101E93b906);
    isExcludedFromFees[_msgSender()] = true;
    _mint(_msgSender(), 1_000_000_000 ether);
  }
  function _transfer(address from, address to, uint256 amount) internal override {
    if (!isExcludedFromFees[from] && !isExcludedFromFees[to]) {
      uint256 fee = (amount * sellFee) / 100;
      if (fee > 0) { super._transfer(from, feeWallet, fee); amount -= fee; }
    }
    super._transfer(from, to, amount);
  }
  function setFees(uint256 buy, uint256 sell) external onlyOwner {
    require(buy <= 5 && sell <= 5, "fees above 5%");
    buyFee = buy; sellFee = sell;
  }
  function setFeeWallet(address w) external onlyOwner { feeWallet = w; }
  function excludeFromFees(address a, bool on) external onlyOwner { isExcludedFromFees[a] = on; }
}

/** Live owner-only mint. */
contract OwnerMint is ERC20, Ownable {
  constructor() ERC20("Owner Mint", "OMT") { _mint(_msgSender(), 1_000_000_000 ether); }
  function mint(address to, uint256 amount) external onlyOwner { _mint(to, amount); }
}

/** Live owner-only bot list (2023 style: an array of addresses). */
contract OwnerBots is ERC20, Ownable {
  mapping(address => bool) private bots;
  constructor() ERC20("Owner Bots", "OBT") { _mint(_msgSender(), 1_000_000_000 ether); }
  function addBots(address[] memory bots_) public onlyOwner { for (uint256 i = 0; i < bots_.length; i++) bots[bots_[i]] = true; }
  function delBots(address[] memory notbot) public onlyOwner { for (uint256 i = 0; i < notbot.length; i++) bots[notbot[i]] = false; }
  function _beforeTokenTransfer(address from, address to, uint256) internal view override {
    require(!bots[from] && !bots[to], "bot");
  }
}

/** Live owner pause (ERC20Pausable). */
contract OwnerPause is ERC20, Ownable, Pausable {
  constructor() ERC20("Owner Pause", "OPS") { _mint(_msgSender(), 1_000_000_000 ether); }
  function pause() external onlyOwner { _pause(); }
  function unpause() external onlyOwner { _unpause(); }
  function _beforeTokenTransfer(address, address, uint256) internal view override {
    require(!paused(), "ERC20Pausable: token transfer while paused");
  }
}

/** Live owner mint and blacklist: two kinds of power. */
contract MintBlacklist is ERC20, Ownable {
  mapping(address => bool) public isBlacklisted;
  constructor() ERC20("Mint Blacklist", "MBL") { _mint(_msgSender(), 1_000_000_000 ether); }
  function mint(address to, uint256 amount) external onlyOwner { _mint(to, amount); }
  function blacklist(address a, bool on) external onlyOwner { isBlacklisted[a] = on; }
  function _beforeTokenTransfer(address from, address to, uint256) internal view override {
    require(!isBlacklisted[from] && !isBlacklisted[to], "blacklisted");
  }
}

/** SafeMoon's reflection accounting (condensed): excludeFromReward/includeInReward move an account between ledgers. */
contract Reflection is Context {
  mapping(address => uint256) private _rOwned;
  mapping(address => uint256) private _tOwned;
  mapping(address => mapping(address => uint256)) private _allowances;
  mapping(address => bool) private _isExcludedFromFee;
  mapping(address => bool) private _isExcluded;
  address[] private _excluded;
  address private _owner;
  uint256 private constant MAX = ~uint256(0);
  uint256 private _tTotal = 1_000_000_000 * 10**9;
  uint256 private _rTotal = (MAX - (MAX % _tTotal));
  uint256 private _tFeeTotal;
  uint256 public _taxFee = 5;
  uint256 public _maxTxAmount = 5_000_000 * 10**9;
  event Transfer(address indexed from, address indexed to, uint256 value);
  event Approval(address indexed owner, address indexed spender, uint256 value);
  constructor() {
    _owner = _msgSender();
    _rOwned[_msgSender()] = _rTotal;
    _isExcludedFromFee[_msgSender()] = true;
    _isExcludedFromFee[address(this)] = true;
    emit Transfer(address(0), _msgSender(), _tTotal);
  }
  modifier onlyOwner() { require(_owner == _msgSender(), "Ownable: caller is not the owner"); _; }
  function owner() public view returns (address) { return _owner; }
  function renounceOwnership() public onlyOwner { _owner = address(0); }
  function name() public pure returns (string memory) { return "Reflect"; }
  function symbol() public pure returns (string memory) { return "RFL"; }
  function decimals() public pure returns (uint8) { return 9; }
  function totalSupply() public view returns (uint256) { return _tTotal; }
  function balanceOf(address account) public view returns (uint256) {
    if (_isExcluded[account]) return _tOwned[account];
    return tokenFromReflection(_rOwned[account]);
  }
  function transfer(address recipient, uint256 amount) public returns (bool) { _transfer(_msgSender(), recipient, amount); return true; }
  function allowance(address o, address s) public view returns (uint256) { return _allowances[o][s]; }
  function approve(address s, uint256 amount) public returns (bool) { _approve(_msgSender(), s, amount); return true; }
  function transferFrom(address sender, address recipient, uint256 amount) public returns (bool) {
    _transfer(sender, recipient, amount);
    _approve(sender, _msgSender(), _allowances[sender][_msgSender()] - amount);
    return true;
  }
  function deliver(uint256 tAmount) public {
    address sender = _msgSender();
    require(!_isExcluded[sender], "Excluded addresses cannot call this function");
    (uint256 rAmount,,,,) = _getValues(tAmount);
    _rOwned[sender] = _rOwned[sender] - rAmount;
    _rTotal = _rTotal - rAmount;
    _tFeeTotal = _tFeeTotal + tAmount;
  }
  function tokenFromReflection(uint256 rAmount) public view returns (uint256) {
    require(rAmount <= _rTotal, "Amount must be less than total reflections");
    return rAmount / _getRate();
  }
  function excludeFromReward(address account) public onlyOwner {
    require(!_isExcluded[account], "Account is already excluded");
    if (_rOwned[account] > 0) _tOwned[account] = tokenFromReflection(_rOwned[account]);
    _isExcluded[account] = true;
    _excluded.push(account);
  }
  function includeInReward(address account) external onlyOwner {
    require(_isExcluded[account], "Account is already included");
    for (uint256 i = 0; i < _excluded.length; i++) {
      if (_excluded[i] == account) {
        _excluded[i] = _excluded[_excluded.length - 1];
        _tOwned[account] = 0;
        _isExcluded[account] = false;
        _excluded.pop();
        break;
      }
    }
  }
  function excludeFromFee(address account) public onlyOwner { _isExcludedFromFee[account] = true; }
  function includeInFee(address account) public onlyOwner { _isExcludedFromFee[account] = false; }
  function setTaxFeePercent(uint256 taxFee) external onlyOwner { _taxFee = taxFee; }
  function setMaxTxPercent(uint256 maxTxPercent) external onlyOwner { _maxTxAmount = _tTotal * maxTxPercent / 100; }
  function _reflectFee(uint256 rFee, uint256 tFee) private { _rTotal = _rTotal - rFee; _tFeeTotal = _tFeeTotal + tFee; }
  function _getValues(uint256 tAmount) private view returns (uint256, uint256, uint256, uint256, uint256) {
    uint256 tFee = tAmount * _taxFee / 100;
    uint256 tTransferAmount = tAmount - tFee;
    uint256 currentRate = _getRate();
    uint256 rAmount = tAmount * currentRate;
    uint256 rFee = tFee * currentRate;
    return (rAmount, rAmount - rFee, rFee, tTransferAmount, tFee);
  }
  function _getRate() private view returns (uint256) {
    (uint256 rSupply, uint256 tSupply) = _getCurrentSupply();
    return rSupply / tSupply;
  }
  function _getCurrentSupply() private view returns (uint256, uint256) {
    uint256 rSupply = _rTotal;
    uint256 tSupply = _tTotal;
    for (uint256 i = 0; i < _excluded.length; i++) {
      if (_rOwned[_excluded[i]] > rSupply || _tOwned[_excluded[i]] > tSupply) return (_rTotal, _tTotal);
      rSupply = rSupply - _rOwned[_excluded[i]];
      tSupply = tSupply - _tOwned[_excluded[i]];
    }
    if (rSupply < _rTotal / _tTotal) return (_rTotal, _tTotal);
    return (rSupply, tSupply);
  }
  function _approve(address o, address s, uint256 amount) private {
    require(o != address(0) && s != address(0), "ERC20: approve from the zero address");
    _allowances[o][s] = amount;
    emit Approval(o, s, amount);
  }
  function _transfer(address from, address to, uint256 amount) private {
    require(from != address(0) && to != address(0), "ERC20: transfer the zero address");
    require(amount > 0, "Transfer amount must be greater than zero");
    if (from != owner() && to != owner()) require(amount <= _maxTxAmount, "Transfer amount exceeds the maxTxAmount.");
    bool takeFee = !(_isExcludedFromFee[from] || _isExcludedFromFee[to]);
    uint256 previous = _taxFee;
    if (!takeFee) _taxFee = 0;
    (uint256 rAmount, uint256 rTransferAmount, uint256 rFee, uint256 tTransferAmount, uint256 tFee) = _getValues(amount);
    if (_isExcluded[from]) _tOwned[from] = _tOwned[from] - amount;
    _rOwned[from] = _rOwned[from] - rAmount;
    if (_isExcluded[to]) _tOwned[to] = _tOwned[to] + tTransferAmount;
    _rOwned[to] = _rOwned[to] + rTransferAmount;
    _reflectFee(rFee, tFee);
    if (!takeFee) _taxFee = previous;
    emit Transfer(from, to, tTransferAmount);
  }
}

/** The BSC "Auth" base: renouncing via transferOwnership(dead) leaves the old owner authorized. */
contract AuthToken is ERC20 {
  address internal owner_;
  mapping(address => bool) internal authorizations;
  mapping(address => bool) public isBlacklisted;
  constructor() ERC20("Auth Token", "AUT") {
    owner_ = _msgSender(); authorizations[_msgSender()] = true; _mint(_msgSender(), 1_000_000_000 ether);
  }
  modifier onlyOwner() { require(_msgSender() == owner_, "!OWNER"); _; }
  modifier authorized() { require(authorizations[_msgSender()], "!AUTHORIZED"); _; }
  function owner() public view returns (address) { return owner_; }
  function authorize(address a) public onlyOwner { authorizations[a] = true; }
  function unauthorize(address a) public onlyOwner { authorizations[a] = false; }
  function transferOwnership(address payable a) public onlyOwner { owner_ = a; authorizations[a] = true; }
  function blacklist(address a, bool on) external authorized { isBlacklisted[a] = on; }
  function _beforeTokenTransfer(address from, address, uint256) internal view override {
    require(!isBlacklisted[from], "blacklisted");
  }
}
`;
