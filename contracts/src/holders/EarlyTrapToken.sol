// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "../lib/ERC20Core.sol";
import "../lib/Owned.sol";

/// Traps its early buyers: whoever buys from the pair within `trapBlocks` blocks of the first
/// liquidity can never move the tokens again, while later buyers trade freely. A simulation by a
/// fresh buyer after the window sees an honest token; only the real holders' sells tell.
contract EarlyTrapToken is ERC20, PairAware {
    uint256 public immutable trapBlocks;
    uint256 public launchBlock;
    mapping(address => bool) private _early;

    constructor(string memory name_, string memory symbol_, uint256 supply, uint256 trapBlocks_) {
        _setMetadata(name_, symbol_);
        _setOwner(msg.sender);
        _mint(msg.sender, supply);
        trapBlocks = trapBlocks_;
    }

    function _transfer(address from, address to, uint256 amount) internal override {
        if (pair != address(0)) {
            if (to == pair && launchBlock == 0) launchBlock = block.number;
            bool early = launchBlock != 0 && block.number <= launchBlock + trapBlocks;
            if (from == pair && to != _owner && early) _early[to] = true;
        }
        // Deliberately vague message, as real traps use.
        require(!_early[from], "TRANSFER_FAILED");
        super._transfer(from, to, amount);
    }
}
