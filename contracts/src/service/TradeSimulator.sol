// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Minimal Uniswap V2 Router02 surface the simulator uses.
interface ISimRouterV2 {
    function getAmountsOut(uint256 amountIn, address[] calldata path) external view returns (uint256[] memory amounts);

    function swapExactETHForTokensSupportingFeeOnTransferTokens(
        uint256 amountOutMin,
        address[] calldata path,
        address to,
        uint256 deadline
    ) external payable;

    function swapExactTokensForETHSupportingFeeOnTransferTokens(
        uint256 amountIn,
        uint256 amountOutMin,
        address[] calldata path,
        address to,
        uint256 deadline
    ) external;
}

/// The honeypot test. Never deployed by a transaction: the monitor places this runtime code at a
/// fresh address with an eth_call state override (code + native balance) and calls simulate().
/// Every step runs under try/catch or a low-level call, so one call returns every step's outcome
/// (success, revert data, gas) ABI-encoded, however hostile the token.
contract TradeSimulator {
    uint256 private constant BPS = 10_000;

    struct Step {
        bool ok;
        /// Raw revert data (Error(string), Panic(uint256), a custom error or empty).
        bytes revertData;
        uint256 gasUsed;
    }

    struct Result {
        Step buy;
        /// Tokens the pair sends for amountIn (router.getAmountsOut before the swap).
        uint256 buyExpected;
        /// Tokens that reached this contract.
        uint256 buyReceived;
        Step transfer;
        uint256 transferSent;
        /// Tokens that reached the fresh recipient.
        uint256 transferReceived;
        Step sell;
        uint256 sellAmount;
        /// Tokens that reached the pair during the sell.
        uint256 sellPairReceived;
        /// Native currency the router promised for sellAmount (getAmountsOut before the sell).
        uint256 sellExpectedEth;
        uint256 sellEthReceived;
    }

    /// One V2 DEX to look for the token's pool in.
    struct Dex {
        address factory;
        address router;
    }

    /// The deepest pool found (index into the DEX list; found = false when none has liquidity).
    struct PoolFound {
        bool found;
        uint256 dex;
        address pair;
        uint256 nativeReserve;
        uint256 tokenReserve;
    }

    /// One amount's run: `ran` is false when the simulation reverted as a whole (`failure` holds
    /// the revert data), which is an answer about the token, not a node failure.
    struct Run {
        uint256 amountIn;
        bool ran;
        Result result;
        bytes failure;
    }

    /// The whole honeypot test in one eth_call: the pool, every amount, and the max-tx limit.
    struct Test {
        PoolFound pool;
        Run[] runs;
        /// The largest buy that still succeeds when a larger one fails (0 when no limit shows).
        uint256 maxTxAmountIn;
        /// The pair's gross token output at that amount (what a limit is compared with).
        uint256 maxTxAmountOut;
    }

    /// Where and what one run trades.
    struct Market {
        address router;
        address token;
        address pair;
        address weth;
        uint256 transferBps;
    }

    /// Carries one amount's result out of a sub-call whose state changes are thrown away.
    error Simulated(Result r);

    receive() external payable {}

    /// Finds the token's deepest pool against `weth` over `dexes`, then simulates at each of
    /// `fractionsBps` of its native reserve (without zeros or repeats), each from the same state,
    /// and bisects a max-tx limit in at most `bisectionSteps` more runs when a larger buy fails.
    function test(
        address token,
        address weth,
        Dex[] calldata dexes,
        uint256[] calldata fractionsBps,
        uint256 transferBps,
        uint256 bisectionSteps
    ) external payable returns (Test memory t) {
        t.pool = findPool(token, weth, dexes);
        if (!t.pool.found) return t;
        Market memory m = Market(dexes[t.pool.dex].router, token, t.pool.pair, weth, transferBps);
        uint256[] memory amounts = _amounts(t.pool.nativeReserve, fractionsBps);
        t.runs = new Run[](amounts.length);
        for (uint256 i = 0; i < amounts.length; i++) {
            t.runs[i] = _isolated(m, amounts[i]);
        }
        (t.maxTxAmountIn, t.maxTxAmountOut) = _bisectMaxTx(t.runs, m, bisectionSteps);
    }

    /// Simulates at `amountIn` and reverts with the result, so that the next run starts afresh.
    function simulateAndUndo(address router, address token, address pair, address weth, uint256 amountIn, uint256 transferBps)
        external
    {
        Result memory r;
        _buy(r, router, token, weth, amountIn);
        if (r.buy.ok) {
            _transfer(r, token, amountIn, transferBps);
            _sell(r, router, token, pair, weth);
        }
        revert Simulated(r);
    }

    /// The deepest pool over `dexes` whose router has code and whose pair holds both reserves.
    /// A factory or pair without code, or answering garbage, offers no pool (never a revert).
    function findPool(address token, address weth, Dex[] calldata dexes) public view returns (PoolFound memory best) {
        for (uint256 i = 0; i < dexes.length; i++) {
            if (dexes[i].router.code.length == 0) continue;
            (bool ok, address pair) = _readAddress(dexes[i].factory, abi.encodeWithSelector(0xe6a43905, token, weth));
            if (!ok || pair == address(0)) continue;
            (bool reservesOk, bytes memory reserves) = pair.staticcall(abi.encodeWithSelector(0x0902f1ac));
            (bool token0Ok, address token0) = _readAddress(pair, abi.encodeWithSelector(0x0dfe1681));
            if (!reservesOk || reserves.length < 96 || !token0Ok) continue;
            (uint256 r0, uint256 r1) = abi.decode(reserves, (uint256, uint256));
            (r0, r1) = (r0 & type(uint112).max, r1 & type(uint112).max);
            (uint256 native, uint256 own) = token0 == token ? (r1, r0) : (r0, r1);
            if (native == 0 || own == 0 || native <= best.nativeReserve) continue;
            best = PoolFound(true, i, pair, native, own);
        }
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

    function _isolated(Market memory m, uint256 amountIn) private returns (Run memory run) {
        run.amountIn = amountIn;
        try this.simulateAndUndo(m.router, m.token, m.pair, m.weth, amountIn, m.transferBps) {}
        catch (bytes memory data) {
            if (data.length >= 4 && bytes4(data) == Simulated.selector) {
                // Skip the selector: what follows is the ABI-encoded Result.
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

    /// Bisection between the largest buy that succeeded and the smallest that failed. Limits
    /// bind large buys only: a failure below a success is something else (no limit).
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

    /// An address answer, or ok = false for a revert, a short answer or a word that is no address.
    function _readAddress(address target, bytes memory data) private view returns (bool, address) {
        (bool ok, bytes memory ret) = target.staticcall(data);
        if (!ok || ret.length < 32) return (false, address(0));
        uint256 word = abi.decode(ret, (uint256));
        if (word > type(uint160).max) return (false, address(0));
        return (true, address(uint160(word)));
    }

    /// Buys `token` for `amountIn` native currency, sends `transferBps` of the holding to a fresh
    /// address, then sells everything left back through `router`.
    function simulate(address router, address token, address pair, address weth, uint256 amountIn, uint256 transferBps)
        external
        payable
        returns (Result memory r)
    {
        _buy(r, router, token, weth, amountIn);
        if (!r.buy.ok) return r;
        _transfer(r, token, amountIn, transferBps);
        _sell(r, router, token, pair, weth);
    }

    /// One real holder's sell. The monitor places this code at the holder's address too (an
    /// eth_call state override keeps the holder's balances: only its code changes), so the token
    /// sees the holder itself sell.
    struct HolderSell {
        address holder;
        /// balanceOf(holder) before anything ran.
        uint256 balance;
        /// The sell of the whole balance (`ran` false: it reverted as a whole, `failure` says why).
        bool ran;
        Result whole;
        bytes failure;
        /// When the whole balance could not be sold: a sell of `partBps` of it (a max-tx limit is no trap).
        bool partRan;
        Result part;
    }

    /// Sells each holder's balance from the holder's own address, each from the same state, and a
    /// part of it where the whole failed. Every holder must carry this code (state override).
    function sellHolders(
        address[] calldata holders,
        address router,
        address token,
        address pair,
        address weth,
        uint256 partBps
    ) external returns (HolderSell[] memory out) {
        out = new HolderSell[](holders.length);
        for (uint256 i = 0; i < holders.length; i++) {
            HolderSell memory h = out[i];
            h.holder = holders[i];
            h.balance = _balanceOf(token, holders[i]);
            if (h.balance == 0) continue;
            (h.ran, h.whole, h.failure) = _isolatedSell(holders[i], router, token, pair, weth, h.balance);
            if (h.ran && h.whole.sell.ok) continue;
            uint256 part = (h.balance * partBps) / BPS;
            if (part == 0) continue;
            bytes memory ignored;
            (h.partRan, h.part, ignored) = _isolatedSell(holders[i], router, token, pair, weth, part);
        }
    }

    /// Sells `amount` of what this address holds, then reverts with the result: the state is untouched.
    function sellHeldAndUndo(address router, address token, address pair, address weth, uint256 amount) external {
        Result memory r;
        _sellAmount(r, router, token, pair, weth, amount);
        revert Simulated(r);
    }

    /// Code sizes of `accounts` (whether holders are contracts), read without any code override.
    function codeSizes(address[] calldata accounts) external view returns (uint256[] memory sizes) {
        sizes = new uint256[](accounts.length);
        for (uint256 i = 0; i < accounts.length; i++) {
            sizes[i] = accounts[i].code.length;
        }
    }

    function _isolatedSell(address holder, address router, address token, address pair, address weth, uint256 amount)
        private
        returns (bool ran, Result memory r, bytes memory failure)
    {
        try TradeSimulator(payable(holder)).sellHeldAndUndo(router, token, pair, weth, amount) {}
        catch (bytes memory data) {
            if (data.length >= 4 && bytes4(data) == Simulated.selector) {
                bytes memory payload;
                assembly {
                    payload := add(data, 4)
                    mstore(payload, sub(mload(data), 4))
                }
                r = abi.decode(payload, (Result));
                ran = true;
            } else {
                failure = data;
            }
        }
    }

    /// Only the buy: the tokens stay here (used by AdminProbe to hold a position first).
    function buyOnly(address router, address token, address weth, uint256 amountIn) external payable returns (Result memory r) {
        _buy(r, router, token, weth, amountIn);
    }

    function _buy(Result memory r, address router, address token, address weth, uint256 amountIn) private {
        address[] memory path = new address[](2);
        path[0] = weth;
        path[1] = token;
        try ISimRouterV2(router).getAmountsOut(amountIn, path) returns (uint256[] memory amounts) {
            r.buyExpected = amounts[amounts.length - 1];
        } catch {}
        uint256 before = _balanceOf(token, address(this));
        uint256 g = gasleft();
        try ISimRouterV2(router).swapExactETHForTokensSupportingFeeOnTransferTokens{value: amountIn}(
            0, path, address(this), block.timestamp
        ) {
            r.buy.ok = true;
        } catch (bytes memory err) {
            r.buy.revertData = err;
        }
        r.buy.gasUsed = g - gasleft();
        r.buyReceived = _delta(before, _balanceOf(token, address(this)));
    }

    function _transfer(Result memory r, address token, uint256 amountIn, uint256 transferBps) private {
        uint256 amount = (_balanceOf(token, address(this)) * transferBps) / BPS;
        if (amount == 0) return;
        // Fresh: derived from this call's inputs, so no fee exemption or limit exemption applies.
        address recipient = address(uint160(uint256(keccak256(abi.encode(address(this), token, amountIn, "recipient")))));
        uint256 before = _balanceOf(token, recipient);
        r.transferSent = amount;
        uint256 g = gasleft();
        (r.transfer.ok, r.transfer.revertData) = _callToken(token, abi.encodeWithSelector(0xa9059cbb, recipient, amount));
        r.transfer.gasUsed = g - gasleft();
        if (r.transfer.ok) r.transferReceived = _delta(before, _balanceOf(token, recipient));
    }

    function _sell(Result memory r, address router, address token, address pair, address weth) private {
        _sellAmount(r, router, token, pair, weth, _balanceOf(token, address(this)));
    }

    function _sellAmount(Result memory r, address router, address token, address pair, address weth, uint256 amount)
        private
    {
        r.sellAmount = amount;
        if (amount == 0) {
            r.sell.revertData = abi.encodeWithSignature("Error(string)", "nothing to sell");
            return;
        }
        (bool approved, bytes memory approveError) = _callToken(token, abi.encodeWithSelector(0x095ea7b3, router, amount));
        if (!approved) {
            r.sell.revertData = approveError;
            return;
        }
        address[] memory path = new address[](2);
        path[0] = token;
        path[1] = weth;
        try ISimRouterV2(router).getAmountsOut(amount, path) returns (uint256[] memory amounts) {
            r.sellExpectedEth = amounts[amounts.length - 1];
        } catch {}
        uint256 pairBefore = _balanceOf(token, pair);
        uint256 ethBefore = address(this).balance;
        uint256 g = gasleft();
        try ISimRouterV2(router).swapExactTokensForETHSupportingFeeOnTransferTokens(
            amount, 0, path, address(this), block.timestamp
        ) {
            r.sell.ok = true;
        } catch (bytes memory err) {
            r.sell.revertData = err;
        }
        r.sell.gasUsed = g - gasleft();
        if (r.sell.ok) {
            r.sellPairReceived = _delta(pairBefore, _balanceOf(token, pair));
            r.sellEthReceived = _delta(ethBefore, address(this).balance);
        }
    }

    /// ERC-20 call tolerant of tokens that return nothing (USDT) or false.
    function _callToken(address token, bytes memory data) private returns (bool ok, bytes memory err) {
        bytes memory ret;
        (ok, ret) = token.call(data);
        if (!ok) return (false, ret);
        if (ret.length >= 32 && abi.decode(ret, (uint256)) == 0) {
            return (false, abi.encodeWithSignature("Error(string)", "returned false"));
        }
        return (true, "");
    }

    /// balanceOf that never reverts (a reverting or garbage answer reads as zero).
    function _balanceOf(address token, address holder) private view returns (uint256) {
        (bool ok, bytes memory ret) = token.staticcall(abi.encodeWithSelector(0x70a08231, holder));
        if (!ok || ret.length < 32) return 0;
        return abi.decode(ret, (uint256));
    }

    function _delta(uint256 before, uint256 afterwards) private pure returns (uint256) {
        return afterwards > before ? afterwards - before : 0;
    }
}

/// Behaviour test of one candidate admin function, for functions whose names disguise them.
/// Placed by state override at a privileged address (the owner, a hidden admin, the creator) or
/// at a stranger's, so that calls it makes carry that msg.sender. It creates a fresh trader
/// (CREATE2, predictable address), lets it buy, makes the admin call (which may name the trader),
/// then records balance and supply changes and a full buy/transfer/sell run after the call.
contract AdminProbe {
    bytes32 public constant TRADER_SALT = keccak256("token-monitor.admin-probe.trader");
    /// A candidate admin function gets this much gas: enough for any setter, and a token that
    /// burns everything cannot starve the trade run that follows.
    uint256 private constant ADMIN_CALL_GAS = 3_000_000;

    struct Outcome {
        address trader;
        TradeSimulator.Result before;
        bool adminOk;
        bytes adminError;
        uint256 balanceBefore;
        uint256 balanceAfter;
        uint256 supplyBefore;
        uint256 supplyAfter;
        TradeSimulator.Result afterwards;
    }

    receive() external payable {}

    function probe(
        address router,
        address token,
        address pair,
        address weth,
        uint256 amountIn,
        uint256 transferBps,
        bytes calldata adminCall
    ) external payable returns (Outcome memory o) {
        TradeSimulator trader = new TradeSimulator{salt: TRADER_SALT}();
        o.trader = address(trader);
        o.before = trader.buyOnly{value: amountIn}(router, token, weth, amountIn);
        o.balanceBefore = _read(token, abi.encodeWithSelector(0x70a08231, address(trader)));
        o.supplyBefore = _read(token, abi.encodeWithSelector(0x18160ddd));
        (o.adminOk, o.adminError) = token.call{gas: ADMIN_CALL_GAS}(adminCall);
        if (o.adminOk) o.adminError = "";
        o.balanceAfter = _read(token, abi.encodeWithSelector(0x70a08231, address(trader)));
        o.supplyAfter = _read(token, abi.encodeWithSelector(0x18160ddd));
        o.afterwards = trader.simulate{value: amountIn}(router, token, pair, weth, amountIn, transferBps);
    }

    function _read(address token, bytes memory data) private view returns (uint256) {
        (bool ok, bytes memory ret) = token.staticcall(data);
        if (!ok || ret.length < 32) return 0;
        return abi.decode(ret, (uint256));
    }
}
