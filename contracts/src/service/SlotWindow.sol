// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A SlotReader that still answers as the contract. Never deployed: the monitor places this
/// runtime code by state override AT a contract, and the contract's own code at the address made
/// of the low 20 bytes of keccak256(abi.encode(contract)). A call whose data starts with the
/// 32-byte MAGIC (keccak256("token-monitor.slot-window")) reads the slots in the words after it,
/// as SlotReader does; any other call runs the contract's own code by DELEGATECALL, that is with
/// the contract's storage, balance, address, msg.sender and msg.value. What differs: another
/// contract asking for this address's code (EXTCODESIZE, EXTCODEHASH) sees this code.
contract SlotWindow {
    fallback() external payable {
        assembly {
            let size := calldatasize()
            if and(gt(size, 31), eq(calldataload(0), 0xb50c41962c6e7ba95338db122dea4d10dcbf602698a89625488ab8b4915d3ca7)) {
                for { let at := 32 } lt(at, size) { at := add(at, 32) } {
                    mstore(sub(at, 32), sload(calldataload(at)))
                }
                return(0, sub(size, 32))
            }
            mstore(0, address())
            let shadow := and(keccak256(0, 32), 0xffffffffffffffffffffffffffffffffffffffff)
            calldatacopy(0, 0, size)
            let ok := delegatecall(gas(), shadow, 0, size, 0, 0)
            returndatacopy(0, 0, returndatasize())
            if iszero(ok) { revert(0, returndatasize()) }
            return(0, returndatasize())
        }
    }
}
