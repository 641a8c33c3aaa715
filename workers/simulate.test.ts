import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../db/client.ts';
import { createAnalysisRepository } from '../db/repositories/analyses.ts';
import { createTokenRepository } from '../db/repositories/tokens.ts';
import { silentLogger } from '../infra/logger.ts';
import { createRedis } from '../infra/redis.ts';
import { createRpcClient } from '../infra/rpc/index.ts';
import { probeCreatorAccess, STRANGER } from '../src/analysis/access/index.ts';
import type { StaticAnalysis } from '../src/analysis/types.ts';
import { createChainReader } from '../src/evm/chain-reader.ts';
import type { RpcClient, RpcRequest } from '../src/evm/rpc.ts';
import { passFor } from '../src/run-key.ts';
import { startTestChain, type TestChain } from '../test/support/chain.ts';
import {
  createTestDatabase,
  createTestRedis,
  type TestDatabase,
  type TestRedis,
} from '../test/support/services.ts';
import { type CorpusToken, deployCorpusToken } from '../test/support/token-corpus.ts';
import type { ChainRuntime } from './chain-runtime.ts';
import { createProducer, type Producer } from './queues.ts';
import { createSelectorsProcessor } from './selectors.ts';
import { createSimulateProcessor, privilegedCallers } from './simulate.ts';

/**
 * The simulate stage's JSON-RPC calls, counted at the client (every entry of a batch apart): the
 * creator access probes of a renounced token ask the node once per sender, folded as the
 * selectors stage folds its own access probes (src/evm/coalesce/coalesce.ts), and answer as plain calls.
 */

let chain: TestChain;
let database: TestDatabase;
let redis: TestRedis;
let handle: DbHandle;
let connection: ReturnType<typeof createRedis>;
let producer: Producer;
let token: CorpusToken;

/** A client that records every request it sends to the node (batches entry by entry). */
function recording(rpc: RpcClient, sent: RpcRequest[]): RpcClient {
  return {
    urls: rpc.urls,
    request(method, params, options) {
      sent.push({ method, params: params ?? [] });
      return rpc.request(method, params, options);
    },
    batch(requests) {
      sent.push(...requests);
      return rpc.batch(requests);
    },
  };
}

beforeAll(async () => {
  [chain, database, redis] = await Promise.all([
    startTestChain(),
    createTestDatabase(),
    createTestRedis(),
  ]);
  handle = createDb(database.url, { max: 2 });
  connection = createRedis(redis.url, 'producer');
  producer = createProducer(connection, redis.prefix);
  token = await deployCorpusToken(chain, 'renounced', 3);
}, 180_000);

afterAll(async () => {
  await producer?.close();
  connection?.disconnect();
  await handle?.close();
  await Promise.all([chain?.stop(), database?.drop(), redis?.cleanup()]);
});

describe('the simulate stage of a renounced token', () => {
  it("asks the creator's access once per sender, with the plain calls' answers", async () => {
    const chainId = chain.anvil.chainId;
    await createTokenRepository(handle.db).upsertDetected({
      chainId,
      address: token.address,
      name: 'renounced',
      symbol: 'R',
      decimals: 18,
      totalSupply: '0',
      creationTxHash: null,
      creator: chain.account,
      creatorIsContract: false,
      txOrigin: chain.account,
      creationBlockNumber: null,
      creationBlockHash: null,
      creationTimestamp: new Date(),
      creationGasUsed: null,
      detectionSource: 'submitted',
    });
    const plain = createRpcClient({ urls: [chain.anvil.rpcUrl] });
    const sent: RpcRequest[] = [];
    const rpc = recording(plain, sent);
    const chains = new Map<number, ChainRuntime>([
      [chainId, { config: chain.chainConfig(), rpc, reader: createChainReader(rpc) }],
    ]);
    const analyses = createAnalysisRepository(handle.db);
    const deps = { chains, analyses, producer, logger: silentLogger };
    const data = {
      chainId,
      address: token.address,
      ...passFor({ kind: 'scheduled-refresh', bucketMs: 0 }),
    };
    const key = { chainId, address: token.address, run: data.run };
    await createSelectorsProcessor(deps)(data);
    const analysis = ((await analyses.passStart(key)).own as { static: StaticAnalysis }).static;
    const callers = privilegedCallers(analysis, { creator: chain.account } as never);
    // What the creator access probes answer as plain eth_calls (one per probe).
    const expected = await probeCreatorAccess(plain, { token: token.address, analysis, callers });

    sent.length = 0;
    await createSimulateProcessor(deps)(data);
    const calls = sent.filter((r) => r.method === 'eth_call');
    const from = (r: RpcRequest) => ((r.params[0] as { from?: string }).from ?? '').toLowerCase();
    const to = (r: RpcRequest) => ((r.params[0] as { to?: string }).to ?? '').toLowerCase();
    const senders = [STRANGER.toLowerCase(), chain.account];
    // The stage probes two owner-only functions of the token (mint, transferOwnership) from the
    // stranger and from the creator, two argument variants each: eight calls, never sent alone.
    expect(calls.filter((r) => to(r) === token.address && senders.includes(from(r)))).toEqual([]);
    // One folded eth_call per sender (the bundle placed at the sender, called from it).
    const folded = calls.filter((r) => senders.includes(from(r)) && to(r) === from(r));
    expect(folded.map(from).sort()).toEqual([...senders].sort());
    const { own } = await analyses.passStart(key);
    const behaviour = (own as { behaviour?: { findings: unknown[] } | null }).behaviour;
    expect(behaviour?.findings ?? []).toEqual(expected);
  }, 120_000);
});
