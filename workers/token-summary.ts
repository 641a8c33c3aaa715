import type { TokenSummary } from '../src/events/types.ts';
import type { TokenRow } from '../db/repositories/tokens.ts';

/** The token fields every event carries (`token.created`, `token.updated`), from its stored row. */
export function toSummary(row: TokenRow): TokenSummary {
  return {
    contract_address: row.address,
    chain_id: row.chainId,
    name: row.name,
    symbol: row.symbol,
    decimals: row.decimals,
    total_supply: row.totalSupply,
    creator: row.creator,
    creation_tx_hash: row.creationTxHash,
    creation_block_number: row.creationBlockNumber,
    detection_source: row.detectionSource,
    detected_at: row.detectedAt.toISOString(),
  };
}
