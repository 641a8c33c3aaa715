// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Reads many storage slots of one contract in one eth_call. Never deployed: the monitor places
/// this runtime code by state override AT the contract whose storage it reads (an override of the
/// code keeps the account's storage), and calls it with the slots as consecutive 32-byte words;
/// it answers each slot's value as one word, in order — what eth_getStorageAt would answer.
contract SlotReader {
    fallback() external {
        assembly {
            let size := calldatasize()
            for { let at := 0 } lt(at, size) { at := add(at, 32) } {
                mstore(at, sload(calldataload(at)))
            }
            return(0, size)
        }
    }
}
