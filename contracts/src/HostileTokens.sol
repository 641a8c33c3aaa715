// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./lib/ERC20Core.sol";

/// Tokens whose metadata is built to hurt a scanner. Each is a real ERC-20 otherwise, so the
/// service must record it and survive what it answers.

/// name() burns all the gas it is given; symbol() reverts; decimals() reverts with a long reason.
contract GasBurnerToken is ERC20Core {
    constructor(uint256 supply) {
        _mint(msg.sender, supply);
    }

    function name() external pure returns (string memory) {
        uint256 i;
        while (true) {
            unchecked { i++; }
        }
        return "";
    }

    function symbol() external pure returns (string memory) {
        revert("no symbol for you");
    }

    function decimals() public pure override returns (uint8) {
        revert("decimals are a social construct, and this reason string is long on purpose to be annoying");
    }
}

/// symbol() is not valid UTF-8 and carries control characters; name() is 64 KiB long.
contract BadTextToken is ERC20Core {
    constructor(uint256 supply) {
        _mint(msg.sender, supply);
    }

    function name() external pure returns (string memory) {
        bytes memory big = new bytes(65536);
        for (uint256 i = 0; i < big.length; i++) big[i] = bytes1(uint8(65 + (i % 26)));
        return string(big);
    }

    function symbol() external pure returns (string memory) {
        bytes memory raw = hex"fffe001b5b33316d424144c328";
        return string(raw);
    }
}

/// decimals() answers a full word far above 255, as if a uint8 could hold it.
contract LyingDecimalsToken is ERC20Core {
    constructor(uint256 supply) {
        _mint(msg.sender, supply);
    }

    function name() external pure returns (string memory) {
        return "Liar";
    }

    function symbol() external pure returns (string memory) {
        return "LIE";
    }

    function decimals() public pure override returns (uint8) {
        assembly {
            mstore(0, 1000000000000000000000000000000)
            return(0, 32)
        }
    }
}
