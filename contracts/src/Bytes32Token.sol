// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./lib/ERC20Core.sol";

/// Old-style token (like MKR or SAI) whose name() and symbol() return bytes32.
contract Bytes32Token is ERC20Core {
    bytes32 public immutable name;
    bytes32 public immutable symbol;

    constructor(bytes32 name_, bytes32 symbol_, uint256 supply) {
        name = name_;
        symbol = symbol_;
        _mint(msg.sender, supply);
    }
}
