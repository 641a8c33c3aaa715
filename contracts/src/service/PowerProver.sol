// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IERC20Probe {
    function totalSupply() external view returns (uint256);
    function balanceOf(address a) external view returns (uint256);
}

/// Proves an admin power by running it (docs/risk-model.md, "Propose, then prove"). Never
/// deployed: the monitor places this runtime code by state override at every privileged caller
/// and at a test holder, and calls `proveAll` in one eth_call. Each proof runs in a sub-call that
/// is then reverted, so every proof sees the chain's state (with the overrides): the holder's
/// transfer, then the power's call from its caller, then the holder's transfer again, with the
/// supply and the watched balances read before and after.
contract PowerProver {
    struct Proof {
        /// Who makes the call: a privileged caller carrying this code (or this contract itself).
        address caller;
        bytes data;
        /// Balances read before and after the call.
        address[] watch;
        /// A holder carrying this code whose transfer of `amount` to `sink` is tried before and after.
        address holder;
        address sink;
        uint256 amount;
        /// A call the same caller makes first (empty: none): the switch set the other way, so that
        /// a power over transfers that are closed at the start can be seen closing them again.
        bytes setup;
    }

    struct Outcome {
        bool ran;
        bool ok;
        bytes data;
        uint256 supplyBefore;
        uint256 supplyAfter;
        uint256[] before;
        uint256[] afterCall;
        /// The holder's transfer moved tokens to the sink before and after the call.
        bool movedBefore;
        bool movedAfter;
    }

    error Proved(Outcome outcome);
    error Moved(bool moved);

    /// Gas kept back to finish the loop and encode the answers after a proof.
    uint256 private constant RESERVE = 300_000;

    receive() external payable {}

    fallback() external payable {}

    function proveAll(address token, Proof[] calldata proofs, uint256 gasEach)
        external
        returns (Outcome[] memory out)
    {
        out = new Outcome[](proofs.length);
        for (uint256 i = 0; i < proofs.length; i++) {
            if ((gasleft() * 63) / 64 < gasEach + RESERVE) break;
            try this.proveAndUndo{gas: gasEach}(token, proofs[i]) {}
            catch (bytes memory e) {
                if (e.length < 4 || bytes4(e) != Proved.selector) continue;
                bytes memory payload;
                assembly {
                    payload := add(e, 4)
                    mstore(payload, sub(mload(e), 4))
                }
                out[i] = abi.decode(payload, (Outcome));
                out[i].ran = true;
            }
        }
    }

    function proveAndUndo(address token, Proof calldata p) external {
        Outcome memory o;
        if (p.setup.length > 0) {
            (bool set,) = p.caller == address(this)
                ? token.call(p.setup)
                : PowerProver(payable(p.caller)).act(token, p.setup);
            set;
        }
        o.supplyBefore = _supply(token);
        o.before = _balances(token, p.watch);
        o.movedBefore = _moves(token, p);
        (o.ok, o.data) = p.caller == address(this)
            ? token.call(p.data)
            : PowerProver(payable(p.caller)).act(token, p.data);
        o.supplyAfter = _supply(token);
        o.afterCall = _balances(token, p.watch);
        o.movedAfter = _moves(token, p);
        revert Proved(o);
    }

    /// The call made from this address (the privileged caller or the holder this code stands in for).
    function act(address token, bytes calldata data) external returns (bool ok, bytes memory ret) {
        (ok, ret) = token.call(data);
    }

    /// Whether the holder's transfer to the sink moves tokens, tried in a sub-call that is undone.
    function movesAndUndo(address token, address holder, address sink, uint256 amount) external {
        uint256 before = _balanceOf(token, sink);
        (bool ok,) = PowerProver(payable(holder)).act(
            token, abi.encodeWithSignature("transfer(address,uint256)", sink, amount)
        );
        revert Moved(ok && _balanceOf(token, sink) > before);
    }

    error Accepted(bool ok);

    /// The highest value a setter accepts from this address (the privileged caller this code is
    /// placed at): every word at `offsets` of `template` set to the value, first the `ladder`, then
    /// a binary search between the highest accepted and the lowest refused value above it. Each
    /// try runs in a sub-call that is undone.
    function searchCap(address token, bytes calldata template, uint256[] calldata offsets, uint256[] calldata ladder)
        external
        returns (bool found, uint256 cap)
    {
        uint256 hi = type(uint256).max;
        bool refusedAbove;
        for (uint256 i = 0; i < ladder.length; i++) {
            if (_accepts(token, template, offsets, ladder[i])) {
                if (!found || ladder[i] > cap) (found, cap) = (true, ladder[i]);
            }
        }
        if (!found) return (false, 0);
        for (uint256 i = 0; i < ladder.length; i++) {
            if (ladder[i] > cap && ladder[i] <= hi && !_accepts(token, template, offsets, ladder[i])) {
                (hi, refusedAbove) = (ladder[i], true);
            }
        }
        if (!refusedAbove) return (true, cap);
        while (hi - cap > 1 && gasleft() > 200_000) {
            uint256 mid = cap + (hi - cap) / 2;
            if (_accepts(token, template, offsets, mid)) cap = mid;
            else hi = mid;
        }
    }

    function tryAndUndo(address token, bytes calldata data) external {
        (bool ok,) = token.call(data);
        revert Accepted(ok);
    }

    function _accepts(address token, bytes calldata template, uint256[] calldata offsets, uint256 v)
        private
        returns (bool)
    {
        bytes memory data = template;
        for (uint256 i = 0; i < offsets.length; i++) {
            uint256 at = offsets[i];
            assembly {
                mstore(add(add(data, 32), at), v)
            }
        }
        try this.tryAndUndo(token, data) {}
        catch (bytes memory e) {
            if (e.length == 36 && bytes4(e) == Accepted.selector) {
                bool ok;
                assembly {
                    ok := mload(add(e, 36))
                }
                return ok;
            }
        }
        return false;
    }

    function _moves(address token, Proof calldata p) private returns (bool) {
        if (p.holder == address(0)) return false;
        try this.movesAndUndo(token, p.holder, p.sink, p.amount) {}
        catch (bytes memory e) {
            if (e.length == 36 && bytes4(e) == Moved.selector) {
                bool moved;
                assembly {
                    moved := mload(add(e, 36))
                }
                return moved;
            }
        }
        return false;
    }

    function _supply(address token) private view returns (uint256 v) {
        try IERC20Probe(token).totalSupply() returns (uint256 s) {
            v = s;
        } catch {}
    }

    function _balanceOf(address token, address a) private view returns (uint256 v) {
        try IERC20Probe(token).balanceOf(a) returns (uint256 b) {
            v = b;
        } catch {}
    }

    function _balances(address token, address[] calldata watch) private view returns (uint256[] memory out) {
        out = new uint256[](watch.length);
        for (uint256 i = 0; i < watch.length; i++) {
            out[i] = _balanceOf(token, watch[i]);
        }
    }
}
