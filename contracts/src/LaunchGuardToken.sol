// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./lib/ERC20Core.sol";
import "./lib/Owned.sol";

/// Trading not yet enabled: liquidity is in, but until the owner calls enableTrading() nobody
/// but the owner can move tokens (so every buy from the pair reverts).
contract LaunchGuardToken is ERC20, Owned {
    bool public tradingEnabled;

    event TradingEnabled();

    constructor(string memory name_, string memory symbol_, uint256 supply) {
        _setMetadata(name_, symbol_);
        _setOwner(msg.sender);
        _mint(msg.sender, supply);
    }

    function enableTrading() external onlyOwner {
        tradingEnabled = true;
        emit TradingEnabled();
    }

    function _transfer(address from, address to, uint256 amount) internal override {
        require(tradingEnabled || from == _owner || to == _owner, "Trading not enabled");
        super._transfer(from, to, amount);
    }
}
