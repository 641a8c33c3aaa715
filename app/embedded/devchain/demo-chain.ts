// The demo launcher's side of the chain: one funded account that deploys contracts and sends
// calls with gas headroom, waiting for each to be mined.
import {
  Contract,
  ContractFactory,
  type ContractTransactionResponse,
  getAddress,
  type InterfaceAbi,
  JsonRpcProvider,
  NonceManager,
  parseEther,
  type TransactionReceipt,
  Wallet,
} from 'ethers';
import type { Logger } from 'pino';
import { type ContractName, loadArtifact } from '../../../contracts/artifacts.ts';

const RPC_POLLING_MS = 250;
const DEADLINE_SECONDS = 3_600;
// Long-running demos spend ETH on liquidity; on anvil the launcher tops its account up.
const LOW_BALANCE = parseEther('100');
const TOP_UP_BALANCE = parseEther('10000');
// Gas estimates are taken against the current block, but a V2 swap or mint mined one second
// later also writes the pair's price accumulators (zero -> non-zero SSTOREs), so an exact
// estimate can run out of gas. Every call gets this headroom.
const GAS_MARGIN_PCT = 130n;
const GAS_MARGIN_FIXED = 60_000n;

export interface ChainWriter {
  readonly provider: JsonRpcProvider;
  readonly signer: NonceManager;
  /** The launcher's account. */
  readonly me: string;
  deploy(name: ContractName, args: unknown[]): Promise<{ address: string; txHash: string }>;
  /** Sends a contract call with gas headroom and waits for it to be mined successfully. */
  send(
    contract: Contract,
    method: string,
    args: unknown[],
    value?: bigint,
  ): Promise<TransactionReceipt>;
  call(
    address: string,
    abi: InterfaceAbi,
    method: string,
    args: unknown[],
    value?: bigint,
  ): Promise<TransactionReceipt>;
  /** A swap or liquidity deadline an hour after the latest block. */
  chainDeadline(): Promise<number>;
  /** Tops the account up when it runs low (on nodes that allow it). */
  ensureFunds(): Promise<void>;
}

async function confirmed(tx: ContractTransactionResponse | null): Promise<TransactionReceipt> {
  if (!tx) throw new Error('no transaction');
  const receipt = await tx.wait(); // throws on a reverted transaction
  if (!receipt) throw new Error(`transaction ${tx.hash} was dropped`);
  return receipt;
}

export function createChainWriter(rpcUrl: string, privateKey: string, log: Logger): ChainWriter {
  // cacheTimeout -1: ethers otherwise answers identical reads within 250 ms from a cache, and
  // the launcher reads state (nonces, pairs, balances) right after changing it.
  const provider = new JsonRpcProvider(rpcUrl, undefined, {
    staticNetwork: true,
    pollingInterval: RPC_POLLING_MS,
    cacheTimeout: -1,
  });
  const wallet = new Wallet(privateKey, provider);
  const signer = new NonceManager(wallet);
  const me = wallet.address;

  async function send(contract: Contract, method: string, args: unknown[], value?: bigint) {
    const fn = contract.getFunction(method);
    const overrides = value === undefined ? {} : { value };
    // Estimated before NonceManager.sendTransaction, so a reverting call consumes no nonce.
    const estimate = await fn.estimateGas(...args, overrides);
    const gasLimit = (estimate * GAS_MARGIN_PCT) / 100n + GAS_MARGIN_FIXED;
    return confirmed(
      (await fn(...args, { ...overrides, gasLimit })) as ContractTransactionResponse,
    );
  }

  return {
    provider,
    signer,
    me,
    async deploy(name, args) {
      const art = loadArtifact(name);
      const contract = await new ContractFactory(art.abi, art.bytecode, signer).deploy(...args);
      const receipt = await confirmed(contract.deploymentTransaction());
      return { address: getAddress(await contract.getAddress()), txHash: receipt.hash };
    },
    send,
    call: (address, abi, method, args, value) =>
      send(new Contract(address, abi, signer), method, args, value),
    async chainDeadline() {
      const block = await provider.getBlock('latest');
      return (block?.timestamp ?? Math.floor(Date.now() / 1000)) + DEADLINE_SECONDS;
    },
    async ensureFunds() {
      if ((await provider.getBalance(me)) >= LOW_BALANCE) return;
      try {
        await provider.send('anvil_setBalance', [me, `0x${TOP_UP_BALANCE.toString(16)}`]);
        log.info({ account: me }, 'demo launcher: topped up launcher balance');
      } catch {
        log.warn({ account: me }, 'demo launcher: balance low and the node cannot top it up');
      }
    },
  };
}
