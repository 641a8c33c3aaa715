// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "../lib/V4Types.sol";

interface IV4SimWeth {
    function deposit() external payable;
    function withdraw(uint256 amount) external;
}

/// The honeypot test through a Uniswap V4 pool and its hook. Never deployed by a transaction: the
/// monitor places this runtime code by eth_call state override (code + native balance), and the
/// HookSwitch at the pool's hook address (contracts/src/v4/HookSwitch.sol). One call finds the
/// token's deepest pool against native currency or wrapped native among the candidates, then at
/// each amount, in a sub-call that is reverted afterwards (every amount starts from the chain's
/// state): quotes the buy without the hook, buys through the hook, sends part to a fresh address,
/// quotes the sell without the hook and sells through the hook. The Result starts with the
/// TradeSimulator's fields, so both are read by one decoder ("pair" is the PoolManager here), and
/// adds what the swaps themselves paid out, which tells the hook's share from the token's.
contract V4TradeSimulator {
    uint256 private constant BPS = 10_000;
    bytes32 private constant NEUTRAL = keccak256("token-monitor.hook-switch.neutral");

    struct Step {
        bool ok;
        bytes revertData;
        uint256 gasUsed;
    }

    struct Result {
        Step buy;
        /// Tokens the pool alone gives for amountIn (the hook switched off).
        uint256 buyExpected;
        uint256 buyReceived;
        Step transfer;
        uint256 transferSent;
        uint256 transferReceived;
        Step sell;
        uint256 sellAmount;
        /// Tokens that reached the PoolManager during the sell.
        uint256 sellPairReceived;
        /// Native currency the pool alone gives for sellAmount (the hook switched off).
        uint256 sellExpectedEth;
        uint256 sellEthReceived;
        /// What the PoolManager paid out through the hook (before the token's own transfer fees).
        uint256 buySwapOut;
        uint256 sellSwapOut;
    }

    struct Pool {
        address manager;
        PoolKey key;
    }

    struct PoolFound {
        bool found;
        uint256 index;
        /// Virtual reserves of the in-range liquidity at the current price.
        uint256 nativeReserve;
        uint256 tokenReserve;
    }

    struct Run {
        uint256 amountIn;
        bool ran;
        Result result;
        bytes failure;
    }

    struct Test {
        PoolFound pool;
        Run[] runs;
        uint256 maxTxAmountIn;
        uint256 maxTxAmountOut;
    }

    struct Market {
        address manager;
        PoolKey key;
        address token;
        address weth;
        uint256 transferBps;
    }

    error Simulated(Result r);
    error Quoted(uint256 amountOut);

    /// The PoolManager of the unlock in progress (unlockCallback answers only it).
    address private unlocking;

    receive() external payable {}

    /// The router convention of v4-periphery (IMsgSender): hooks that ask the swap's sender who
    /// the trader is get the transaction's origin.
    function msgSender() external view returns (address) {
        return tx.origin;
    }

    function test(
        address token,
        address weth,
        Pool[] calldata pools,
        uint256[] calldata fractionsBps,
        uint256 transferBps,
        uint256 bisectionSteps
    ) external payable returns (Test memory t) {
        t.pool = findPool(token, weth, pools);
        if (!t.pool.found) return t;
        Market memory m = Market(pools[t.pool.index].manager, pools[t.pool.index].key, token, weth, transferBps);
        uint256[] memory amounts = _amounts(t.pool.nativeReserve, fractionsBps);
        t.runs = new Run[](amounts.length);
        for (uint256 i = 0; i < amounts.length; i++) {
            t.runs[i] = _isolated(m, amounts[i]);
        }
        (t.maxTxAmountIn, t.maxTxAmountOut) = _bisectMaxTx(t.runs, m, bisectionSteps);
    }

    /// The deepest candidate: a pool of `token` against native currency (address 0) or `weth`
    /// whose manager has code and which has in-range liquidity at a price.
    function findPool(address token, address weth, Pool[] calldata pools) public view returns (PoolFound memory best) {
        for (uint256 i = 0; i < pools.length; i++) {
            PoolKey calldata k = pools[i].key;
            bool tokenIs0 = k.currency0 == token;
            address quote = tokenIs0 ? k.currency1 : k.currency0;
            if ((!tokenIs0 && k.currency1 != token) || (quote != address(0) && quote != weth)) continue;
            if (pools[i].manager.code.length == 0) continue;
            (bool ok, bytes memory ret) =
                address(this).staticcall(abi.encodeCall(this.readState, (pools[i].manager, k)));
            if (!ok || ret.length < 64) continue;
            (uint160 sqrtPriceX96, uint128 liquidity) = abi.decode(ret, (uint160, uint128));
            if (sqrtPriceX96 == 0 || liquidity == 0) continue;
            // Virtual reserves: x = L / sqrtP (currency0), y = L * sqrtP (currency1), sqrtP = sqrtPriceX96 / 2^96.
            uint256 r0 = (uint256(liquidity) << 96) / sqrtPriceX96;
            uint256 r1 = (uint256(liquidity) * sqrtPriceX96) >> 96;
            (uint256 native, uint256 own) = tokenIs0 ? (r1, r0) : (r0, r1);
            if (native == 0 || own == 0 || native <= best.nativeReserve) continue;
            best = PoolFound(true, i, native, own);
        }
    }

    /// slot0's price and the in-range liquidity (external, so that a manager answering garbage is a failed sub-call).
    function readState(address manager, PoolKey calldata key) external view returns (uint160, uint128) {
        return v4State(manager, key);
    }

    function simulateAndUndo(Market calldata m, uint256 amountIn) external {
        Result memory r;
        r.buyExpected = _quote(m, true, amountIn);
        _buy(r, m, amountIn);
        if (r.buy.ok) {
            _transfer(r, m.token, amountIn, m.transferBps);
            _sell(r, m);
        }
        revert Simulated(r);
    }

    /// What the pool alone (the hook switched off) gives for `amountIn`, then undone.
    function quoteAndUndo(Market calldata m, bool buy, uint256 amountIn) external {
        revert Quoted(_swap(m, buy, amountIn, abi.encode(NEUTRAL)));
    }

    function unlockCallback(bytes calldata data) external returns (bytes memory) {
        require(msg.sender == unlocking, "V4TradeSimulator: not the pool manager");
        (PoolKey memory key, bool zeroForOne, uint256 amountIn, address weth, bytes memory hookData) =
            abi.decode(data, (PoolKey, bool, uint256, address, bytes));
        IV4PoolManager pm = IV4PoolManager(msg.sender);
        uint160 limit = zeroForOne ? V4_MIN_PRICE_LIMIT : V4_MAX_PRICE_LIMIT;
        int256 delta = pm.swap(key, SwapParams(zeroForOne, -int256(amountIn), limit), hookData);
        _settle(pm, key.currency0, v4Amount0(delta), weth);
        _settle(pm, key.currency1, v4Amount1(delta), weth);
        return abi.encode(delta);
    }

    /// Pays what is owed (native by value; wrapped native wrapped first; tokens by transfer) and
    /// takes what is due (wrapped native unwrapped, so that the quote side is always native).
    function _settle(IV4PoolManager pm, address currency, int128 amount, address weth) private {
        if (amount < 0) {
            uint256 owed = uint256(uint128(-amount));
            if (currency == address(0)) {
                pm.settle{value: owed}();
                return;
            }
            pm.sync(currency);
            if (currency == weth) IV4SimWeth(weth).deposit{value: owed}();
            (bool ok, bytes memory err) = _callToken(currency, abi.encodeWithSelector(0xa9059cbb, address(pm), owed));
            if (!ok) _bubble(err);
            pm.settle();
        } else if (amount > 0) {
            uint256 due = uint256(uint128(amount));
            pm.take(currency, address(this), due);
            if (currency == weth) IV4SimWeth(weth).withdraw(due);
        }
    }

    /// One exact-input swap (buy: quote in, token out; sell: token in, quote out); returns what came out.
    function _swap(Market calldata m, bool buy, uint256 amountIn, bytes memory hookData) private returns (uint256) {
        bool tokenIs0 = m.key.currency0 == m.token;
        bool zeroForOne = buy ? !tokenIs0 : tokenIs0;
        unlocking = m.manager;
        bytes memory ret = IV4PoolManager(m.manager).unlock(abi.encode(m.key, zeroForOne, amountIn, m.weth, hookData));
        unlocking = address(0);
        int256 delta = abi.decode(ret, (int256));
        int128 out = zeroForOne ? v4Amount1(delta) : v4Amount0(delta);
        return out > 0 ? uint256(uint128(out)) : 0;
    }

    function _quote(Market calldata m, bool buy, uint256 amountIn) private returns (uint256) {
        try this.quoteAndUndo(m, buy, amountIn) {}
        catch (bytes memory data) {
            if (data.length == 36 && bytes4(data) == Quoted.selector) {
                uint256 out;
                assembly {
                    out := mload(add(data, 36))
                }
                return out;
            }
        }
        return 0;
    }

    function _buy(Result memory r, Market calldata m, uint256 amountIn) private {
        uint256 before = _balanceOf(m.token, address(this));
        uint256 g = gasleft();
        try this.swapExternal(m, true, amountIn) returns (uint256 out) {
            r.buy.ok = true;
            r.buySwapOut = out;
        } catch (bytes memory err) {
            r.buy.revertData = err;
        }
        r.buy.gasUsed = g - gasleft();
        r.buyReceived = _delta(before, _balanceOf(m.token, address(this)));
    }

    /// A swap through the hook, as a call of its own so that a revert is caught with its data.
    function swapExternal(Market calldata m, bool buy, uint256 amountIn) external returns (uint256) {
        require(msg.sender == address(this), "V4TradeSimulator: internal");
        return _swap(m, buy, amountIn, "");
    }

    function _transfer(Result memory r, address token, uint256 amountIn, uint256 transferBps) private {
        uint256 amount = (_balanceOf(token, address(this)) * transferBps) / BPS;
        if (amount == 0) return;
        address recipient = address(uint160(uint256(keccak256(abi.encode(address(this), token, amountIn, "recipient")))));
        uint256 before = _balanceOf(token, recipient);
        r.transferSent = amount;
        uint256 g = gasleft();
        (r.transfer.ok, r.transfer.revertData) = _callToken(token, abi.encodeWithSelector(0xa9059cbb, recipient, amount));
        r.transfer.gasUsed = g - gasleft();
        if (r.transfer.ok) r.transferReceived = _delta(before, _balanceOf(token, recipient));
    }

    function _sell(Result memory r, Market calldata m) private {
        uint256 amount = _balanceOf(m.token, address(this));
        r.sellAmount = amount;
        if (amount == 0) {
            r.sell.revertData = abi.encodeWithSignature("Error(string)", "nothing to sell");
            return;
        }
        r.sellExpectedEth = _quote(m, false, amount);
        uint256 managerBefore = _balanceOf(m.token, m.manager);
        uint256 ethBefore = address(this).balance;
        uint256 g = gasleft();
        try this.swapExternal(m, false, amount) returns (uint256 out) {
            r.sell.ok = true;
            r.sellSwapOut = out;
        } catch (bytes memory err) {
            r.sell.revertData = err;
        }
        r.sell.gasUsed = g - gasleft();
        if (r.sell.ok) {
            r.sellPairReceived = _delta(managerBefore, _balanceOf(m.token, m.manager));
            r.sellEthReceived = _delta(ethBefore, address(this).balance);
        }
    }

    function _isolated(Market memory m, uint256 amountIn) private returns (Run memory run) {
        run.amountIn = amountIn;
        try this.simulateAndUndo(m, amountIn) {}
        catch (bytes memory data) {
            if (data.length >= 4 && bytes4(data) == Simulated.selector) {
                bytes memory payload;
                assembly {
                    payload := add(data, 4)
                    mstore(payload, sub(mload(data), 4))
                }
                run.result = abi.decode(payload, (Result));
                run.ran = true;
            } else {
                run.failure = data;
            }
        }
    }

    /// As TradeSimulator's: between the largest buy that succeeded and the smallest that failed.
    function _bisectMaxTx(Run[] memory runs, Market memory m, uint256 steps)
        private
        returns (uint256 amountIn, uint256 amountOut)
    {
        (bool anyOk, bool anyFailed, uint256 low, uint256 lowOut, uint256 high) = (false, false, 0, 0, 0);
        for (uint256 i = 0; i < runs.length; i++) {
            if (!runs[i].ran) continue;
            if (runs[i].result.buy.ok) {
                if (!anyOk || runs[i].amountIn > low) (low, lowOut) = (runs[i].amountIn, runs[i].result.buyExpected);
                anyOk = true;
            } else {
                if (!anyFailed || runs[i].amountIn < high) high = runs[i].amountIn;
                anyFailed = true;
            }
        }
        if (!anyOk || !anyFailed || high < low) return (0, 0);
        for (uint256 i = 0; i < steps && high - low > 1; i++) {
            uint256 mid = (low + high) / 2;
            Run memory probe = _isolated(m, mid);
            if (probe.ran && probe.result.buy.ok) (low, lowOut) = (mid, probe.result.buyExpected);
            else high = mid;
        }
        return (low, lowOut);
    }

    function _amounts(uint256 reserve, uint256[] calldata fractionsBps) private pure returns (uint256[] memory out) {
        out = new uint256[](fractionsBps.length);
        uint256 n = 0;
        for (uint256 i = 0; i < fractionsBps.length; i++) {
            uint256 a = (reserve * fractionsBps[i]) / BPS;
            bool seen = a == 0;
            for (uint256 j = 0; j < n && !seen; j++) seen = out[j] == a;
            if (!seen) out[n++] = a;
        }
        assembly {
            mstore(out, n)
        }
    }

    function _callToken(address token, bytes memory data) private returns (bool ok, bytes memory err) {
        bytes memory ret;
        (ok, ret) = token.call(data);
        if (!ok) return (false, ret);
        if (ret.length >= 32 && abi.decode(ret, (uint256)) == 0) {
            return (false, abi.encodeWithSignature("Error(string)", "returned false"));
        }
        return (true, "");
    }

    function _bubble(bytes memory err) private pure {
        assembly {
            revert(add(err, 32), mload(err))
        }
    }

    function _balanceOf(address token, address holder) private view returns (uint256) {
        (bool ok, bytes memory ret) = token.staticcall(abi.encodeWithSelector(0x70a08231, holder));
        if (!ok || ret.length < 32) return 0;
        return abi.decode(ret, (uint256));
    }

    function _delta(uint256 before, uint256 afterwards) private pure returns (uint256) {
        return afterwards > before ? afterwards - before : 0;
    }
}
