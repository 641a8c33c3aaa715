// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./lib/ERC20Core.sol";

interface IFixedTaxV2Factory {
    function createPair(address tokenA, address tokenB) external returns (address pair);
}

/// Launchpad-style tax token with fees fixed at deployment: no owner and no setter, so the
/// tax can never change. It creates its own WETH pair in the constructor, as many launch
/// templates do, and sends the fees to an immutable treasury.
contract FixedTaxToken is ERC20 {
    uint256 public constant FEE_DENOMINATOR = 10_000;
    uint256 public immutable buyFeeBps;
    uint256 public immutable sellFeeBps;
    address public immutable treasury;
    address public immutable pair;

    constructor(
        string memory name_,
        string memory symbol_,
        uint256 supply,
        uint256 buyBps,
        uint256 sellBps,
        address v2Factory,
        address weth
    ) {
        require(buyBps <= 2_500 && sellBps <= 2_500, "fee above 25%");
        _setMetadata(name_, symbol_);
        buyFeeBps = buyBps;
        sellFeeBps = sellBps;
        treasury = msg.sender;
        pair = IFixedTaxV2Factory(v2Factory).createPair(address(this), weth);
        _mint(msg.sender, supply);
    }

    function _transfer(address from, address to, uint256 amount) internal override {
        require(from != address(0) && to != address(0), "ERC20: zero address");
        uint256 feeBps;
        if (from != treasury && to != treasury) {
            if (from == pair) feeBps = buyFeeBps;
            else if (to == pair) feeBps = sellFeeBps;
        }
        uint256 fee = (amount * feeBps) / FEE_DENOMINATOR;
        if (fee > 0) _move(from, treasury, fee);
        _move(from, to, amount - fee);
    }
}
