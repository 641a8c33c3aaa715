// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A plain contract that is not an ERC-20 (no totalSupply, balanceOf, transfer, ...):
/// a tiny key/value registry, so that scanners see a deployment that must be skipped.
contract NotAToken {
    address public immutable creator;
    uint256 public entries;
    mapping(bytes32 => string) private _values;

    event ValueSet(bytes32 indexed key, string value);

    constructor() {
        creator = msg.sender;
    }

    function setValue(bytes32 key, string calldata value) external {
        if (bytes(_values[key]).length == 0) entries += 1;
        _values[key] = value;
        emit ValueSet(key, value);
    }

    function getValue(bytes32 key) external view returns (string memory) {
        return _values[key];
    }
}
