// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./lib/ERC20Core.sol";
import "./lib/Owned.sol";

/// The owner can pause all transfers (except its own).
contract PausableToken is ERC20, Owned {
    bool public paused;

    event Paused(address account);
    event Unpaused(address account);

    constructor(string memory name_, string memory symbol_, uint256 supply) {
        _setMetadata(name_, symbol_);
        _setOwner(msg.sender);
        _mint(msg.sender, supply);
    }

    function pause() external onlyOwner {
        paused = true;
        emit Paused(msg.sender);
    }

    function unpause() external onlyOwner {
        paused = false;
        emit Unpaused(msg.sender);
    }

    function _transfer(address from, address to, uint256 amount) internal override {
        require(!paused || from == _owner, "Pausable: paused");
        super._transfer(from, to, amount);
    }
}
