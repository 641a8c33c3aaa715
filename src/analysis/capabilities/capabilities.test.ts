import { Interface, type InterfaceAbi } from 'ethers';
import solc from 'solc';
import { describe, expect, it } from 'vitest';
import { type ContractName, loadArtifact } from '../../../contracts/artifacts.ts';
import { loadBackdoors } from '../../../test/support/backdoors.ts';
import { extractFunctions, normalizeCode } from '../bytecode/index.ts';
import { analyzeBytecode } from '../static/index.ts';
import { prepareCode } from '../walk/index.ts';
import { analyzeCapabilities } from './capabilities.ts';
import type { CapabilityReport } from './types.ts';

/** What the code does, read from bytecode alone: the project's contracts and real mainnet code. */

function analyse(code: string, abi: InterfaceAbi): CapabilityReport {
  const iface = new Interface(abi);
  const names = new Map<string, string>();
  iface.forEachFunction((f) => names.set(f.selector.slice(2), f.format('sighash')));
  const { functions } = extractFunctions(code);
  return analyzeCapabilities(
    prepareCode(normalizeCode(code)!),
    functions,
    (f) => names.get(f.selector) ?? `0x${f.selector}`,
  );
}

const ofArtifact = (name: ContractName) => {
  const a = loadArtifact(name);
  return analyse(a.deployedBytecode, a.abi as InterfaceAbi);
};
const summary = (r: CapabilityReport) =>
  r.findings.map((f) => `${f.capability}:${f.family}`).sort();
const backdoors = loadBackdoors();
const entry = (name: string) => backdoors.find((e) => e.contract_name === name)!;

describe('capabilities of the project contracts', () => {
  it('finds the balances mapping and the supply slot from the getters', () => {
    const r = ofArtifact('SimpleToken');
    expect(r.layout.balances).not.toBeNull();
    expect(r.layout.totalSupply).not.toBeNull();
    expect(r.findings).toEqual([]);
  });

  it('an owner-only mint: evidence names the function, the guard slot and the mapping', () => {
    const r = ofArtifact('MintableToken');
    expect(summary(r)).toEqual(['mint:mint']);
    const detail = r.findings[0]!.evidence[0]!.detail;
    expect(detail).toMatch(
      /^mint\(address,uint256\), on a path that compares the caller with the address stored in slot 0x\w+/,
    );
    expect(detail).toContain(
      `the mapping at slot 0x${r.layout.balances!.toString(16)} that balanceOf reads`,
    );
    expect(detail).toContain(`totalSupply (slot 0x${r.layout.totalSupply!.toString(16)})`);
  });

  it('blacklist, pause and trading switch by the checks transfer fails on', () => {
    expect(summary(ofArtifact('BlacklistToken'))).toEqual(['limit:blacklist']);
    // pause() is the limit; unpause() can only let transfers through again.
    const pausable = ofArtifact('PausableToken');
    expect(summary(pausable)).toEqual(['limit:pause']);
    expect(pausable.oneWay).toHaveLength(1);
    // enableTrading() can only open trading: a one-way switch, recorded, not a limit.
    const launch = ofArtifact('LaunchGuardToken');
    expect(summary(launch)).toEqual([]);
    expect(launch.oneWay).toEqual([
      expect.objectContaining({ detail: expect.stringContaining('One-way: can only enable') }),
    ]);
  });

  it('uncatalogued names are judged by what they do', () => {
    expect(summary(ofArtifact('DisguisedMintToken' as ContractName))).toEqual(['mint:mint']);
    expect(summary(ofArtifact('DisguisedBlacklistToken' as ContractName))).toEqual([
      'limit:blacklist',
    ]);
    // reconcileLedger sets a holder's balance (`balance + (target - balance)` or the reverse): a
    // rewrite, neither a burn nor a mint.
    expect(summary(ofArtifact('DisguisedBalanceToken' as ContractName))).toEqual([
      'leak:balance-change',
    ]);
  });

  it('fee exemptions and fee setters are no capability; a sellers list the owner edits is', () => {
    expect(ofArtifact('TaxToken').findings).toEqual([]);
    // Sales need `from == owner || isWhitelisted[from]` and nothing else: whoever is not listed
    // cannot sell, and setWhitelisted(account, false) unlists anyone.
    expect(summary(ofArtifact('HoneypotToken'))).toEqual(['limit:blacklist']);
    // setLimits(maxTx, maxWallet) has no lower bound: the owner can set a cap that stops every
    // transfer it applies to, sales included (no pair exemption on the max tx).
    expect(summary(ofArtifact('MaxTxToken'))).toEqual(['limit:trading-switch']);
  });
});

describe('capabilities of real mainnet code (solc 0.4)', () => {
  it('MyAdvancedToken: mintToken and freezeAccount (frozenAccount[from] checked in _transfer)', () => {
    const e = entry('MyAdvancedToken');
    expect(new Set(summary(analyse(e.runtime_bytecode, e.abi as InterfaceAbi)))).toEqual(
      new Set(['limit:blacklist', 'mint:mint']),
    );
  });

  it('MiniMe: the controller mints, destroys, moves without allowance and switches transfers', () => {
    const e = entry('MiniMeToken');
    const caps = new Set(
      analyse(e.runtime_bytecode, e.abi as InterfaceAbi).findings.map((f) => f.capability),
    );
    expect(caps).toEqual(new Set(['mint', 'leak', 'limit']));
  });

  it('a freezeAccount whose flag no transfer reads is no freeze, and its name is demoted', () => {
    const e = entry('CalorieCoin');
    expect(
      analyse(e.runtime_bytecode, e.abi as InterfaceAbi).findings.filter(
        (f) => f.capability === 'limit',
      ),
    ).toEqual([]);
    const freeze = analyzeBytecode(e.runtime_bytecode).admin_functions.find(
      (f) => f.signature === 'freezeAccount(address,bool)',
    )!;
    expect(freeze.family).toBe('other');
    expect(freeze.evidence.map((x) => x.detail).join(' ')).toMatch(
      /named like a blacklist function, but no privileged path/,
    );
  });

  it('a burnFrom that spends the holder allowance is no leak', () => {
    const e = entry('Dragon');
    expect(
      analyse(e.runtime_bytecode, e.abi as InterfaceAbi).findings.filter(
        (f) => f.capability === 'leak',
      ),
    ).toEqual([]);
  });
});

/** A small token whose transfer checks `switches` code (a Solidity fragment) before moving. */
const SWITCH_TOKEN = (state: string, check: string, functions: string) => `
pragma solidity ^0.8.20;
contract T {
  mapping(address => uint256) public balanceOf;
  uint256 public totalSupply;
  address public owner = msg.sender;
  ${state}
  modifier onlyOwner() { require(msg.sender == owner, "owner"); _; }
  constructor() { totalSupply = 1e24; balanceOf[msg.sender] = 1e24; }
  function transfer(address to, uint256 v) external returns (bool) {
    ${check}
    balanceOf[msg.sender] -= v; balanceOf[to] += v; return true;
  }
  function transferFrom(address f, address to, uint256 v) external returns (bool) {
    ${check}
    balanceOf[f] -= v; balanceOf[to] += v; return true;
  }
  ${functions}
}`;

function compiled(source: string) {
  const input = {
    language: 'Solidity',
    sources: { 'T.sol': { content: source } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      outputSelection: { '*': { '*': ['abi', 'evm.deployedBytecode.object'] } },
    },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (out.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors[0].formattedMessage);
  const t = out.contracts['T.sol'].T;
  return analyse(`0x${t.evm.deployedBytecode.object}`, t.abi);
}

describe('one-way switches are no limit; switches both ways are', () => {
  it('release() that can only store true where transfer requires it set: one-way, recorded', () => {
    const r = compiled(
      SWITCH_TOKEN(
        'bool public released;',
        'require(released, "locked");',
        'function release() external onlyOwner { released = true; }',
      ),
    );
    expect(r.limitsKnown).toBe(true);
    expect(summary(r)).toEqual([]);
    expect(r.oneWay).toHaveLength(1);
    expect(r.oneWay[0]!.detail).toMatch(/^release\(\), .*One-way: can only enable transfers$/);
  });

  it('defrost() that can only clear a flag transfer fails on when set: one-way', () => {
    const r = compiled(
      SWITCH_TOKEN(
        'bool public frozen = true;',
        'require(!frozen, "frozen");',
        'function defrost() external onlyOwner { frozen = false; }',
      ),
    );
    expect(summary(r)).toEqual([]);
    expect(r.oneWay.map((o) => o.detail)).toEqual([expect.stringMatching(/^defrost\(\)/)]);
  });

  it('setTransferable(bool) stores its argument: a limit either direction', () => {
    const r = compiled(
      SWITCH_TOKEN(
        'bool public transferable;',
        'require(transferable, "off");',
        'function setTransferable(bool on) external onlyOwner { transferable = on; }',
      ),
    );
    expect(summary(r)).toEqual(['limit:trading-switch']);
    expect(r.oneWay).toEqual([]);
  });

  it('pause() + unpause(): pause stores the blocking constant and is a limit', () => {
    const r = compiled(
      SWITCH_TOKEN(
        'bool public paused;',
        'require(!paused, "paused");',
        `function pause() external onlyOwner { paused = true; }
         function unpause() external onlyOwner { paused = false; }`,
      ),
    );
    expect(summary(r)).toEqual(['limit:pause']);
    expect(r.oneWay.map((o) => o.detail)).toEqual([expect.stringMatching(/^unpause\(\)/)]);
  });

  it('a constant-writing switch packed beside the owner is still read bit by bit', () => {
    const r = compiled(
      SWITCH_TOKEN(
        'bool public locked = true;',
        'require(!locked, "locked");',
        `function lock() external onlyOwner { locked = true; }
         function unlockForever() external onlyOwner { locked = false; }`,
      ),
    );
    expect(summary(r)).toEqual(['limit:pause']);
  });

  it('freezeTransfersUntil(uint256): a time transfers wait for stays a limit', () => {
    const r = compiled(
      SWITCH_TOKEN(
        'uint256 public frozenUntil;',
        'require(block.timestamp >= frozenUntil, "frozen");',
        'function freezeTransfersUntil(uint256 t) external onlyOwner { frozenUntil = t; }',
      ),
    );
    expect(summary(r)).toEqual(['limit:trading-switch']);
  });
});
