// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "../lib/V4Types.sol";

/// Placed by eth_call state override at a V4 pool's hook address, with the hook's own code moved
/// to SHADOW: every call runs the hook's code there by DELEGATECALL (its storage, balance, address
/// and immutables, msg.sender and msg.value), except a beforeSwap or afterSwap whose hookData is
/// the NEUTRAL word, which answers as a hook that does nothing. The V4TradeSimulator swaps with
/// that word to quote what the pool alone gives, and without it to trade through the hook.
/// Trade-off: while it stands there, code that asks for the hook address's code sees this one.
contract HookSwitch {
    address internal constant SHADOW = 0x00000000000000000000000000000000005a4D0F;
    bytes32 internal constant NEUTRAL = keccak256("token-monitor.hook-switch.neutral");

    function beforeSwap(address, PoolKey calldata, SwapParams calldata, bytes calldata hookData)
        external
        returns (bytes4, int256, uint24)
    {
        if (_neutral(hookData)) return (HookSwitch.beforeSwap.selector, 0, 0);
        _forward();
    }

    function afterSwap(address, PoolKey calldata, SwapParams calldata, int256, bytes calldata hookData)
        external
        returns (bytes4, int128)
    {
        if (_neutral(hookData)) return (HookSwitch.afterSwap.selector, 0);
        _forward();
    }

    fallback() external payable {
        _forward();
    }

    receive() external payable {
        _forward();
    }

    function _neutral(bytes calldata hookData) private pure returns (bool) {
        return hookData.length == 32 && bytes32(hookData) == NEUTRAL;
    }

    function _forward() private {
        assembly {
            calldatacopy(0, 0, calldatasize())
            let ok := delegatecall(gas(), SHADOW, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            if iszero(ok) { revert(0, returndatasize()) }
            return(0, returndatasize())
        }
    }
}
