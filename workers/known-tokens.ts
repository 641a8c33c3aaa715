import { id } from 'ethers';
import type { ChainConfig } from '../src/config/chains.ts';
import { readText } from '../src/evm/erc20.ts';
import type { RpcClient } from '../src/evm/rpc.ts';
import type { KnownToken } from '../src/tokens/lookalike.ts';

/**
 * The well-known tokens of a chain for the look-alike check: the configured list (CHAINS_FILE
 * `known_tokens`, else the built-in one), plus the wrapped native token and the stablecoins the
 * list does not name, their symbol and name read on chain once per process (one JSON-RPC batch).
 * A failed read is retried on the next call; what could not be read is left out.
 */

const NAME = id('name()').slice(0, 10);
const SYMBOL = id('symbol()').slice(0, 10);

export function createKnownTokens() {
  const cache = new Map<number, Promise<KnownToken[]>>();

  async function resolve(config: ChainConfig, rpc: RpcClient): Promise<KnownToken[]> {
    const listed = config.knownTokens ?? [];
    const named = new Set(listed.map((k) => k.address));
    const unnamed = [config.wrappedNative, ...config.stablecoins].filter((a) => !named.has(a));
    if (unnamed.length === 0) return [...listed];
    const answers = await rpc.batch<string>(
      unnamed.flatMap((to) => [
        { method: 'eth_call', params: [{ to, data: SYMBOL }, 'latest'] },
        { method: 'eth_call', params: [{ to, data: NAME }, 'latest'] },
      ]),
    );
    const read = unnamed.flatMap((address, i) => {
      const symbol = answers[2 * i];
      const name = answers[2 * i + 1];
      const s = symbol?.ok ? readText(symbol.result) : null;
      const n = name?.ok ? readText(name.result) : null;
      return s ? [{ symbol: s, name: n ?? s, address }] : [];
    });
    return [...listed, ...read];
  }

  return function knownTokens(config: ChainConfig, rpc: RpcClient): Promise<KnownToken[]> {
    let entry = cache.get(config.chainId);
    if (!entry) {
      entry = resolve(config, rpc).catch((error: unknown) => {
        cache.delete(config.chainId);
        throw error;
      });
      cache.set(config.chainId, entry);
    }
    return entry;
  };
}

export type KnownTokens = ReturnType<typeof createKnownTokens>;
