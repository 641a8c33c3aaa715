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
  it('gives every built-in chain a V2, a V3 and a V4 DEX, wrapped native, stablecoins and the canonical Multicall3', () => {
    for (const builtIn of BUILT_IN_CHAINS) {
      const chain = chainFromBuiltIn(builtIn, ['http://rpc']);
      expect(chain.multicall3).toBe(CANONICAL_MULTICALL3);
      expect(chain.dexes.map((d) => d.kind).sort()).toEqual(['v2', 'v3', 'v4']);
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
      1: ['uniswap-v2', 'uniswap-v3', 'uniswap-v4'],
      56: ['pancakeswap-v2', 'pancakeswap-v3', 'uniswap-v4'],
      137: ['quickswap-v2', 'uniswap-v3', 'uniswap-v4'],
      42161: ['uniswap-v2', 'uniswap-v3', 'uniswap-v4'],
      8453: ['uniswap-v2', 'uniswap-v3', 'uniswap-v4'],
    });
    // Uniswap's published PoolManagers (docs.uniswap.org/contracts/v4/deployments).
    const managers = Object.fromEntries(
      BUILT_IN_CHAINS.map((c) => [c.chainId, c.dexes.find((d) => d.kind === 'v4')?.factory]),
    );
    expect(managers).toEqual({
      1: '0x000000000004444c5dc75cb358380d2e3de08a90',
      56: '0x28e2ea090877bf75740558f6bfb36a5ffee9e9df',
      137: '0x67366782805870060151383f4bbff9dab53e5cd6',
      42161: '0x360e68faccca8ca495c1b759fd9eee466db9fb32',
      8453: '0x498581ff718922c3f8e6a244956af099b2652b2b',
    });
  });

  it('reads a V4 DEX from CHAINS_FILE: its pool_manager, and an optional buy_url', () => {
    const base = {
      chain_id: 31337,
      name: 'x',
      rpc_urls: ['http://127.0.0.1:8545'],
      wrapped_native: `0x${'1'.repeat(40)}`,
    };
    const manager = `0x${'Ab'.repeat(20)}`;
    const chain = chainFromFileEntry(
      chainFileEntrySchema.parse({
        ...base,
        dexes: [
          { name: 'v4', kind: 'v4', pool_manager: manager, buy_url: 'https://x.example/{token}' },
        ],
      }),
    );
    expect(chain.dexes).toEqual([
      {
        name: 'v4',
        kind: 'v4',
        factory: manager.toLowerCase(),
        buy_url: 'https://x.example/{token}',
      },
    ]);
    // A V4 DEX without its pool manager, or with a malformed one, is refused.
    for (const dex of [
      { name: 'v4', kind: 'v4' },
      { name: 'v4', kind: 'v4', pool_manager: '0x1234' },
      { name: 'v4', kind: 'v4', factory: manager },
    ])
      expect(chainFileEntrySchema.safeParse({ ...base, dexes: [dex] }).success).toBe(false);
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
