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

    receive() external payable {}

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
        uint256 amount = _balanceOf(token, address(this));
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
