// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Single-owner access control (Ownable-compatible event and function names, so that
/// analysers recognise owner() / renounceOwnership() / transferOwnership()).
abstract contract Owned {
    address internal _owner;

    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    modifier onlyOwner() {
        require(msg.sender == _owner, "Owned: caller is not the owner");
        _;
    }

    function owner() public view virtual returns (address) {
        return _owner;
    }

    function transferOwnership(address newOwner) public virtual onlyOwner {
        require(newOwner != address(0), "Owned: zero address");
        _setOwner(newOwner);
    }

    function renounceOwnership() public virtual onlyOwner {
        _setOwner(address(0));
    }

    function _setOwner(address newOwner) internal {
        address previous = _owner;
        _owner = newOwner;
        emit OwnershipTransferred(previous, newOwner);
    }
}

/// Owner-configured DEX pair, for tokens whose rules distinguish buys (pair -> user) from
/// sells (user -> pair). The pair is usually created (factory.createPair) before liquidity is
/// added, so its address is known before any trade.
abstract contract PairAware is Owned {
    address public pair;

    event PairSet(address indexed pair);

    function setPair(address pair_) external onlyOwner {
        pair = pair_;
        emit PairSet(pair_);
    }
}
