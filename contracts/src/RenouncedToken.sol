// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./lib/ERC20Core.sol";
import "./lib/Owned.sol";

/// Honest token whose owner renounced: it still has an owner-only mint, but after
/// renounceOwnership() (owner() == 0, no other privileged address) nobody can call it.
contract RenouncedToken is ERC20, Owned {
    constructor(string memory name_, string memory symbol_, uint256 supply) {
        _setMetadata(name_, symbol_);
        _setOwner(msg.sender);
        _mint(msg.sender, supply);
    }

    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }
}
