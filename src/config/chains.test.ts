import { describe, expect, it } from 'vitest';
import {
  BUILT_IN_CHAINS,
  CANONICAL_MULTICALL3,
  chainFileEntrySchema,
  chainFromBuiltIn,
  chainFromFileEntry,
  KNOWN_LOCKERS,
} from './chains.ts';
import { parseConfig } from './env.ts';

const noFile = () => {
  throw new Error('ENOENT');
};

describe('DEX configuration of the chains', () => {
  it('gives every built-in chain a V2 and a V3 DEX, wrapped native, stablecoins and the canonical Multicall3', () => {
    for (const builtIn of BUILT_IN_CHAINS) {
      const chain = chainFromBuiltIn(builtIn, ['http://rpc']);
      expect(chain.multicall3).toBe(CANONICAL_MULTICALL3);
      expect(chain.dexes.map((d) => d.kind).sort()).toEqual(['v2', 'v3']);
      expect(chain.stablecoins.length).toBeGreaterThan(0);
      for (const a of [
        chain.wrappedNative,
        ...chain.stablecoins,
        ...chain.dexes.flatMap((d) => [d.factory, d.router ?? d.factory]),
      ]) {
        expect(a).toMatch(/^0x[0-9a-f]{40}$/);
      }
      expect(chain.lockers).toEqual(KNOWN_LOCKERS[chain.chainId] ?? []);
    }
    const names = Object.fromEntries(
      BUILT_IN_CHAINS.map((c) => [c.chainId, c.dexes.map((d) => d.name)]),
    );
    expect(names).toEqual({
      1: ['uniswap-v2', 'uniswap-v3'],
      56: ['pancakeswap-v2', 'pancakeswap-v3'],
      137: ['quickswap-v2', 'uniswap-v3'],
      42161: ['uniswap-v2', 'uniswap-v3'],
      8453: ['uniswap-v2', 'uniswap-v3'],
    });
  });

  it('takes multicall3 and lockers from CHAINS_FILE, defaulting to the canonical Multicall3', () => {
    const base = {
      chain_id: 31337,
      name: 'x',
      rpc_urls: ['http://127.0.0.1:8545'],
      wrapped_native: `0x${'1'.repeat(40)}`,
    };
    expect(chainFromFileEntry(chainFileEntrySchema.parse(base)).multicall3).toBe(
      CANONICAL_MULTICALL3,
    );
    const custom = chainFromFileEntry(
      chainFileEntrySchema.parse({
        ...base,
        multicall3: `0x${'AB'.repeat(20)}`,
        lockers: [{ name: 'my-locker', address: `0x${'CD'.repeat(20)}` }],
      }),
    );
    expect(custom.multicall3).toBe(`0x${'ab'.repeat(20)}`);
    expect(custom.lockers).toEqual([{ name: 'my-locker', address: `0x${'cd'.repeat(20)}` }]);
    expect(
      chainFileEntrySchema.safeParse({
        ...base,
        dexes: [
          {
            name: 'd',
            kind: 'v2',
            factory: `0x${'1'.repeat(40)}`,
            buy_url: 'https://no-placeholder',
          },
        ],
      }).success,
    ).toBe(false);
  });

  it('reads the aggregator and idle settings from the environment', () => {
    const result = parseConfig(
      { DEXSCREENER_URL: 'http://127.0.0.1:9999', DEX_IDLE_AFTER_MINUTES: '30' },
      noFile,
    );
    if (!result.ok) throw new Error(result.errors.join());
    expect(result.config.env).toMatchObject({
      DEXSCREENER_URL: 'http://127.0.0.1:9999',
      DEXSCREENER_RPM: 300,
      DEX_IDLE_AFTER_MINUTES: 30,
    });
    const bad = parseConfig({ DEXSCREENER_URL: 'not a url' }, noFile);
    expect(bad.ok ? [] : bad.errors).toEqual([expect.stringContaining('DEXSCREENER_URL')]);
  });
});
