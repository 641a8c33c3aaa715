import type { ChainConfig } from '../../config/chains.ts';

/**
 * The per-chain trust list (docs/risk-model.md): the wrapped native token and the major stablecoins of
 * the chain's configuration. They are never scored for mere capability (USDT can blacklist and
 * pause; that does not make it a scam), though their behaviour still counts.
 */
export function isTrusted(
  chain: Pick<ChainConfig, 'wrappedNative' | 'stablecoins'>,
  address: string,
): boolean {
  const a = address.toLowerCase();
  return (
    a === chain.wrappedNative.toLowerCase() || chain.stablecoins.some((s) => s.toLowerCase() === a)
  );
}
