import { sql } from 'drizzle-orm';
import {
  Contract,
  ContractFactory,
  type InterfaceAbi,
  JsonRpcProvider,
  NonceManager,
  Wallet,
} from 'ethers';
import { ANVIL_PRIVATE_KEYS, type AnvilHandle, startAnvil } from '../../app/embedded/index.ts';
import { loadArtifact } from '../../contracts/artifacts.ts';
import { createDb } from '../../db/client.ts';
import { createHolderRepository } from '../../db/repositories/holders.ts';
import { createReplayRepository } from '../../db/repositories/replay.ts';
import { createTokenRepository } from '../../db/repositories/tokens.ts';
import { createEventPublisher } from '../../infra/events.ts';
import { silentLogger } from '../../infra/logger.ts';
import { createRedis, keySpace } from '../../infra/redis.ts';
import { type ChainConfig, LOCAL_CHAIN_ID } from '../../src/config/chains.ts';
import {
  createTestDatabase,
  createTestRedis,
  type TestRedis,
} from '../../test/support/services.ts';
import { createChainRuntimes } from '../../workers/chain-runtime.ts';
import { createProducer, startWorkers } from '../../workers/queues.ts';
import { createReplayProcessor, replayRange } from '../../workers/replay/index.ts';
import { mined } from '../receipts.ts';
import { type BenchRow, progress, round } from '../report.ts';

/**
 * Holders benchmark: a history dense in Transfer logs (SprayTokens sending to thousands of fresh
 * addresses) replayed without holder tracking and with it, back to back in each round, on
 * databases of their own; the Transfer logs per second of both, and what the balances cost in
 * Postgres (bytes per holder row; nothing left in the pending and undo tables of a replay).
 */

const SUITE = 'holders';
const FINALITY = 3;
/** Gas of one spray call: under Anvil's 30 M block gas limit (a fresh holder costs ~30 k). */
const SPRAY_GAS = 29_000_000n;

interface History {
  to: number;
  transfers: number;
  holders: number;
}

async function buildHistory(
  anvil: AnvilHandle,
  options: { tokens: number; sprays: number; perSpray: number },
): Promise<History> {
  const transfers = options.tokens * (options.sprays * options.perSpray + 1);
  progress(`holders: ${options.tokens} tokens, ${transfers} Transfer logs of history`);
  const provider = new JsonRpcProvider(anvil.rpcUrl, LOCAL_CHAIN_ID, {
    staticNetwork: true,
    cacheTimeout: -1,
    pollingInterval: 50,
  });
  const signer = new NonceManager(new Wallet(ANVIL_PRIVATE_KEYS[0], provider));
  const art = loadArtifact('SprayToken');
  const pending: Promise<unknown>[] = [];
  for (let t = 0; t < options.tokens; t++) {
    const token = await new ContractFactory(art.abi as InterfaceAbi, art.bytecode, signer).deploy(
      `Spray ${t}`,
      `SP${t}`,
      10n ** 30n,
    );
    await mined(provider, token.deploymentTransaction());
    const contract = new Contract(await token.getAddress(), art.abi as InterfaceAbi, signer);
    for (let s = 0; s < options.sprays; s++) {
      const sent = await contract.getFunction('spray')(
        options.perSpray,
        1n,
        BigInt(t * 1_000 + s),
        {
          gasLimit: SPRAY_GAS,
        },
      );
      pending.push(mined(provider, sent));
    }
  }
  await Promise.all(pending);
  provider.destroy();
  await fetch(anvil.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_mine', params: ['0x10'] }),
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
  // Every recipient once, and each token's deployer.
  return { to: head - FINALITY, transfers, holders: transfers };
}

const benchChain = (anvil: AnvilHandle): ChainConfig => ({
  chainId: LOCAL_CHAIN_ID,
  name: 'bench',
  rpcUrls: [anvil.rpcUrl],
  confirmations: 0,
  finalityDepth: FINALITY,
  pollIntervalMs: 200,
  wrappedNative: `0x${'0'.repeat(40)}`,
  stablecoins: [],
  dexes: [],
  ephemeral: false,
});

/** One replay of [0, to], its own database and key prefix, with or without holder tracking. */
async function timedReplay(
  env: { anvil: AnvilHandle; redis: TestRedis; history: History },
  prefix: string,
  withHolders: boolean,
) {
  const database = await createTestDatabase();
  const handle = createDb(database.url, { max: 6 });
  const general = createRedis(env.redis.url, 'commands');
  const producerConnection = createRedis(env.redis.url, 'producer');
  const workerConnection = createRedis(env.redis.url, 'worker');
  const producer = createProducer(producerConnection, prefix);
  const chains = createChainRuntimes([benchChain(env.anvil)], silentLogger);
  const holders = createHolderRepository(handle.db);
  const pool = startWorkers({
    connection: workerConnection,
    prefix,
    logger: silentLogger,
    processors: {
      replay: createReplayProcessor({
        chains,
        tokens: createTokenRepository(handle.db),
        producer,
        events: createEventPublisher(general, keySpace(prefix).events),
        logger: silentLogger,
        ...(withHolders ? { replayHolders: holders } : {}),
      }),
    },
  });
  try {
    const started = performance.now();
    const result = await replayRange(
      {
        chain: chains.get(LOCAL_CHAIN_ID)!,
        producer,
        ranges: createReplayRepository(handle.db),
        logger: silentLogger,
        ...(withHolders ? { holders } : {}),
      },
      0,
      env.history.to,
    );
    const seconds = (performance.now() - started) / 1000;
    if (result.status !== 'finished') throw new Error(`replay ${result.status}`);
    const [size] = await handle.db.execute<{ rows: number; bytes: number; left: number }>(sql`
      select (select count(*) from holder_balances)::int as rows,
             pg_total_relation_size('holder_balances')::bigint as bytes,
             ((select count(*) from holder_pending) + (select count(*) from holder_changes))::int as left`);
    if (withHolders && size?.rows !== env.history.holders)
      throw new Error(`holders: ${size?.rows} rows, expected ${env.history.holders}`);
    const label = withHolders ? 'with holders' : 'without holders';
    progress(
      `holders replay ${label}: ${result.blocks} blocks, ${env.history.transfers} Transfer logs in ` +
        `${seconds.toFixed(2)} s = ${(env.history.transfers / seconds).toFixed(0)} logs/s`,
    );
    return {
      seconds,
      rows: size?.rows ?? 0,
      bytesPerRow: size && size.rows > 0 ? Number(size.bytes) / size.rows : 0,
      left: size?.left ?? 0,
    };
  } finally {
    await pool.close();
    await producer.close();
    for (const c of [general, producerConnection, workerConnection]) c.disconnect();
    await handle.close();
    await database.drop();
  }
}

export async function holdersThroughput(options: {
  tokens: number;
  sprays: number;
  perSpray: number;
  rounds: number;
}): Promise<BenchRow[]> {
  const anvil = await startAnvil({ chainId: LOCAL_CHAIN_ID });
  const redis = await createTestRedis();
  try {
    const history = await buildHistory(anvil, options);
    const env = { anvil, redis, history };
    const rounds: { without: number; with: number; bytesPerRow: number; left: number }[] = [];
    for (let r = 0; r < options.rounds; r++) {
      const without = await timedReplay(env, `${redis.prefix}-h${r}-off`, false);
      const tracked = await timedReplay(env, `${redis.prefix}-h${r}-on`, true);
      rounds.push({
        without: history.transfers / without.seconds,
        with: history.transfers / tracked.seconds,
        bytesPerRow: tracked.bytesPerRow,
        left: tracked.left,
      });
    }
    // The round with the median ratio (the machine's load drifts between rounds).
    rounds.sort((a, b) => a.with / a.without - b.with / b.without);
    const median = rounds[Math.floor(rounds.length / 2)]!;
    const note = `${options.tokens} tokens, ${history.transfers} Transfer logs, ${history.to + 1} blocks; the round with the median ratio of ${options.rounds}`;
    return [
      {
        suite: SUITE,
        metric: 'replay with holder tracking, Transfer logs/s',
        value: round(median.with),
        unit: 'logs/s',
        baseline: {
          metric: 'the same replay without holder tracking',
          value: round(median.without),
          ratio: median.with / median.without,
        },
        note,
      },
      {
        suite: SUITE,
        metric: 'holder_balances bytes per holder row (with its indexes)',
        value: round(median.bytesPerRow),
        unit: 'bytes',
        note: `one row per holder per token; rows left in holder_pending and holder_changes after the replay: ${median.left}`,
      },
    ];
  } finally {
    await Promise.all([anvil.stop(), redis.cleanup()]);
  }
}
