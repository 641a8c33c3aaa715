import { describe, expect, it } from 'vitest';
import { passFor } from '../src/run-key.ts';
import { jobCatalog } from './jobs.ts';
import { pipeline } from './pipeline.ts';

const token = { chainId: 31337, address: `0x${'ab'.repeat(20)}` };
const pass = (kind: 'detected' | 'first-liquidity') => ({ ...token, ...passFor({ kind }) });
const block = {
  chainId: 31337,
  blockNumber: 42,
  blockHash: `0x${'cd'.repeat(32)}`,
  source: 'live' as const,
};

describe('the pipeline map', () => {
  it('sends new tokens to bytecode (initial) and tokens with a new pool to dex (p<block>)', () => {
    const next = pipeline.detect.next(block, {
      tokens: [token.address],
      pooledTokens: [`0x${'ef'.repeat(20)}`],
    });
    expect(next).toEqual([
      { queue: 'bytecode', data: { ...token, reason: 'pipeline', run: 'initial' } },
      {
        queue: 'dex',
        data: {
          chainId: 31337,
          address: `0x${'ef'.repeat(20)}`,
          reason: 'liquidity',
          run: 'p42',
          atBlock: 42,
        },
      },
    ]);
  });

  it('carries a pass through bytecode → selectors → simulate → risk with its key and reason', () => {
    const manual = { ...token, ...passFor({ kind: 'reanalysis', atMs: 1 }) };
    expect(pipeline.bytecode.next(manual, {})).toEqual([{ queue: 'selectors', data: manual }]);
    expect(pipeline.selectors.next(manual, { hasCode: true })).toEqual([
      { queue: 'simulate', data: manual },
    ]);
    expect(pipeline.selectors.next(manual, { hasCode: false })).toEqual([]);
    expect(pipeline.simulate.next(manual, {})).toEqual([{ queue: 'risk', data: manual }]);
  });

  it('breaks the loop: only pipeline and manual passes continue from risk to dex', () => {
    expect(pipeline.risk.next(pass('detected'), {})).toEqual([
      { queue: 'dex', data: pass('detected') },
    ]);
    expect(
      pipeline.risk.next({ ...token, ...passFor({ kind: 'reanalysis', atMs: 5 }) }, {}),
    ).toHaveLength(1);
    expect(pipeline.risk.next(pass('first-liquidity'), {})).toEqual([]);
    expect(
      pipeline.risk.next(
        { ...token, ...passFor({ kind: 'scheduled-refresh', bucketMs: 60_000 }) },
        {},
      ),
    ).toEqual([]);
  });

  it('re-simulates on first liquidity only', () => {
    const refresh = { ...token, ...passFor({ kind: 'scheduled-refresh', bucketMs: 60_000 }) };
    expect(pipeline.dex.next(refresh, { firstLiquidity: true })).toEqual([
      { queue: 'simulate', data: pass('first-liquidity') },
    ]);
    expect(pipeline.dex.next(refresh, { firstLiquidity: false })).toEqual([]);
  });

  it('declares every job it routes, and every routed job passes the catalog’s schema', () => {
    const outcomes = {
      detect: { tokens: [token.address], pooledTokens: [token.address] },
      replay: { pools: [{ blockNumber: 7, pooledTokens: [token.address] }] },
      bytecode: {},
      selectors: { hasCode: true },
      simulate: {},
      risk: {},
      dex: { firstLiquidity: true },
      accounts: {},
    };
    const inputs = {
      detect: block,
      replay: { chainId: block.chainId, fromBlock: 0, toBlock: 9, source: 'replay' as const },
      accounts: { task: 'maintenance' as const },
    };
    for (const [stage, entry] of Object.entries(pipeline)) {
      const data = (inputs as Record<string, unknown>)[stage] ?? pass('detected');
      const next = (
        entry.next as (
          d: unknown,
          o: unknown,
        ) => { queue: keyof typeof jobCatalog; data: unknown }[]
      )(data, (outcomes as Record<string, unknown>)[stage]);
      for (const job of next) {
        expect(entry.mayEnqueue).toContain(job.queue);
        expect(jobCatalog[job.queue].schema.safeParse(job.data).success).toBe(true);
      }
    }
  });
});
