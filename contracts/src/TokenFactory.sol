// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./SimpleToken.sol";

/// Deploys tokens on behalf of callers, so that the token address differs from the
/// transaction's `to` (CREATE, CREATE2 and EIP-1167 clones).
contract TokenFactory {
    uint8 public constant KIND_CREATE = 1;
    uint8 public constant KIND_CREATE2 = 2;
    uint8 public constant KIND_CLONE = 3;

    event TokenCreated(address indexed token, address indexed creator, uint8 kind);

    function createToken(string calldata name_, string calldata symbol_, uint256 supply) external returns (address token) {
        SimpleToken t = new SimpleToken(name_, symbol_, supply);
        require(t.transfer(msg.sender, supply), "transfer failed");
        token = address(t);
        emit TokenCreated(token, msg.sender, KIND_CREATE);
    }

    function createToken2(string calldata name_, string calldata symbol_, uint256 supply, bytes32 salt)
        external
        returns (address token)
    {
        SimpleToken t = new SimpleToken{salt: salt}(name_, symbol_, supply);
        require(t.transfer(msg.sender, supply), "transfer failed");
        token = address(t);
        emit TokenCreated(token, msg.sender, KIND_CREATE2);
    }

    /// Address createToken2 would produce for these arguments.
    function predictToken2(string calldata name_, string calldata symbol_, uint256 supply, bytes32 salt)
        external
        view
        returns (address)
    {
        bytes32 initCodeHash =
            keccak256(abi.encodePacked(type(SimpleToken).creationCode, abi.encode(name_, symbol_, supply)));
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, initCodeHash)))));
    }

    /// EIP-1167 minimal proxy of `implementation` (left uninitialised).
    function cloneToken(address implementation) external returns (address token) {
        token = _clone(implementation);
        emit TokenCreated(token, msg.sender, KIND_CLONE);
    }

    /// EIP-1167 clone followed, in the same transaction, by a call into it (e.g. initialize).
    function cloneTokenAndCall(address implementation, bytes calldata initData) external returns (address token) {
        token = _clone(implementation);
        (bool ok, bytes memory ret) = token.call(initData);
        if (!ok) {
            assembly {
                revert(add(ret, 0x20), mload(ret))
            }
        }
        emit TokenCreated(token, msg.sender, KIND_CLONE);
    }

    /// Creation code (55 bytes) = 10-byte loader + 45-byte runtime:
    ///   3d602d80600a3d3981f3                        copy the runtime (0x2d bytes) and return it
    ///   363d3d373d3d3d363d73 <20-byte implementation> 5af43d82803e903d91602b57fd5bf3
    ///                                                delegatecall with all calldata, bubble result
    function _clone(address implementation) private returns (address instance) {
        require(implementation.code.length > 0, "implementation has no code");
        bytes memory code = abi.encodePacked(
            hex"3d602d80600a3d3981f3363d3d373d3d3d363d73", implementation, hex"5af43d82803e903d91602b57fd5bf3"
        );
        assembly {
            instance := create(0, add(code, 0x20), mload(code))
        }
        require(instance != address(0), "clone failed");
    }
}
