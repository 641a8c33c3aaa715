import { ContractFactory, Interface, type InterfaceAbi, id, toBeHex } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContractName, loadArtifact } from '../../../contracts/artifacts.ts';
import { createRpcClient } from '../../../infra/rpc/index.ts';
import { startTestChain, type TestChain } from '../../../test/support/chain.ts';
import { type Compiled, compileSolidity } from '../../../test/support/solc.ts';
import { createChainReader } from '../../evm/chain-reader.ts';
import type { RpcClient } from '../../evm/rpc.ts';
import { STRANGER } from '../access/index.ts';
import { selectorOf } from '../catalog/index.ts';
import type { StaticAnalysis } from '../types.ts';
import { analyzeBytecode, analyzeStatic } from './static.ts';

/**
 * analyzeStatic against the project's compiled contracts deployed on Anvil, asserting what each
 * contract really does (read from its Solidity source), plus a few access-control shapes the
 * project's contracts lack (compiled here from inline Solidity).
 */

const SUPPLY = 10n ** 24n;
const EXTRA_SOURCE = `
pragma solidity ^0.8.20;
/// SafeMoon's Ownable: lock() renounces for a while and remembers the previous owner.
contract LockableToken {
    address private _owner = msg.sender;
    address private _previousOwner;
    uint256 private _lockTime;
    uint256 public taxFee;
    function owner() external view returns (address) { return _owner; }
    function lock(uint256 time) external { require(msg.sender == _owner, "owner"); _previousOwner = _owner; _owner = address(0); _lockTime = block.timestamp + time; }
    function unlock() external { require(_previousOwner == msg.sender, "no permission"); require(block.timestamp > _lockTime, "locked"); _owner = _previousOwner; }
    function setTaxFeePercent(uint256 fee) external { require(msg.sender == _owner, "owner"); taxFee = fee; }
}
/// AccessControl-style roles, no owner() at all.
contract RoleToken {
    mapping(bytes32 => mapping(address => bool)) private _roles;
    bytes32 public constant MINTER_ROLE = keccak256("MINTER_ROLE");
    mapping(address => uint256) public balanceOf;
    constructor() { _roles[MINTER_ROLE][msg.sender] = true; }
    function mint(address to, uint256 amount) external { require(_roles[MINTER_ROLE][msg.sender], "AccessControl"); balanceOf[to] += amount; }
}
/// BEP-20 style: the owner is read through getOwner().
contract Bep20Owned {
    address private _owner = msg.sender;
    bool public paused;
    function getOwner() external view returns (address) { return _owner; }
    function pause() external { require(msg.sender == _owner, "owner"); paused = true; }
}
/// Transparent proxy (EIP-1967 slots): the admin's calls are the proxy's, everyone else's are delegated.
contract MiniTransparentProxy {
    bytes32 private constant IMPL = 0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc;
    bytes32 private constant ADMIN = 0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103;
    constructor(address impl, address admin, bytes memory init) {
        assembly { sstore(IMPL, impl) sstore(ADMIN, admin) }
        (bool ok, ) = impl.delegatecall(init);
        require(ok, "init");
    }
    function upgradeTo(address next) external {
        address admin;
        assembly { admin := sload(ADMIN) }
        if (msg.sender == admin) { assembly { sstore(IMPL, next) } } else _delegate();
    }
    fallback() external payable { _delegate(); }
    function _delegate() private {
        assembly {
            let impl := sload(IMPL)
            calldatacopy(0, 0, calldatasize())
            let ok := delegatecall(gas(), impl, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            switch ok case 0 { revert(0, returndatasize()) } default { return(0, returndatasize()) }
        }
    }
}
/// Anyone may mint.
contract OpenMint {
    mapping(address => uint256) public balanceOf;
    function mint(address to, uint256 amount) external { balanceOf[to] += amount; }
}
`;

let chain: TestChain;
let rpc: RpcClient;
let extra: Record<string, Compiled>;

const analyze = async (address: string): Promise<StaticAnalysis> => {
  const code = await rpc.request<string>('eth_getCode', [address, 'latest']);
  return analyzeStatic({ rpc, reader: createChainReader(rpc) }, { chainId: 31337, address, code });
};
const deploy = async (name: ContractName, args: unknown[] = []) =>
  (await chain.deploy(name, args)).address;
const deployExtra = async (name: string, args: unknown[] = []) => {
  const c = extra[name]!;
  const contract = await new ContractFactory(
    c.abi as InterfaceAbi,
    c.bytecode,
    chain.signer,
  ).deploy(...args);
  await contract.deploymentTransaction()!.wait();
  return (await contract.getAddress()).toLowerCase();
};
const send = async (name: ContractName, address: string, fn: string, args: unknown[] = []) =>
  (await chain.contract(name, address).getFunction(fn)(...args)).wait();
const access = (a: StaticAnalysis) =>
  Object.fromEntries(a.admin_functions.map((f) => [f.signature, f.access_control]));
const token = (name: ContractName, ...more: unknown[]) =>
  deploy(name, [name, name.slice(0, 4).toUpperCase(), SUPPLY, ...more]);

beforeAll(async () => {
  chain = await startTestChain();
  rpc = createRpcClient({ urls: [chain.anvil.rpcUrl], maxAttempts: 2 });
  extra = compileSolidity(EXTRA_SOURCE);
});
afterAll(async () => chain?.stop());

describe('analyzeStatic on the project contracts', () => {
  it('SimpleToken: no admin function, no owner, no proxy', async () => {
    const a = await analyze(await token('SimpleToken'));
    expect(a.admin_functions).toEqual([]);
    expect(a.privileged_functions).toEqual([]);
    expect(a.ownership).toMatchObject({
      owner: null,
      owner_source: null,
      renounced: false,
      hidden_owner: null,
      fake_renounce: false,
    });
    expect(a.proxy.is_proxy).toBe(false);
    expect(a.template).toBe('plain-erc20');
    expect(a.skeleton_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(a.functions.map((f) => f.selector)).toContain(selectorOf('transfer(address,uint256)'));
  });

  it('MintableToken: owner-only mint, owned by the deployer', async () => {
    const a = await analyze(await token('MintableToken'));
    expect(access(a)).toEqual({
      'mint(address,uint256)': 'owner-only',
      'renounceOwnership()': 'owner-only',
      'transferOwnership(address)': 'owner-only',
    });
    const mint = a.admin_functions.find((f) => f.family === 'mint')!;
    expect(mint).toMatchObject({ selector: '40c10f19', risk_level: 'critical' });
    // Both judgements are in the evidence: the stranger's revert vs the owner's success, and the code's check.
    expect(new Set(mint.evidence.map((e) => e.kind))).toEqual(new Set(['bytecode', 'simulation']));
    expect(mint.evidence.find((e) => e.kind === 'simulation')!.detail).toContain(STRANGER);
    expect(
      mint.evidence.find((e) => e.kind === 'bytecode' && e.detail.includes('compares'))!.detail,
    ).toMatch(/slot 0x5/);
    // What the code does: the privileged path adds to the mapping balanceOf reads.
    expect(mint.evidence.map((e) => e.detail).join(' ')).toMatch(
      /adds to balances \(the mapping at slot 0x\w+ that balanceOf reads\)\[argument 1\]/,
    );
    expect(a.ownership).toMatchObject({
      owner: chain.account,
      owner_source: 'owner()',
      renounced: false,
      hidden_owner: null,
    });
  });

  it('Blacklist, Tax, Honeypot, Pausable and MaxTx tokens: their setters, all owner-only', async () => {
    expect(access(await analyze(await token('BlacklistToken')))).toMatchObject({
      'setBlacklist(address,bool)': 'owner-only',
    });
    const tax = await analyze(await token('TaxToken', 500, 1_000));
    expect(access(tax)).toMatchObject({
      'setFees(uint256,uint256)': 'owner-only',
      'setExcludedFromFee(address,bool)': 'owner-only',
      'setPair(address)': 'owner-only',
    });
    expect(
      tax.admin_functions.find((f) => f.signature === 'setFees(uint256,uint256)')!.family,
    ).toBe('fee');
    expect(access(await analyze(await token('HoneypotToken')))).toMatchObject({
      'setWhitelisted(address,bool)': 'owner-only',
      'setPair(address)': 'owner-only',
    });
    expect(access(await analyze(await token('PausableToken')))).toMatchObject({
      'pause()': 'owner-only',
      'unpause()': 'owner-only',
    });
    const maxTx = await analyze(await token('MaxTxToken', SUPPLY / 100n, SUPPLY / 50n));
    expect(access(maxTx)).toMatchObject({
      'setLimits(uint256,uint256)': 'owner-only',
      'setExempt(address,bool)': 'owner-only',
    });
    expect(maxTx.admin_functions.filter((f) => f.family === 'max-tx')).toHaveLength(2);
  });

  it('FakeRenounceToken: renounced on the surface, the hidden admin can still mint', async () => {
    const address = await token('FakeRenounceToken');
    const hiddenMint = selectorOf('distributeRewards(address,uint256)');
    // Before the renounce the hidden admin is the owner itself: nothing hidden yet.
    const before = await analyze(address);
    expect(before.ownership).toMatchObject({
      owner: chain.account,
      renounced: false,
      hidden_owner: null,
      fake_renounce: false,
    });
    // distributeRewards is in no catalog; what it does makes it a mint.
    expect(
      before.admin_functions
        .filter((f) => f.selector === hiddenMint)
        .map((f) => [f.family, f.access_control]),
    ).toEqual([['mint', 'owner-only']]);

    await send('FakeRenounceToken', address, 'renounceOwnership');
    const after = await analyze(address);
    expect(after.ownership).toMatchObject({
      owner: '0x0000000000000000000000000000000000000000',
      owner_source: 'owner()',
      renounced: true,
      hidden_owner: chain.account,
      fake_renounce: true,
    });
    const proof = after.ownership.evidence.find(
      (e) => e.kind === 'simulation' && e.detail.includes(chain.account),
    )!;
    const shadowSlot = `0x${(BigInt(id('fake.renounce.shadow.admin')) - 1n).toString(16)}`;
    expect(proof.detail).toContain(shadowSlot);
    expect(proof.selector).toBe(hiddenMint);
    const privileged = after.admin_functions.find((f) => f.selector === hiddenMint)!;
    expect(privileged.access_control).toBe('owner-only');
    expect(privileged.evidence.map((e) => e.detail).join(' ')).toContain(
      `also callable by ${chain.account}`,
    );
  });

  it('FakeRenounceToken with a different hidden admin: found while the owner is still in place', async () => {
    const address = await token('FakeRenounceToken');
    const shadowSlot = toBeHex(BigInt(id('fake.renounce.shadow.admin')) - 1n, 32);
    const hidden = '0x00000000000000000000000000000000c0ffee01';
    await rpc.request('anvil_setStorageAt', [address, shadowSlot, toBeHex(BigInt(hidden), 32)]);
    const a = await analyze(address);
    expect(a.ownership).toMatchObject({
      owner: chain.account,
      renounced: false,
      hidden_owner: hidden,
      fake_renounce: false,
    });
  });

  it('RenouncedToken: renounced for real, the mint is owner-only with nobody left to call it', async () => {
    const address = await token('RenouncedToken');
    await send('RenouncedToken', address, 'renounceOwnership');
    const a = await analyze(address);
    expect(a.ownership).toMatchObject({
      renounced: true,
      hidden_owner: null,
      fake_renounce: false,
    });
    const mint = a.admin_functions.find((f) => f.family === 'mint')!;
    expect(mint.access_control).toBe('owner-only');
    expect(mint.evidence.map((e) => e.detail).join(' ')).toMatch(
      /renounced: no one can send from it/,
    );
  });

  it('TokenProxy + UpgradeableToken: EIP-1967 proxy, the implementation analysed behind it', async () => {
    const impl = await deploy('UpgradeableToken');
    const init = new Interface(
      loadArtifact('UpgradeableToken').abi as InterfaceAbi,
    ).encodeFunctionData('initialize', ['Proxied', 'PRX', SUPPLY, chain.account]);
    const proxy = await deploy('TokenProxy', [impl, init]);
    const a = await analyze(proxy);
    expect(a.proxy).toMatchObject({
      is_proxy: true,
      kind: 'eip1967',
      implementation: impl,
      admin: null,
    });
    expect(access(a)).toMatchObject({
      'upgradeTo(address)': 'owner-only',
      'mint(address,uint256)': 'owner-only',
    });
    expect(a.ownership.owner).toBe(chain.account);
    // The logic decides: the implementation's template and skeleton.
    expect(a.template).toBe('plain-erc20');
    expect(a.skeleton_hash).toBe(
      analyzeBytecode(loadArtifact('UpgradeableToken').deployedBytecode).skeleton_hash,
    );
    expect(a.functions.map((f) => f.selector)).toContain(selectorOf('upgradeTo(address)'));
  });

  it('transparent proxy: the admin is the proxy admin, not a hidden owner', async () => {
    const impl = await deploy('UpgradeableToken');
    const admin = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'; // another Anvil account
    const init = new Interface(
      loadArtifact('UpgradeableToken').abi as InterfaceAbi,
    ).encodeFunctionData('initialize', ['Transparent', 'TRP', SUPPLY, chain.account]);
    const proxy = await deployExtra('MiniTransparentProxy', [impl, admin, init]);
    const a = await analyze(proxy);
    expect(a.proxy).toMatchObject({ is_proxy: true, kind: 'eip1967', implementation: impl, admin });
    expect(a.ownership).toMatchObject({
      owner: chain.account,
      owner_source: 'owner()',
      hidden_owner: null,
      fake_renounce: false,
    });
    expect(access(a)).toMatchObject({
      'upgradeTo(address)': 'owner-only',
      'mint(address,uint256)': 'owner-only',
    });
  });

  it('TokenFactory clone: EIP-1167, same admin functions as its implementation', async () => {
    const impl = await deploy('UpgradeableToken');
    const factory = await deploy('TokenFactory');
    const init = new Interface(
      loadArtifact('UpgradeableToken').abi as InterfaceAbi,
    ).encodeFunctionData('initialize', ['Clone', 'CLN', SUPPLY, chain.account]);
    const receipt = await send('TokenFactory', factory, 'cloneTokenAndCall', [impl, init]);
    const log = (receipt as { logs: { topics: string[]; data: string }[] }).logs.find(
      (l) => l.topics[0] === id('TokenCreated(address,address,uint8)'),
    )!;
    const clone = `0x${log.topics[1]!.slice(26)}`;
    const a = await analyze(clone);
    expect(a.proxy).toMatchObject({ is_proxy: true, kind: 'eip1167', implementation: impl });
    expect(access(a)).toMatchObject({
      'mint(address,uint256)': 'owner-only',
      'upgradeTo(address)': 'owner-only',
    });
    expect(a.ownership.owner).toBe(chain.account);
  });

  it('disguised admin functions (uncatalogued names) are judged by what they do', async () => {
    const a = await analyze(await token('DisguisedMintToken' as ContractName));
    expect(a.admin_functions.map((f) => f.family).sort()).toEqual([
      'mint',
      'ownership-transfer',
      'renounce',
    ]);
    const mint = a.admin_functions.find((f) => f.family === 'mint')!;
    expect([mint.selector, mint.access_control]).toEqual([
      selectorOf('syncEmission(address,uint256)'),
      'owner-only',
    ]);
    expect(a.privileged_functions).toEqual([]);
  });
});

describe('analyzeStatic on other access-control shapes', () => {
  it('SafeMoon lock(): a temporary renounce, the previous owner can unlock (fake renounce)', async () => {
    const address = await deployExtra('LockableToken');
    const iface = new Interface(extra.LockableToken!.abi as InterfaceAbi);
    await (
      await chain.signer.sendTransaction({
        to: address,
        data: iface.encodeFunctionData('lock', [0]),
      })
    ).wait();
    const a = await analyze(address);
    expect(a.ownership).toMatchObject({
      owner: '0x0000000000000000000000000000000000000000',
      renounced: true,
      hidden_owner: chain.account,
      fake_renounce: true,
    });
    expect(access(a)).toMatchObject({
      'unlock()': 'owner-only',
      'lock(uint256)': 'owner-only',
      'setTaxFeePercent(uint256)': 'owner-only',
    });
  });

  it('AccessControl-style roles: role', async () => {
    const a = await analyze(await deployExtra('RoleToken'));
    expect(access(a)).toEqual({ 'mint(address,uint256)': 'role' });
    expect(a.ownership.owner).toBeNull();
    expect(a.admin_functions[0]!.evidence.map((e) => e.detail).join(' ')).toMatch(/role table/);
  });

  it('getOwner() when there is no owner()', async () => {
    const a = await analyze(await deployExtra('Bep20Owned'));
    expect(a.ownership).toMatchObject({ owner: chain.account, owner_source: 'getOwner()' });
    expect(access(a)).toEqual({ 'pause()': 'owner-only' });
  });

  it('a mint anyone can call: none', async () => {
    const a = await analyze(await deployExtra('OpenMint'));
    expect(access(a)).toEqual({ 'mint(address,uint256)': 'none' });
    const evidence = a.admin_functions[0]!.evidence.map((e) => e.detail).join(' ');
    expect(evidence).toMatch(/from a stranger .* succeeded/);
    expect(evidence).toMatch(/never reads CALLER|no check of the caller/);
  });
});

describe('analyzeBytecode (no chain)', () => {
  it('gives bytecode-only access control and never throws', () => {
    const a = analyzeBytecode(loadArtifact('PausableToken').deployedBytecode);
    expect(access(a as unknown as StaticAnalysis)).toMatchObject({
      'pause()': 'owner-only',
      'unpause()': 'owner-only',
    });
    expect(a.error).toBeNull();
    for (const garbage of ['', '0x', '0xzz', '0x00', `0x${'ff'.repeat(100)}`]) {
      const g = analyzeBytecode(garbage);
      expect(g.functions).toEqual([]);
      expect(g.admin_functions).toEqual([]);
      expect(g.skeleton_hash).toMatch(/^0x[0-9a-f]{64}$/);
    }
    const clone = analyzeBytecode(
      `0x363d3d373d3d3d363d73${'ab'.repeat(20)}5af43d82803e903d91602b57fd5bf3`,
    );
    expect(clone.proxy).toMatchObject({
      is_proxy: true,
      kind: 'eip1167',
      implementation: `0x${'ab'.repeat(20)}`,
    });
    expect(clone.template).toBe('eip1167-minimal-proxy');
  });
});
