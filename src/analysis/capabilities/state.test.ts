import { type Contract, ContractFactory, type InterfaceAbi } from 'ethers';
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
 * used. Each contract is deployed on Anvil and analysed before and after the closing call; a
 * flag some function can set back keeps the power live.
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
const familyOf = (a: StaticAnalysis, signature: string) =>
  a.admin_functions.find((f) => f.signature === signature)?.family;
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

  it('a used one-shot initialize() that overwrites balances is no leak any more', async () => {
    const token = await deploy('OneShot');
    const leak = (a: StaticAnalysis) =>
      a.admin_functions.filter((f) => f.family === 'balance-change').length;
    expect(leak(await analyse(token))).toBe(1);
    await send(token, 'initialize', [chain.account], [1000n]);
    expect(leak(await analyse(token))).toBe(0);
  });
});
