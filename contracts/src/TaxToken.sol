// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./lib/ERC20Core.sol";
import "./lib/Owned.sol";

/// Buy tax on transfers out of the pair, sell tax on transfers into it; fees go to the owner.
/// The owner may set either fee anywhere up to 100 % (a 100 % sell fee is a soft honeypot).
contract TaxToken is ERC20, PairAware {
    uint256 public constant FEE_DENOMINATOR = 10_000; // fees are in basis points
    uint256 public buyFeeBps;
    uint256 public sellFeeBps;
    mapping(address => bool) public isExcludedFromFee;

    event FeesUpdated(uint256 buyFeeBps, uint256 sellFeeBps);

    constructor(string memory name_, string memory symbol_, uint256 supply, uint256 buyBps, uint256 sellBps) {
        _setMetadata(name_, symbol_);
        _setOwner(msg.sender);
        isExcludedFromFee[msg.sender] = true;
        _setFees(buyBps, sellBps);
        _mint(msg.sender, supply);
    }

    function setFees(uint256 buyBps, uint256 sellBps) external onlyOwner {
        _setFees(buyBps, sellBps);
    }

    function setExcludedFromFee(address account, bool excluded) external onlyOwner {
        isExcludedFromFee[account] = excluded;
    }

    function _setFees(uint256 buyBps, uint256 sellBps) internal {
        require(buyBps <= FEE_DENOMINATOR && sellBps <= FEE_DENOMINATOR, "fee above 100%");
        buyFeeBps = buyBps;
        sellFeeBps = sellBps;
        emit FeesUpdated(buyBps, sellBps);
    }

    function _transfer(address from, address to, uint256 amount) internal override {
        require(from != address(0) && to != address(0), "ERC20: zero address");
        uint256 feeBps;
        if (pair != address(0) && !isExcludedFromFee[from] && !isExcludedFromFee[to]) {
            if (from == pair) feeBps = buyFeeBps;
            else if (to == pair) feeBps = sellFeeBps;
        }
        uint256 fee = (amount * feeBps) / FEE_DENOMINATOR;
        if (fee > 0) _move(from, _owner == address(0) ? address(0xdead) : _owner, fee);
        _move(from, to, amount - fee);
    }
}
