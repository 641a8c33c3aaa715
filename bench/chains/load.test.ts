import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilHandle, startAnvil } from '../../app/embedded/index.ts';
import { createRpcClient } from '../../infra/rpc/index.ts';
import { createChainReader } from '../../src/evm/chain-reader.ts';
import { findDeployments } from '../../src/evm/deployments.ts';
import { probeContract } from '../../src/evm/probe.ts';
import type { RpcClient } from '../../src/evm/rpc.ts';
import { toQuantity } from '../../src/evm/rpc.ts';
import { createNonceBook, LOADED_ANVIL_ARGS, mineAndCheck, prepareChain, sendAll } from './load.ts';
import { type ChainContracts, createBlockPlanner } from './plan.ts';
import { chainProfile, type TxKind } from './profiles.ts';

/**
 * The load generator's blocks on a real node: what the plan says a block holds is what the chain
 * holds, read back the way the scanner reads it (receipts, traces, the ERC-20 probe).
 */

/** Swap(address,uint256,uint256,uint256,uint256,address) of a Uniswap V2 pair. */
const V2_SWAP = '0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822';
/** Swap(address,address,int256,int256,uint160,uint128,int24) of a Uniswap V3 pool. */
const V3_SWAP = '0xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67';
const BLOCKS = 3;

let anvil: AnvilHandle;
let rpc: RpcClient;
let contracts: ChainContracts;

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 8453, extraArgs: ['--no-mining', ...LOADED_ANVIL_ARGS] });
  rpc = createRpcClient({ urls: [anvil.rpcUrl] });
  contracts = await prepareChain(rpc, { senders: 4, seed: 1 });
});

afterAll(async () => {
  await anvil?.stop();
});

describe('the chains load generator', () => {
  it('mines blocks that hold the planned transfers, swaps, tokens, factory bursts and other contracts', async () => {
    // A fifth of Base's block, with a burst every second block and at least one token a block.
    const profile = { ...chainProfile('base'), burstEverySeconds: 4, burstTokens: 3 };
    const planner = createBlockPlanner(profile, contracts, {
      txScale: 0.2,
      tokenFloorPerMinute: 30,
    });
    const reader = createChainReader(rpc);
    const nonces = await createNonceBook(rpc, contracts.senders);
    const seen = { deployments: 0, tokens: 0, bursts: 0 };
    for (let b = 0; b < BLOCKS; b++) {
      const planned = planner.next();
      const count = (kind: TxKind) => planned.filter((tx) => tx.kind === kind).length;
      const hashes = await sendAll(rpc, nonces.assign(planned));
      // Every transaction succeeded, all in one block.
      await mineAndCheck(rpc, hashes);
      const header = (await reader.block('latest'))!;
      expect(header.transactions).toHaveLength(planned.length);
      expect(planned.length).toBeGreaterThanOrEqual(planner.txPerBlock);

      const [receipts, traces] = await Promise.all([
        reader.receipts(header),
        reader.traces(header),
      ]);
      const deployments = findDeployments(receipts, traces);
      expect(deployments).toHaveLength(
        count('token-deploy') + count('factory-token') + count('contract-deploy'),
      );
      const probes = await Promise.all(
        deployments.map((d) => probeContract(rpc, d.address, toQuantity(Number(header.number)))),
      );
      expect(probes.filter((p) => p.kind === 'token')).toHaveLength(
        count('token-deploy') + count('factory-token'),
      );
      const logs = receipts.flatMap((r) => r.logs);
      const topic = (t: string) => logs.filter((l) => l.topics[0] === t).length;
      expect(topic(V2_SWAP)).toBe(count('v2-swap'));
      expect(topic(V3_SWAP)).toBe(count('v3-swap'));
      seen.deployments += deployments.length;
      seen.tokens += count('token-deploy') + count('factory-token');
      if (count('factory-token') >= profile.burstTokens) seen.bursts++;
    }
    // The run's shape: tokens in every block, a burst, and contracts that are not tokens.
    expect(seen.tokens).toBeGreaterThanOrEqual(BLOCKS);
    expect(seen.bursts).toBeGreaterThanOrEqual(1);
    expect(seen.deployments).toBeGreaterThan(seen.tokens);
  });
});
