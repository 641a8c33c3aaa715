import { getCreateAddress, Interface } from 'ethers';
import { loadArtifact, uniswapArtifact } from '../../contracts/artifacts.ts';
import { subscribeNewHeads } from '../../infra/rpc/index.ts';
import { fromQuantity, type RpcClient, toQuantity } from '../../src/evm/rpc.ts';
import type { ChainContracts, PlannedTx } from './plan.ts';
import { approveAll, seededRandom } from './plan.ts';
import type { TxKind } from './profiles.ts';

/**
 * Puts a loaded chain's contracts in place (Uniswap V2 and V3 with a pool each for an established
 * token, the token factory and its clone implementation, funded senders), and feeds a chain its
 * planned blocks: at each new head, the next block's transactions go to the node in one JSON-RPC
 * batch of eth_sendTransaction from impersonated senders, so that the node mines them into the
 * next block at its own block time.
 */

/** Anvil flags of a loaded chain: room for a full block of creations, no code-size ceiling. */
export const LOADED_ANVIL_ARGS = ['--gas-limit', '2000000000', '--disable-code-size-limit'];

const DEPLOY_GAS = 15_000_000n;
/** Enough for the heaviest setup call (addLiquidityETH creates the pair). */
const CALL_GAS = 8_000_000n;
const RICH = toQuantity(10n ** 30n);
const ESTABLISHED_SUPPLY = 10n ** 30n;
const V2_TOKENS = 10n ** 26n;
const V2_WEI = 10n ** 22n;
const DEPLOYER_WETH = 10n ** 22n;
const SENDER_WETH = 10n ** 21n;
const SENDER_TOKENS = 10n ** 24n;
const V3_FEE = 3_000;
const V3_FULL_RANGE = { lower: -887_220, upper: 887_220 };
const V3_LIQUIDITY = 10n ** 21n;
/** Price 1 (both sides have 18 decimals): sqrt(1) · 2^96. */
const V3_SQRT_PRICE = 2n ** 96n;
const DEADLINE = 4_000_000_000n;

interface SendRequest {
  from: string;
  /** Absent: the node picks the sender's next nonce. */
  nonce?: number;
  to?: string;
  data: string;
  value?: bigint;
  gas: bigint;
}

const iface = (abi: unknown) => new Interface(abi as ConstructorParameters<typeof Interface>[0]);

const asParams = (tx: SendRequest) => ({
  from: tx.from,
  ...(tx.nonce === undefined ? {} : { nonce: toQuantity(tx.nonce) }),
  ...(tx.to ? { to: tx.to } : {}),
  data: tx.data,
  value: toQuantity(tx.value ?? 0n),
  gas: toQuantity(tx.gas),
});

/** Sends the transactions in one batch; answers their hashes (throws on any refusal). */
export async function sendAll(rpc: RpcClient, txs: readonly SendRequest[]): Promise<string[]> {
  const outcomes = await rpc.batch<string>(
    txs.map((tx) => ({ method: 'eth_sendTransaction', params: [asParams(tx)] })),
  );
  return outcomes.map((o) => {
    if (!o.ok) throw o.error;
    return o.result;
  });
}

/** Mines one block now and checks that every one of `hashes` is in it and succeeded. */
export async function mineAndCheck(rpc: RpcClient, hashes: readonly string[]): Promise<void> {
  await rpc.request('evm_mine');
  const receipts = await rpc.batch<{ status: string } | null>(
    hashes.map((h) => ({ method: 'eth_getTransactionReceipt', params: [h] })),
  );
  for (const [i, r] of receipts.entries()) {
    if (!r.ok) throw r.error;
    if (r.result?.status !== '0x1')
      throw new Error(
        `setup transaction ${i} (${hashes[i]}) ${r.result ? 'reverted' : 'not mined'}`,
      );
  }
}

const deployData = (bytecode: string, abi: unknown, args: unknown[] = []) =>
  bytecode + iface(abi).encodeDeploy(args).slice(2);

/**
 * Deploys the chain's contracts and funds `senderCount` impersonated senders, in two mined blocks
 * (evm_mine, whatever the chain's block time). Addresses are derived from the deployer's nonces,
 * so the first block holds every deployment and the calls that use them.
 */
export async function prepareChain(
  rpc: RpcClient,
  options: { senders: number; seed: number },
): Promise<ChainContracts> {
  const random = seededRandom(options.seed);
  const address = () =>
    `0x${Array.from({ length: 40 }, () => Math.floor(random() * 16).toString(16)).join('')}`;
  const deployer = address();
  const senders = Array.from({ length: options.senders }, address);
  await rpc.request('anvil_autoImpersonateAccount', [true]);
  await rpc.batch(
    [deployer, ...senders].map((a) => ({ method: 'anvil_setBalance', params: [a, RICH] })),
  );
  const nonce = fromQuantity(
    await rpc.request<string>('eth_getTransactionCount', [deployer, 'latest']),
  );
  const at = (i: number) => getCreateAddress({ from: deployer, nonce: nonce + i }).toLowerCase();
  const weth = at(0);
  const v2Factory = at(1);
  const v2Router = at(2);
  const v3Factory = at(3);
  const v3Helper = at(4);
  const tokenFactory = at(5);
  const upgradeableImpl = at(6);
  const established = at(7);
  const art = {
    weth: uniswapArtifact('WETH9'),
    v2Factory: uniswapArtifact('UniswapV2Factory'),
    router: uniswapArtifact('UniswapV2Router02'),
    v3Factory: uniswapArtifact('UniswapV3Factory'),
    helper: loadArtifact('V3PoolHelper'),
    tokenFactory: loadArtifact('TokenFactory'),
    upgradeable: loadArtifact('UpgradeableToken'),
    token: loadArtifact('SimpleToken'),
  };
  const erc20 = iface(art.token.abi);
  const wethI = iface(art.weth.abi);
  const routerI = iface(art.router.abi);
  const v3FactoryI = iface(art.v3Factory.abi);
  const deploy = (bytecode: string, abi: unknown, args: unknown[] = []): SendRequest => ({
    from: deployer,
    data: deployData(bytecode, abi, args),
    gas: DEPLOY_GAS,
  });
  const call = (to: string, data: string, value = 0n, from = deployer): SendRequest => ({
    from,
    to,
    data,
    value,
    gas: CALL_GAS,
  });
  const first: SendRequest[] = [
    deploy(art.weth.bytecode, art.weth.abi),
    deploy(art.v2Factory.bytecode, art.v2Factory.abi, [deployer]),
    deploy(art.router.bytecode, art.router.abi, [v2Factory, weth]),
    deploy(art.v3Factory.bytecode, art.v3Factory.abi),
    deploy(art.helper.bytecode, art.helper.abi),
    deploy(art.tokenFactory.bytecode, art.tokenFactory.abi),
    deploy(art.upgradeable.bytecode, art.upgradeable.abi),
    deploy(art.token.bytecode, art.token.abi, ['Established', 'EST', ESTABLISHED_SUPPLY]),
    call(established, approveAll(v2Router)),
    call(
      v2Router,
      routerI.encodeFunctionData('addLiquidityETH', [
        established,
        V2_TOKENS,
        0n,
        0n,
        deployer,
        DEADLINE,
      ]),
      V2_WEI,
    ),
    call(weth, wethI.encodeFunctionData('deposit'), DEPLOYER_WETH),
    call(weth, approveAll(v3Helper)),
    call(established, approveAll(v3Helper)),
    call(v3Factory, v3FactoryI.encodeFunctionData('createPool', [established, weth, V3_FEE])),
    ...senders.map((s) =>
      call(established, erc20.encodeFunctionData('transfer', [s, SENDER_TOKENS])),
    ),
  ];
  const book = await createNonceBook(rpc, [deployer, ...senders]);
  await mineAndCheck(rpc, await sendAll(rpc, book.assign(first)));

  const poolAnswer = await rpc.request<string>('eth_call', [
    { to: v3Factory, data: v3FactoryI.encodeFunctionData('getPool', [established, weth, V3_FEE]) },
    'latest',
  ]);
  const v3Pool = `0x${poolAnswer.slice(-40)}`;
  const poolI = iface(uniswapArtifact('UniswapV3Pool').abi);
  const helperI = iface(art.helper.abi);
  await mineAndCheck(
    rpc,
    await sendAll(
      rpc,
      book.assign([
        call(v3Pool, poolI.encodeFunctionData('initialize', [V3_SQRT_PRICE])),
        call(
          v3Helper,
          helperI.encodeFunctionData('mint', [
            v3Pool,
            V3_FULL_RANGE.lower,
            V3_FULL_RANGE.upper,
            V3_LIQUIDITY,
          ]),
        ),
        // The senders' own: after the first block, since the node orders senders by fee, not by
        // the contracts they need.
        ...senders.flatMap((s) => [
          call(weth, wethI.encodeFunctionData('deposit'), SENDER_WETH, s),
          call(weth, approveAll(v3Helper), 0n, s),
        ]),
      ]),
    ),
  );
  return {
    weth,
    v2Factory,
    v2Router,
    v3Factory,
    v3Helper,
    v3Pool,
    wethIsToken0: weth < established,
    established,
    tokenFactory,
    upgradeableImpl,
    senders,
  };
}

export interface LoadStats {
  /** Blocks whose transactions were sent. */
  blocks: number;
  sent: Record<TxKind, number>;
  /** Batches the node refused in part (their transactions are counted as not sent). */
  failedBatches: number;
  /** Heads that arrived while the previous block's batch was still being sent. */
  skippedHeads: number;
}

export interface RunningLoad {
  stats: LoadStats;
  stop(): Promise<void>;
}

/** Each sender's next nonce as the node counts it (pending transactions included). */
async function pendingNonces(rpc: RpcClient, senders: readonly string[]) {
  const answers = await rpc.batch<string>(
    senders.map((s) => ({ method: 'eth_getTransactionCount', params: [s, 'pending'] })),
  );
  return new Map(
    senders.map((s, i) => {
      const a = answers[i]!;
      if (!a.ok) throw a.error;
      return [s, fromQuantity(a.result)];
    }),
  );
}

/**
 * The senders' nonces, kept by the generator: the node answers a batch's requests concurrently,
 * so nonces it picks itself collide ("replacement transaction underpriced").
 */
export async function createNonceBook(rpc: RpcClient, senders: readonly string[]) {
  let nonces = await pendingNonces(rpc, senders);
  return {
    assign<T extends { from: string }>(txs: readonly T[]): (T & { nonce: number })[] {
      return txs.map((tx) => {
        const nonce = nonces.get(tx.from);
        if (nonce === undefined) throw new Error(`${tx.from} is not a load sender`);
        nonces.set(tx.from, nonce + 1);
        return { ...tx, nonce };
      });
    },
    /** After a refused batch: the node's count again. */
    async resync() {
      nonces = await pendingNonces(rpc, senders);
    },
  };
}

/**
 * Feeds `next()`'s blocks to the chain, one batch per new head (and one at once). Nonces are the
 * generator's own (the node's choice races its miner within a batch); a refused batch resyncs
 * them. A head that arrives while a batch is in flight is skipped and counted: the block after
 * it then carries fewer transactions than planned, which the suite's measured transactions per
 * block show.
 */
export async function runLoad(
  rpc: RpcClient,
  wsUrl: string,
  senders: readonly string[],
  next: () => PlannedTx[],
  onError?: (error: Error) => void,
): Promise<RunningLoad> {
  const stats: LoadStats = {
    blocks: 0,
    sent: {
      'native-transfer': 0,
      'token-transfer': 0,
      'v2-swap': 0,
      'v3-swap': 0,
      'token-deploy': 0,
      'factory-token': 0,
      'contract-deploy': 0,
    },
    failedBatches: 0,
    skippedHeads: 0,
  };
  const nonces = await createNonceBook(rpc, senders);
  let inFlight: Promise<void> | undefined;
  let stopped = false;
  const send = () => {
    if (stopped) return;
    if (inFlight) {
      stats.skippedHeads++;
      return;
    }
    const txs = nonces.assign(next());
    inFlight = sendAll(rpc, txs)
      .then(
        () => {
          stats.blocks++;
          for (const tx of txs) stats.sent[tx.kind]++;
        },
        async (error: Error) => {
          stats.failedBatches++;
          onError?.(error);
          await nonces.resync().catch(() => {});
        },
      )
      .finally(() => {
        inFlight = undefined;
      });
  };
  const heads = subscribeNewHeads(wsUrl, send);
  send();
  return {
    stats,
    async stop() {
      stopped = true;
      heads.close();
      await inFlight;
    },
  };
}
