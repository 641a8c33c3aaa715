// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Many eth_calls from one sender in one eth_call. Never deployed: the monitor places this runtime
/// code by state override at the sender's address and calls it from that same address, so each
/// call it makes carries the sender as msg.sender and tx.origin. Each call runs in a sub-call that
/// is then reverted, so every call sees the chain's state, as a separate eth_call would; each gets
/// the gas it asked for, or is not made at all (ran = false) and the monitor sends it alone.
/// Like the account it stands in for, it accepts native currency and any call it does not know
/// (a contract paying its owner, or calling back the sender, sees what an EOA would do).
contract CallBundle {
    struct Call {
        address target;
        uint256 gas;
        bytes data;
    }

    struct Answer {
        bool ran;
        bool ok;
        bytes data;
        /// Gas the call used: all it was given, without revert data, is an exceptional halt.
        uint256 gasUsed;
    }

    /// Carries one call's outcome out of the sub-call whose state changes are thrown away.
    error Answered(bool ok, bytes data, uint256 gasUsed);

    receive() external payable {}

    fallback() external payable {}

    /// Gas kept back to finish the loop and encode the answers after a call.
    uint256 private constant RESERVE = 100_000;

    function callAll(Call[] calldata calls) external returns (Answer[] memory out) {
        out = new Answer[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            // The sub-call is handed 63/64 of what is left: it must still cover the call's gas.
            if ((gasleft() * 63) / 64 < calls[i].gas + RESERVE) break;
            try this.callAndUndo(calls[i].target, calls[i].gas, calls[i].data) {}
            catch (bytes memory e) {
                if (e.length < 4 || bytes4(e) != Answered.selector) continue;
                bytes memory payload;
                assembly {
                    payload := add(e, 4)
                    mstore(payload, sub(mload(e), 4))
                }
                (out[i].ok, out[i].data, out[i].gasUsed) = abi.decode(payload, (bool, bytes, uint256));
                out[i].ran = true;
            }
        }
    }

    function callAndUndo(address target, uint256 gas, bytes calldata data) external {
        uint256 before = gasleft();
        (bool ok, bytes memory ret) = target.call{gas: gas}(data);
        revert Answered(ok, ret, before - gasleft());
    }
}
