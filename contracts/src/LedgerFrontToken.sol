// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface ITokenLedger {
    function totalSupply() external view returns (uint256);
    function balanceOf(address holder) external view returns (uint256);
    function transfer(address from, address to, uint256 amount) external returns (bool);
}

/// A token front whose ERC-20 surface forwards to a ledger contract the owner sets after
/// deployment, as several mainnet tokens of 2017-2018 do (a controller, a data store). Until the
/// ledger is set (or when only the runtime code is placed on a chain), every call of the surface
/// reverts, although the dispatcher routes all three functions: it is still a token.
contract LedgerFrontToken {
    address public owner;
    ITokenLedger public ledger;

    constructor() {
        owner = msg.sender;
    }

    function setLedger(ITokenLedger next) external {
        require(msg.sender == owner, "owner only");
        ledger = next;
    }

    function totalSupply() external view returns (uint256) {
        return ledger.totalSupply();
    }

    function balanceOf(address holder) external view returns (uint256) {
        return ledger.balanceOf(holder);
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        return ledger.transfer(msg.sender, to, amount);
    }
}
