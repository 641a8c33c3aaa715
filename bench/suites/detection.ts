import { and, eq, isNotNull, sql } from 'drizzle-orm';
import {
  type Contract,
  ContractFactory,
  type InterfaceAbi,
  JsonRpcProvider,
  NonceManager,
  parseEther,
  Wallet,
} from 'ethers';
import WebSocket from 'ws';
import {
  ANVIL_PRIVATE_KEYS,
  type AnvilHandle,
  issueDemoKey,
  startAnvil,
} from '../../app/embedded/index.ts';
import { loadArtifact } from '../../contracts/artifacts.ts';
import { createDb } from '../../db/client.ts';
import { tokens } from '../../db/schema.ts';
import { createRpcClient, subscribeNewHeads } from '../../infra/rpc/index.ts';
import { type ChainConfig, LOCAL_CHAIN_ID } from '../../src/config/chains.ts';
import { createChainReader } from '../../src/evm/chain-reader.ts';
import { findDeployments } from '../../src/evm/deployments.ts';
import { toQuantity } from '../../src/evm/rpc.ts';
import { BENCH_POOL_MAX, startTestService } from '../../test/support/service.ts';
import {
  createTestDatabase,
  createTestRedis,
  type TestDatabase,
  type TestRedis,
} from '../../test/support/services.ts';
import { probeInBatches } from '../../workers/scan/index.ts';
import { mined } from '../receipts.ts';
import { type BenchRow, percentile, progress, round } from '../report.ts';

/**
 * Detection benchmark: detection throughput over a replay of blocks holding deployments, against
 * the raw RPC ceiling (the same calls made directly, no queues, no database), and the latency
 * from a deployment's block to token.created on a WebSocket, on a 1 s block-time chain.
 */

const SUITE = 'detection';
const DETECT_CONCURRENCY = 4;

async function deployTokens(
  anvil: AnvilHandle,
  count: number,
  fillerEvery: number,
): Promise<{ first: number; last: number; deployments: number }> {
  const provider = new JsonRpcProvider(anvil.rpcUrl, LOCAL_CHAIN_ID, {
    staticNetwork: true,
    cacheTimeout: -1,
  });
  const signer = new NonceManager(new Wallet(ANVIL_PRIVATE_KEYS[0], provider));
  const simple = loadArtifact('SimpleToken');
  const factoryArtifact = loadArtifact('TokenFactory');
  const factory = await new ContractFactory(
    factoryArtifact.abi as InterfaceAbi,
    factoryArtifact.bytecode,
    signer,
  ).deploy();
  await mined(provider, factory.deploymentTransaction());
  const first = (await provider.getBlockNumber()) + 1;
  const pending: Promise<unknown>[] = [];
  for (let i = 0; i < count; i++) {
    // Half top-level deployments, half factory CREATEs (found through traces).
    if (i % 2 === 0) {
      const token = await new ContractFactory(
        simple.abi as InterfaceAbi,
        simple.bytecode,
        signer,
      ).deploy(`Bench ${i}`, `B${i}`, parseEther('1000'));
      pending.push(mined(provider, token.deploymentTransaction()));
    } else {
      const tx = await (factory as Contract).getFunction('createToken')(
        `Bench ${i}`,
        `B${i}`,
        parseEther('1000'),
      );
      pending.push(mined(provider, tx));
    }
    // Blocks without deployments, as on a real chain.
    for (let j = 0; j < fillerEvery; j++) {
      const tx = await signer.sendTransaction({ to: Wallet.createRandom().address, value: 1n });
      pending.push(mined(provider, tx));
    }
    if (i % 25 === 24) progress(`deployed ${i + 1}/${count} tokens`);
  }
  await Promise.all(pending);
  const last = await provider.getBlockNumber();
  provider.destroy();
  return { first, last, deployments: count };
}

/** The same receipt, trace, probe and code calls the pipeline makes, straight from the node. */
export async function rawCeiling(
  anvil: Pick<AnvilHandle, 'rpcUrl'>,
  first: number,
  last: number,
): Promise<{ seconds: number; tokens: number }> {
  const rpc = createRpcClient({ urls: [anvil.rpcUrl] });
  const reader = createChainReader(rpc);
  let found = 0;
  let next = first;
  const started = performance.now();
  const worker = async () => {
    while (next <= last) {
      const n = next++;
      const header = (await reader.block(n))!;
      const [receipts, traces] = await Promise.all([
        reader.receipts(header),
        reader.traces(header),
      ]);
      // A block's deployments probed in one batch, as the detect stage does.
      const deployed = findDeployments(receipts, traces);
      const outcomes = await probeInBatches(
        rpc,
        deployed.map((d) => ({ address: d.address, blockTag: toQuantity(n) })),
      );
      for (const [i, probe] of outcomes.entries()) {
        if (probe.kind === 'token') {
          found++;
          await reader.code(deployed[i]!.address, 'latest');
        }
      }
    }
  };
  await Promise.all(Array.from({ length: DETECT_CONCURRENCY }, worker));
  return { seconds: (performance.now() - started) / 1000, tokens: found };
}

/** Seconds until the scanner, from `first`, has taken `deployments` tokens through bytecode. */
async function pipelineSeconds(
  anvil: AnvilHandle,
  database: TestDatabase,
  redis: TestRedis,
  first: number,
  deployments: number,
): Promise<number> {
  const chain: ChainConfig = {
    chainId: LOCAL_CHAIN_ID,
    name: 'bench',
    rpcUrls: [anvil.rpcUrl],
    confirmations: 0,
    startBlock: first,
    finalityDepth: 64,
    pollIntervalMs: 100,
    wrappedNative: `0x${'0'.repeat(40)}`,
    stablecoins: [],
    dexes: [],
    ephemeral: false,
  };
  const db = createDb(database.url, { max: 2 });
  const started = performance.now();
  const service = await startTestService({
    roles: ['worker', 'scanner'],
    database,
    redis,
    chain,
    poolMax: database.embedded ? 1 : BENCH_POOL_MAX,
  });
  let done = 0;
  while (done < deployments) {
    await new Promise((r) => setTimeout(r, 50));
    const [row] = await db.db
      .select({ n: sql<number>`count(*)::int` })
      .from(tokens)
      .where(and(eq(tokens.chainId, LOCAL_CHAIN_ID), isNotNull(tokens.bytecodeHash)));
    done = row?.n ?? 0;
  }
  const seconds = (performance.now() - started) / 1000;
  await service.stop();
  await db.close();
  return seconds;
}

export async function detectionThroughput(options: {
  tokens: number;
  fillerEvery: number;
}): Promise<BenchRow[]> {
  const anvil = await startAnvil({ chainId: LOCAL_CHAIN_ID });
  const [database, redis] = await Promise.all([createTestDatabase(), createTestRedis()]);
  try {
    progress(`deploying ${options.tokens} tokens with ${options.fillerEvery} filler blocks each`);
    const { first, last, deployments } = await deployTokens(
      anvil,
      options.tokens,
      options.fillerEvery,
    );
    const blocks = last - first + 1;
    progress(`raw RPC ceiling over ${blocks} blocks`);
    const raw = await rawCeiling(anvil, first, last);

    progress('scanner catching up from the first block (scan → detect → bytecode → Postgres)');
    const seconds = await pipelineSeconds(anvil, database, redis, first, deployments);
    if (raw.tokens !== deployments)
      throw new Error(`raw ceiling found ${raw.tokens} tokens, expected ${deployments}`);

    const rawBlocksPerSecond = blocks / raw.seconds;
    const blocksPerSecond = blocks / seconds;
    return [
      {
        suite: SUITE,
        metric: 'scanner catch-up blocks/s (scan → detect → bytecode)',
        value: round(blocksPerSecond),
        unit: 'blocks/s',
        baseline: {
          metric: 'raw RPC blocks/s',
          value: round(rawBlocksPerSecond),
          ratio: blocksPerSecond / rawBlocksPerSecond,
        },
        note: `${blocks} blocks, ${deployments} deployments`,
      },
      {
        suite: SUITE,
        metric: 'scanner catch-up tokens/s (scan → detect → bytecode)',
        value: round(deployments / seconds),
        unit: 'tokens/s',
        baseline: {
          metric: 'raw RPC tokens/s',
          value: round(deployments / raw.seconds),
          ratio: raw.seconds / seconds,
        },
      },
    ];
  } finally {
    await Promise.all([anvil.stop(), database.drop(), redis.cleanup()]);
  }
}

/** The chain as the latency run scans it: over WebSocket heads, from genesis. */
const latencyChain = (anvil: AnvilHandle): ChainConfig => ({
  chainId: LOCAL_CHAIN_ID,
  name: 'bench',
  rpcUrls: [anvil.rpcUrl],
  wsUrl: anvil.wsUrl,
  confirmations: 0,
  startBlock: 0,
  finalityDepth: 64,
  pollIntervalMs: 250,
  wrappedNative: `0x${'0'.repeat(40)}`,
  stablecoins: [],
  dexes: [],
  ephemeral: false,
});

export async function detectionLatency(options: { deployments: number }): Promise<BenchRow[]> {
  const anvil = await startAnvil({ chainId: LOCAL_CHAIN_ID, blockTime: 1 });
  const [database, redis] = await Promise.all([createTestDatabase(), createTestRedis()]);
  const chain = latencyChain(anvil);
  const service = await startTestService({
    roles: ['worker', 'scanner', 'api'],
    database,
    redis,
    chain,
    poolMax: database.embedded ? 1 : BENCH_POOL_MAX,
  });
  // When each block reached us: the latency's starting point is the block, not our transaction.
  const blockSeen = new Map<number, number>();
  const heads = subscribeNewHeads(anvil.wsUrl, (n) => blockSeen.set(n, performance.now()));
  const eventSeen = new Map<string, number>();
  const apiKey = await issueDemoKey(database.url, redis.url, redis.prefix);
  const socket = new WebSocket(`${service.url!.replace('http', 'ws')}/ws?token=${apiKey}`);
  socket.on('message', (raw) => {
    const message = JSON.parse(raw.toString()) as {
      type: string;
      data?: { contract_address: string };
    };
    if (message.type === 'token.created' && message.data)
      eventSeen.set(message.data.contract_address, performance.now());
  });
  await new Promise((resolve) => socket.once('open', resolve));
  const provider = new JsonRpcProvider(anvil.rpcUrl, LOCAL_CHAIN_ID, {
    staticNetwork: true,
    pollingInterval: 50,
    cacheTimeout: -1,
  });
  const signer = new NonceManager(new Wallet(ANVIL_PRIVATE_KEYS[3], provider));
  const simple = loadArtifact('SimpleToken');
  const latencies: number[] = [];
  try {
    for (let i = 0; i < options.deployments; i++) {
      const token = await new ContractFactory(
        simple.abi as InterfaceAbi,
        simple.bytecode,
        signer,
      ).deploy(`Latency ${i}`, `L${i}`, 1000n);
      const receipt = await mined(provider, token.deploymentTransaction());
      const address = (await token.getAddress()).toLowerCase();
      const deadline = Date.now() + 20_000;
      while (!eventSeen.has(address) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 10));
      const seenAt = blockSeen.get(receipt.blockNumber);
      const eventAt = eventSeen.get(address);
      if (seenAt === undefined || eventAt === undefined)
        throw new Error(`no timing for ${address}`);
      latencies.push(eventAt - seenAt);
      if (i % 10 === 9) progress(`latency ${i + 1}/${options.deployments}`);
    }
  } finally {
    socket.close();
    heads.close();
    provider.destroy();
    await service.stop();
    await Promise.all([anvil.stop(), database.drop(), redis.cleanup()]);
  }
  latencies.sort((a, b) => a - b);
  return [
    {
      suite: SUITE,
      metric: 'block → token.created on WS, p50',
      value: round(percentile(latencies, 50), 1),
      unit: 'ms',
      note: `${latencies.length} deployments, 1 s blocks`,
    },
    {
      suite: SUITE,
      metric: 'block → token.created on WS, p99',
      value: round(percentile(latencies, 99), 1),
      unit: 'ms',
    },
  ];
}
