// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// The few Uniswap V4 types and PoolManager functions our contracts use, ABI-identical to
/// @uniswap/v4-core's (Currency and IHooks are addresses, BalanceDelta and BeforeSwapDelta are
/// int256 with the first amount in the upper 128 bits), so that hook callbacks and PoolManager
/// calls have the real selectors.

struct PoolKey {
    address currency0;
    address currency1;
    uint24 fee;
    int24 tickSpacing;
    address hooks;
}

struct SwapParams {
    bool zeroForOne;
    int256 amountSpecified;
    uint160 sqrtPriceLimitX96;
}

struct ModifyLiquidityParams {
    int24 tickLower;
    int24 tickUpper;
    int256 liquidityDelta;
    bytes32 salt;
}

interface IV4PoolManager {
    function unlock(bytes calldata data) external returns (bytes memory);
    function swap(PoolKey memory key, SwapParams memory params, bytes calldata hookData) external returns (int256);
    function sync(address currency) external;
    function settle() external payable returns (uint256);
    function take(address currency, address to, uint256 amount) external;
    function extsload(bytes32 startSlot, uint256 nSlots) external view returns (bytes32[] memory);
}

// TickMath.MIN_SQRT_PRICE + 1 and MAX_SQRT_PRICE - 1: swap price limits that never bind.
uint160 constant V4_MIN_PRICE_LIMIT = 4295128740;
uint160 constant V4_MAX_PRICE_LIMIT = 1461446703485210103287273052203988822378723970341;
// StateLibrary.POOLS_SLOT: `pools` is the PoolManager's seventh storage slot.
uint256 constant V4_POOLS_SLOT = 6;
// StateLibrary.LIQUIDITY_OFFSET: Pool.State's in-range liquidity.
uint256 constant V4_LIQUIDITY_OFFSET = 3;

function v4Amount0(int256 delta) pure returns (int128) {
    return int128(delta >> 128);
}

function v4Amount1(int256 delta) pure returns (int128) {
    return int128(delta);
}

function v4PoolId(PoolKey memory key) pure returns (bytes32) {
    return keccak256(abi.encode(key));
}

/// sqrtPriceX96 and in-range liquidity, read as StateLibrary does (extsload of Pool.State).
function v4State(address manager, PoolKey memory key) view returns (uint160 sqrtPriceX96, uint128 liquidity) {
    bytes32 slot = keccak256(abi.encodePacked(v4PoolId(key), bytes32(V4_POOLS_SLOT)));
    bytes32[] memory words = IV4PoolManager(manager).extsload(slot, V4_LIQUIDITY_OFFSET + 1);
    sqrtPriceX96 = uint160(uint256(words[0]));
    liquidity = uint128(uint256(words[V4_LIQUIDITY_OFFSET]));
}
