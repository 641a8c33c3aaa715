import { type Contract, ContractFactory, type InterfaceAbi, id } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRpcClient } from '../../../infra/rpc/index.ts';
import { startTestChain, type TestChain } from '../../../test/support/chain.ts';
import { type Compiled, compileSolidity } from '../../../test/support/solc.ts';
import { createChainReader } from '../../evm/chain-reader.ts';
import type { RpcClient } from '../../evm/rpc.ts';
import { analyzeStatic } from '../static/index.ts';
import type { StaticAnalysis } from '../types.ts';

/**
 * Capabilities the chain's state closed for good (capabilities/state.ts, static/probes.ts): a mint
 * that needs `!mintingFinished` after a one-way finishMinting(), a one-shot initialize() already
 * used, an owner's take behind a released flag packed beside an address. Each contract is deployed
 * on Anvil and analysed before and after the closing call; a flag some function can set back keeps
 * the power live.
 */

const SOURCE = `
pragma solidity ^0.8.20;
contract Base {
  mapping(address => uint256) public balanceOf;
  uint256 public totalSupply;
  address public owner = msg.sender;
  modifier onlyOwner() { require(msg.sender == owner, "owner"); _; }
  function transfer(address t, uint256 v) external returns (bool) {
    balanceOf[msg.sender] -= v; balanceOf[t] += v; return true;
  }
}
contract Finishable is Base {
  bool public mintingFinished;
  function mint(address to, uint256 v) external onlyOwner {
    require(!mintingFinished, "finished"); totalSupply += v; balanceOf[to] += v;
  }
  function finishMinting() external onlyOwner { mintingFinished = true; }
}
contract Restartable is Finishable {
  function restartMinting() external onlyOwner { mintingFinished = false; }
}
contract Releasable is Base {
  address public releaseAgent = msg.sender;
  bool public released;
  string public name = "Token";
  mapping(address => bool) public locked;
  modifier inReleaseState(bool state) { require(state == released, "state"); _; }
  function setTokenInformation(string calldata n) external onlyOwner { name = n; }
  function setReleaseAgent(address a) external onlyOwner inReleaseState(false) { releaseAgent = a; }
  function releaseTokenTransfer() external { require(msg.sender == releaseAgent, "agent"); released = true; }
  function setLock(address a, bool v) external onlyOwner inReleaseState(false) { locked[a] = v; }
  function transferToOwner(address from) external onlyOwner inReleaseState(false) {
    uint256 v = balanceOf[from]; balanceOf[from] = 0; balanceOf[owner] += v;
  }
  function transferFrom(address f, address t, uint256 v) external returns (bool) {
    require(!locked[f], "locked"); balanceOf[f] -= v; balanceOf[t] += v; return true;
  }
}
contract Relockable is Releasable {
  function holdTransfers() external onlyOwner { released = false; }
}
contract OneShot is Base {
  bool private initialized;
  function initialize(address[] calldata to, uint256[] calldata v) external onlyOwner {
    require(!initialized, "done");
    initialized = true;
    for (uint256 i = 0; i < to.length; i++) balanceOf[to[i]] = v[i];
  }
}`;

let chain: TestChain;
let rpc: RpcClient;
let compiled: Record<string, Compiled>;

beforeAll(async () => {
  chain = await startTestChain();
  rpc = createRpcClient({ urls: [chain.anvil.rpcUrl], maxAttempts: 2 });
  compiled = compileSolidity(SOURCE);
});
afterAll(async () => chain?.stop());

async function deploy(name: string): Promise<Contract> {
  const c = compiled[name]!;
  const contract = await new ContractFactory(
    c.abi as InterfaceAbi,
    c.bytecode,
    chain.signer,
  ).deploy();
  await contract.deploymentTransaction()!.wait();
  return contract as Contract;
}
async function analyse(contract: Contract): Promise<StaticAnalysis> {
  const address = (await contract.getAddress()).toLowerCase();
  const code = await rpc.request<string>('eth_getCode', [address, 'latest']);
  return analyzeStatic({ rpc, reader: createChainReader(rpc) }, { chainId: 31337, address, code });
}
/** By selector: a name in no catalog is reported as `0x<selector>(<arguments>)`. */
const find = (a: StaticAnalysis, signature: string) =>
  a.admin_functions.find((f) => f.selector === id(signature).slice(2, 10));
const familyOf = (a: StaticAnalysis, signature: string) => find(a, signature)?.family;
const send = async (contract: Contract, fn: string, ...args: unknown[]) =>
  (await contract.getFunction(fn)(...args)).wait();

describe('capabilities closed by the state of the chain', () => {
  it('a mint that needs !mintingFinished is closed once a one-way finishMinting() ran', async () => {
    const token = await deploy('Finishable');
    expect(familyOf(await analyse(token), 'mint(address,uint256)')).toBe('mint');
    await send(token, 'finishMinting');
    const after = await analyse(token);
    const mint = after.admin_functions.find((f) => f.signature === 'mint(address,uint256)')!;
    expect(mint.family).toBe('other');
    const closed = mint.evidence.find((e) => e.kind === 'storage');
    expect(closed?.detail).toMatch(
      /^mint\(address,uint256\): its mint path needs bit \d+ of slot 0x\w+ to be 0 \(branch at pc \d+\); storage holds 0x\w+ and no function can store that value again: closed for good$/,
    );
  });

  it('a flag another function can set back keeps the power live', async () => {
    const token = await deploy('Restartable');
    await send(token, 'finishMinting');
    expect(familyOf(await analyse(token), 'mint(address,uint256)')).toBe('mint');
  });

  it('a take gated by a packed flag a one-way release set is closed, though a string setter loops', async () => {
    const token = await deploy('Releasable');
    expect(familyOf(await analyse(token), 'transferToOwner(address)')).toBe('balance-change');
    await send(token, 'releaseTokenTransfer');
    const after = await analyse(token);
    const take = find(after, 'transferToOwner(address)');
    expect(take?.family).toBe('other');
    expect(take?.evidence.find((e) => e.kind === 'storage')?.detail).toMatch(
      /needs bit 160 of slot 0x\w+ to be 0 .* closed for good$/,
    );
    // A per-account lock behind the same flag can lock no one any more: closed as well.
    expect(familyOf(after, 'setLock(address,bool)')).toBe('other');
  });

  it('a packed flag another function can clear keeps the take live', async () => {
    const token = await deploy('Relockable');
    await send(token, 'releaseTokenTransfer');
    expect(familyOf(await analyse(token), 'transferToOwner(address)')).toBe('balance-change');
  });

  it('a used one-shot initialize() that overwrites balances is no leak any more', async () => {
    const token = await deploy('OneShot');
    const leak = (a: StaticAnalysis) =>
      a.admin_functions.filter((f) => f.family === 'balance-change').length;
    expect(leak(await analyse(token))).toBe(1);
    await send(token, 'initialize', [chain.account], [1000n]);
    expect(leak(await analyse(token))).toBe(0);
  });
});
