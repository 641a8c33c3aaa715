// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./lib/ERC20Core.sol";
import "./lib/Owned.sol";

/// Implementation for TokenProxy (ERC-1967) and for EIP-1167 clones. State is set by
/// initialize() in the proxy's storage; the owner can swap the implementation (UUPS style).
contract UpgradeableToken is ERC20, Owned {
    // Same slot as TokenProxy.IMPLEMENTATION_SLOT (ERC-1967).
    bytes32 internal constant IMPLEMENTATION_SLOT =
        0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc;

    bool private _initialized;

    event Upgraded(address indexed implementation);

    constructor() {
        // Lock the implementation contract itself; proxies start with _initialized == false.
        _initialized = true;
    }

    function initialize(string calldata name_, string calldata symbol_, uint256 supply, address owner_) external {
        require(!_initialized, "already initialized");
        _initialized = true;
        _setMetadata(name_, symbol_);
        _setOwner(owner_);
        _mint(owner_, supply);
    }

    /// Only meaningful behind an ERC-1967 proxy; in a clone it writes an unused slot.
    function upgradeTo(address newImplementation) external onlyOwner {
        require(newImplementation.code.length > 0, "implementation has no code");
        bytes32 slot = IMPLEMENTATION_SLOT;
        assembly {
            sstore(slot, newImplementation)
        }
        emit Upgraded(newImplementation);
    }

    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }
}
