import type { AlertData } from '../../src/events/types.ts';
import type { StoredToken } from '../../src/tokens/view.ts';

/** Event payloads for tests, built as the workers build them (src/events/types.ts). */

/** A token row as just detected: every later stage's column still null. */
export function storedToken(
  address: string,
  chainId = 1,
): StoredToken & {
  marketCapUsd: string | null;
  volume24hUsd: string | null;
  detectionSource: string;
  detectedAt: Date;
} {
  return {
    chainId,
    address,
    name: 'T',
    symbol: 'T',
    decimals: 18,
    totalSupply: '1000',
    creationTxHash: null,
    creator: null,
    creatorIsContract: null,
    creationBlockNumber: 1,
    creationTimestamp: null,
    creationGasUsed: null,
    bytecodeHash: null,
    codeLength: null,
    proxyLike: null,
    skeletonHash: null,
    template: null,
    currentRiskScore: null,
    currentRiskLevel: null,
    isHoneypot: null,
    ownerAddress: null,
    tradingSimulation: null,
    securityHints: null,
    currentLiquidityUsd: null,
    isActivelyTraded: false,
    priceUsd: null,
    dexHints: null,
    liquidityLock: null,
    refreshTier: null,
    dexUpdatedAt: null,
    riskUpdatedAt: null,
    updatedAt: new Date(),
    holders: null,
    marketCapUsd: null,
    volume24hUsd: null,
    detectionSource: 'receipt',
    detectedAt: new Date(),
  };
}

export function alertData(
  address: string,
  type: string,
  message: string,
  extra: Partial<AlertData> = {},
  chainId = 1,
): AlertData {
  return {
    contract_address: address,
    chain_id: chainId,
    type,
    message,
    alert_key: null,
    bucket_at: null,
    details: {},
    ...extra,
  };
}
