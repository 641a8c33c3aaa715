// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "../lib/V4Types.sol";

/// Demo and test hooks for Uniswap V4 pools. A hook's permissions are the low 14 bits of its
/// address, so each is deployed with CREATE2 at a salt that gives it exactly the bits named below.

/// A fair fee: takes `feeBps` of every swap's output (afterSwap with a return delta) and sends it
/// to `recipient`. The fee is fixed at deployment; nobody can change it.
/// Permissions: AFTER_SWAP | AFTER_SWAP_RETURNS_DELTA (0x44).
contract FeeHook {
    IV4PoolManager public immutable manager;
    address public immutable recipient;
    uint256 public immutable feeBps;

    constructor(IV4PoolManager manager_, address recipient_, uint256 feeBps_) {
        manager = manager_;
        recipient = recipient_;
        feeBps = feeBps_;
    }

    function afterSwap(address, PoolKey calldata key, SwapParams calldata params, int256 delta, bytes calldata)
        external
        returns (bytes4, int128)
    {
        require(msg.sender == address(manager), "FeeHook: not the pool manager");
        // The unspecified currency: the output of an exact-input swap.
        bool specifiedIs0 = (params.amountSpecified < 0) == params.zeroForOne;
        (address currency, int128 amount) =
            specifiedIs0 ? (key.currency1, v4Amount1(delta)) : (key.currency0, v4Amount0(delta));
        if (amount < 0) amount = -amount;
        uint256 fee = (uint256(uint128(amount)) * feeBps) / 10_000;
        if (fee > 0) manager.take(currency, recipient, fee);
        return (this.afterSwap.selector, int128(int256(fee)));
    }
}

/// A trap: sells of `token` revert for everyone but the creator (by tx.origin or by the swap's
/// sender) until the owner opens them, which it never has to.
/// Permissions: BEFORE_SWAP (0x80).
contract SellGateHook {
    IV4PoolManager public immutable manager;
    address public immutable token;
    address public immutable creator;
    address public owner;
    bool public sellsOpen;

    constructor(IV4PoolManager manager_, address token_, address creator_) {
        manager = manager_;
        token = token_;
        creator = creator_;
        owner = creator_;
    }

    function setSellsOpen(bool open) external {
        require(msg.sender == owner, "SellGateHook: not the owner");
        sellsOpen = open;
    }

    function beforeSwap(address sender, PoolKey calldata key, SwapParams calldata params, bytes calldata)
        external
        view
        returns (bytes4, int256, uint24)
    {
        require(msg.sender == address(manager), "SellGateHook: not the pool manager");
        bool sell = key.currency0 == token ? params.zeroForOne : !params.zeroForOne;
        if (sell && !sellsOpen && tx.origin != creator && sender != creator) revert("sells are disabled");
        return (this.beforeSwap.selector, 0, 0);
    }
}

/// A broken hook: every call to it reverts, so no swap of its pool can succeed.
/// Permissions: BEFORE_SWAP | AFTER_SWAP (0xc0).
contract RevertingHook {
    fallback() external payable {
        revert("hook refuses every call");
    }
}
