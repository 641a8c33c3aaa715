// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./lib/ERC20Core.sol";
import "./lib/Owned.sol";

/// Anti-whale limits: a maximum amount per transfer and a maximum wallet balance.
/// The owner and the pair (which must hold the liquidity) are exempt.
contract MaxTxToken is ERC20, PairAware {
    uint256 public maxTxAmount;
    uint256 public maxWalletAmount;
    mapping(address => bool) public isExempt;

    event LimitsUpdated(uint256 maxTxAmount, uint256 maxWalletAmount);

    constructor(string memory name_, string memory symbol_, uint256 supply, uint256 maxTx, uint256 maxWallet) {
        _setMetadata(name_, symbol_);
        _setOwner(msg.sender);
        isExempt[msg.sender] = true;
        maxTxAmount = maxTx;
        maxWalletAmount = maxWallet;
        _mint(msg.sender, supply);
    }

    function setLimits(uint256 maxTx, uint256 maxWallet) external onlyOwner {
        maxTxAmount = maxTx;
        maxWalletAmount = maxWallet;
        emit LimitsUpdated(maxTx, maxWallet);
    }

    function setExempt(address account, bool exempt) external onlyOwner {
        isExempt[account] = exempt;
    }

    function _transfer(address from, address to, uint256 amount) internal override {
        if (!isExempt[from] && !isExempt[to]) {
            require(amount <= maxTxAmount, "Max tx exceeded");
            if (to != pair) {
                require(_balances[to] + amount <= maxWalletAmount, "Max wallet exceeded");
            }
        }
        super._transfer(from, to, amount);
    }
}
