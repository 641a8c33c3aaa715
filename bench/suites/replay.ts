import { ContractFactory, type InterfaceAbi, JsonRpcProvider, NonceManager, Wallet } from 'ethers';
import { startService } from '../../app/service.ts';
import { loadArtifact } from '../../contracts/artifacts.ts';
import { createDb } from '../../db/client.ts';
import { createReplayRepository } from '../../db/repositories/replay.ts';
import { silentLogger } from '../../infra/logger.ts';
import { createRedis } from '../../infra/redis.ts';
import { ANVIL_PRIVATE_KEYS, startAnvil } from '../../scripts/dev/anvil.ts';
import { type ChainConfig, LOCAL_CHAIN_ID } from '../../src/config/chains.ts';
import { createTestDatabase, createTestRedis } from '../../test/support/services.ts';
import { createProducer } from '../../workers/queues.ts';
import { replayRange } from '../../workers/replay.ts';
import { mined } from '../receipts.ts';
import { type BenchRow, progress, round } from '../report.ts';
import { rawCeiling } from './detection.ts';

/**
 * Replay benchmark: replay throughput with live scanning running alongside, against the same replay with
 * nothing else running, in the same run. Live scanning follows a 1 s block-time chain on which
 * tokens keep being deployed while the replay works through the history.
 */

const SUITE = 'replay';
const FINALITY = 5;

async function deploy(rpcUrl: string, key: string, count: number): Promise<void> {
  const provider = new JsonRpcProvider(rpcUrl, LOCAL_CHAIN_ID, {
    staticNetwork: true,
    cacheTimeout: -1,
    pollingInterval: 50,
  });
  const signer = new NonceManager(new Wallet(key, provider));
  const simple = loadArtifact('SimpleToken');
  const pending: Promise<unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const token = await new ContractFactory(
      simple.abi as InterfaceAbi,
      simple.bytecode,
      signer,
    ).deploy(`Replay ${i}`, `RP${i}`, 1000n);
    pending.push(mined(provider, token.deploymentTransaction()));
  }
  await Promise.all(pending);
  provider.destroy();
}

export async function replayBesideLiveScanning(options: {
  deployments: number;
  emptyBlocks: number;
}): Promise<BenchRow[]> {
  const anvil = await startAnvil({ chainId: LOCAL_CHAIN_ID });
  const redis = await createTestRedis();
  const connection = createRedis(redis.url, 'producer');
  try {
    progress(
      `replay: ${options.deployments} deployments and ${options.emptyBlocks} empty blocks of history`,
    );
    await deploy(anvil.rpcUrl, ANVIL_PRIVATE_KEYS[0], options.deployments);
    await fetch(anvil.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'anvil_mine',
        params: [`0x${options.emptyBlocks.toString(16)}`],
      }),
    });
    const head = Number(
      (
        (await (
          await fetch(anvil.rpcUrl, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
          })
        ).json()) as { result: string }
      ).result,
    );
    const to = head - FINALITY;
    const chain: ChainConfig = {
      chainId: LOCAL_CHAIN_ID,
      name: 'bench',
      rpcUrls: [anvil.rpcUrl],
      confirmations: 0,
      startBlock: head + 1,
      finalityDepth: FINALITY,
      pollIntervalMs: 200,
      wrappedNative: `0x${'0'.repeat(40)}`,
      stablecoins: [],
      dexes: [],
      ephemeral: false,
    };
    /** Each run has a database and a key prefix of its own: both do exactly the same work. */
    async function timedReplay(label: string, prefix: string, live: boolean): Promise<number> {
      const database = await createTestDatabase();
      const db = createDb(database.url, { max: 2 });
      const ranges = createReplayRepository(db.db);
      const service = await startService({
        roles: new Set(live ? ['worker', 'scanner'] : ['worker']),
        databaseUrl: database.url,
        redisUrl: redis.url,
        redisPrefix: prefix,
        chains: [chain],
        knownChainIds: new Set([LOCAL_CHAIN_ID]),
        port: 0,
        host: '127.0.0.1',
        logger: silentLogger,
        poolMax: database.embedded ? 1 : 10,
      });
      // Live traffic: tokens keep arriving at the head while the replay runs.
      let deploying = live;
      const traffic = live
        ? (async () => {
            while (deploying) await deploy(anvil.rpcUrl, ANVIL_PRIVATE_KEYS[4], 3);
          })()
        : Promise.resolve();
      const producer = createProducer(connection, prefix);
      const started = performance.now();
      const result = await replayRange(
        { chain: [...service.chains.values()][0]!, producer, ranges, logger: silentLogger },
        0,
        to,
      );
      const seconds = (performance.now() - started) / 1000;
      deploying = false;
      await traffic;
      await service.stop();
      await producer.close();
      await db.close();
      await database.drop();
      if (result.status !== 'finished') throw new Error(`${label} replay ${result.status}`);
      progress(`replay ${label}: ${result.blocks} blocks in ${seconds.toFixed(1)} s`);
      return result.blocks / seconds;
    }

    // The ceiling: the same block, receipt, trace, probe and code calls, straight from the node.
    progress(`replay: raw RPC ceiling over ${to + 1} blocks`);
    const raw = await rawCeiling(anvil, 0, to);
    const ceiling = (to + 1) / raw.seconds;
    const beside = await timedReplay('beside live scanning', redis.prefix, true);
    const alone = await timedReplay('alone', `${redis.prefix}-alone`, false);
    return [
      {
        suite: SUITE,
        metric: 'replay blocks/s with live scanning alongside',
        value: round(beside),
        unit: 'blocks/s',
        baseline: { metric: 'replay alone', value: round(alone), ratio: beside / alone },
        note: `${to + 1} blocks, ${options.deployments} deployments`,
      },
      {
        suite: SUITE,
        metric: 'replay blocks/s alone against the raw RPC ceiling',
        value: round(alone),
        unit: 'blocks/s',
        baseline: { metric: 'raw RPC blocks/s', value: round(ceiling), ratio: alone / ceiling },
        note: `target ≥ 70 %; ${raw.tokens} tokens found by the raw pass`,
      },
    ];
  } finally {
    connection.disconnect();
    await Promise.all([anvil.stop(), redis.cleanup()]);
  }
}
