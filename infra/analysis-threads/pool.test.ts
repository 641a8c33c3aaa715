import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeOver } from '../../src/analysis/static/index.ts';
import type { RpcClient } from '../../src/evm/rpc.ts';
import { startTestChain, type TestChain } from '../../test/support/chain.ts';
import { type CorpusToken, deployCorpus } from '../../test/support/token-corpus.ts';
import { createRpcClient } from '../rpc/index.ts';
import { type AnalysisThreads, createAnalysisThreads } from './index.ts';

const logger = pino({ level: 'silent' });
/** Kinds whose analyses take every path of the protocol: owner reads, reverts, proxies, folds. */
const KINDS = [
  'simple',
  'mintable',
  'honeypot',
  'proxy',
  'clone',
  'renounced',
  'tax',
  'fake-renounce',
];

/** Waits until the pool's threads are ready (they start with the first analysis). */
async function ready(threads: AnalysisThreads, size: number): Promise<void> {
  for (let i = 0; i < 600 && threads.size < size; i++) await new Promise((r) => setTimeout(r, 50));
  expect(threads.size).toBe(size);
}

describe('analysis threads', () => {
  let chain: TestChain;
  let corpus: CorpusToken[];
  let rpc: RpcClient;

  beforeAll(async () => {
    chain = await startTestChain();
    corpus = await deployCorpus(chain, { kinds: KINDS });
    rpc = createRpcClient({ urls: [chain.anvil.rpcUrl] });
  });
  afterAll(async () => {
    await chain?.stop();
  });

  const inputOf = async (t: CorpusToken) => ({
    chainId: chain.anvil.chainId,
    address: t.address,
    code: (await rpc.request<string>('eth_getCode', [t.address, 'latest'])) as string,
  });

  it('answer what the analysis answers in process, with its requests sent through the given client', async () => {
    let requests = 0;
    const counted: RpcClient = {
      urls: rpc.urls,
      request: (method, params, options) => {
        requests++;
        return rpc.request(method, params, options);
      },
      batch: (batch) => {
        requests += batch.length;
        return rpc.batch(batch);
      },
    };
    const threads = createAnalysisThreads({ threads: 2, logger });
    try {
      // The first analysis starts the threads and runs in process meanwhile.
      const first = await inputOf(corpus[0]!);
      expect(await threads.analyze(counted, first)).toEqual(await analyzeOver(rpc, first));
      await ready(threads, 2);
      requests = 0;
      const inputs = await Promise.all(corpus.map(inputOf));
      const threaded = await Promise.all(inputs.map((i) => threads.analyze(counted, i)));
      expect(requests).toBeGreaterThan(0);
      for (const [k, input] of inputs.entries())
        expect(threaded[k], corpus[k]!.kind).toEqual(await analyzeOver(rpc, input));
      expect(threaded.some((a) => a.admin_functions.length > 0)).toBe(true);
    } finally {
      await threads.close();
    }
  });

  it('hand a failed request back to the analysis as the error it was', async () => {
    const down: RpcClient = {
      urls: ['http://127.0.0.1:9'],
      request: () => Promise.reject(new Error('connect ECONNREFUSED')),
      batch: () => Promise.reject(new Error('connect ECONNREFUSED')),
    };
    const threads = createAnalysisThreads({ threads: 1, logger });
    try {
      const input = await inputOf(corpus[0]!);
      await expect(threads.analyze(down, input)).rejects.toThrow('ECONNREFUSED');
      await ready(threads, 1);
      await expect(threads.analyze(down, input)).rejects.toThrow('ECONNREFUSED');
    } finally {
      await threads.close();
    }
  });

  it('fail the analyses in flight when the threads stop, so that their jobs are retried', async () => {
    let asked = 0;
    const never: RpcClient = {
      urls: rpc.urls,
      request: () => {
        asked++;
        return new Promise(() => {});
      },
      batch: () => {
        asked++;
        return new Promise(() => {});
      },
    };
    const threads = createAnalysisThreads({ threads: 1, logger });
    const input = await inputOf(corpus[0]!);
    void threads.analyze(rpc, input);
    await ready(threads, 1);
    const stuck = threads.analyze(never, input);
    for (let i = 0; i < 200 && asked === 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(asked).toBeGreaterThan(0);
    await threads.close();
    await expect(stuck).rejects.toThrow('analysis thread stopped');
    expect(threads.size).toBe(0);
  });
});
