// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./lib/ERC20Core.sol";

/// Honest fixed-supply token: everything minted to the deployer, no owner, no hooks.
contract SimpleToken is ERC20 {
    constructor(string memory name_, string memory symbol_, uint256 supply) {
        _setMetadata(name_, symbol_);
        _mint(msg.sender, supply);
    }
}
