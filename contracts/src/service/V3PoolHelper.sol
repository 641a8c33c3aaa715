// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IERC20Minimal {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

interface IUniswapV3PoolMinimal {
    function token0() external view returns (address);
    function token1() external view returns (address);
    function mint(address recipient, int24 tickLower, int24 tickUpper, uint128 amount, bytes calldata data)
        external returns (uint256 amount0, uint256 amount1);
    function burn(int24 tickLower, int24 tickUpper, uint128 amount) external returns (uint256 amount0, uint256 amount1);
    function swap(address recipient, bool zeroForOne, int256 amountSpecified, uint160 sqrtPriceLimitX96, bytes calldata data)
        external returns (int256 amount0, int256 amount1);
}

/// Dev/test helper for a bare Uniswap V3 core deployment (no periphery): adds liquidity and
/// swaps by answering the pool's callbacks, paying from the caller's approved balances.
/// Positions are owned by this helper; `burn` removes liquidity on the caller's behalf.
contract V3PoolHelper {
    address private activePool;
    address private payer;

    function mint(address pool, int24 tickLower, int24 tickUpper, uint128 amount)
        external returns (uint256 amount0, uint256 amount1)
    {
        activePool = pool;
        payer = msg.sender;
        (amount0, amount1) = IUniswapV3PoolMinimal(pool).mint(address(this), tickLower, tickUpper, amount, "");
        activePool = address(0);
    }

    function burn(address pool, int24 tickLower, int24 tickUpper, uint128 amount)
        external returns (uint256 amount0, uint256 amount1)
    {
        (amount0, amount1) = IUniswapV3PoolMinimal(pool).burn(tickLower, tickUpper, amount);
    }

    function swap(address pool, bool zeroForOne, int256 amountSpecified, uint160 sqrtPriceLimitX96)
        external returns (int256 amount0, int256 amount1)
    {
        activePool = pool;
        payer = msg.sender;
        (amount0, amount1) = IUniswapV3PoolMinimal(pool).swap(msg.sender, zeroForOne, amountSpecified, sqrtPriceLimitX96, "");
        activePool = address(0);
    }

    function uniswapV3MintCallback(uint256 owed0, uint256 owed1, bytes calldata) external {
        _pay(owed0, owed1);
    }

    function uniswapV3SwapCallback(int256 delta0, int256 delta1, bytes calldata) external {
        _pay(delta0 > 0 ? uint256(delta0) : 0, delta1 > 0 ? uint256(delta1) : 0);
    }

    function _pay(uint256 owed0, uint256 owed1) private {
        require(msg.sender == activePool, "V3PoolHelper: unexpected caller");
        IUniswapV3PoolMinimal pool = IUniswapV3PoolMinimal(msg.sender);
        if (owed0 > 0) require(IERC20Minimal(pool.token0()).transferFrom(payer, msg.sender, owed0), "pay0");
        if (owed1 > 0) require(IERC20Minimal(pool.token1()).transferFrom(payer, msg.sender, owed1), "pay1");
    }
}
