// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "../lib/ERC20Core.sol";

/// The holders benchmark's traffic: one call sends tokens to many fresh addresses, so that a
/// history with tens of thousands of Transfer logs takes few transactions to build.
contract SprayToken is ERC20 {
    constructor(string memory name_, string memory symbol_, uint256 supply) {
        _setMetadata(name_, symbol_);
        _mint(msg.sender, supply);
    }

    /// Sends `amount` to each of `count` addresses derived from `seed`.
    function spray(uint256 count, uint256 amount, uint256 seed) external {
        for (uint256 i = 0; i < count; i++) {
            _transfer(msg.sender, address(uint160(uint256(keccak256(abi.encode(seed, i))))), amount);
        }
    }
}
