// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./lib/ERC20Core.sol";
import "./lib/Owned.sol";

/// The owner can blacklist any address; a blacklisted sender or recipient cannot transfer.
contract BlacklistToken is ERC20, Owned {
    mapping(address => bool) public isBlacklisted;

    event BlacklistUpdated(address indexed account, bool blacklisted);

    constructor(string memory name_, string memory symbol_, uint256 supply) {
        _setMetadata(name_, symbol_);
        _setOwner(msg.sender);
        _mint(msg.sender, supply);
    }

    function setBlacklist(address account, bool blacklisted) external onlyOwner {
        isBlacklisted[account] = blacklisted;
        emit BlacklistUpdated(account, blacklisted);
    }

    function _transfer(address from, address to, uint256 amount) internal override {
        require(!isBlacklisted[from] && !isBlacklisted[to], "Blacklisted");
        super._transfer(from, to, amount);
    }
}
