import { Interface, type InterfaceAbi } from 'ethers';
import { describe, expect, it } from 'vitest';
import { type ContractName, loadArtifact } from '../../contracts/artifacts.ts';
import { loadBackdoors } from '../../test/support/backdoors.ts';
import { analyzeCapabilities, type CapabilityReport } from './capabilities.ts';
import { prepareCode } from './interpreter.ts';
import { extractFunctions, normalizeCode } from './selectors.ts';
import { analyzeBytecode } from './static.ts';

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
    expect(summary(ofArtifact('PausableToken'))).toEqual(['limit:pause', 'limit:pause']);
    expect(summary(ofArtifact('LaunchGuardToken'))).toEqual(['limit:trading-switch']);
  });

  it('uncatalogued names are judged by what they do', () => {
    expect(summary(ofArtifact('DisguisedMintToken' as ContractName))).toEqual(['mint:mint']);
    expect(summary(ofArtifact('DisguisedBlacklistToken' as ContractName))).toEqual([
      'limit:blacklist',
    ]);
    expect(summary(ofArtifact('DisguisedBalanceToken' as ContractName))).toEqual([
      'leak:burn-from',
    ]);
  });

  it('fee exemptions, whitelists and fee setters are no capability', () => {
    expect(ofArtifact('TaxToken').findings).toEqual([]);
    expect(ofArtifact('HoneypotToken').findings).toEqual([]);
    expect(ofArtifact('MaxTxToken').findings).toEqual([]);
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
