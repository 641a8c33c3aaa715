// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./lib/ERC20Core.sol";

/// A USD stand-in for the dev chain and tests: fixed supply to the deployer, 6 decimals like USDC.
contract DevStablecoin is ERC20 {
    constructor(string memory name_, string memory symbol_, uint256 supply) {
        _setMetadata(name_, symbol_);
        _mint(msg.sender, supply);
    }

    function decimals() public pure override returns (uint8) {
        return 6;
    }
}
