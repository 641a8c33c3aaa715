import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import type { TokenRepository, TokenRow } from '../../db/repositories/tokens.ts';
import { HttpError, MESSAGES } from '../errors.ts';
import { addressParam, chainIdParam, integerParam, parseOr400 } from '../validation.ts';

/** General token API (DESIGN §4): list and detail, read from Postgres. */

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;
const MAX_PAGE = 1_000_000;

export interface TokensRouterDeps {
  tokens: TokenRepository;
  knownChainIds: ReadonlySet<number>;
  /** Authentication and plan gating slot in here (a later issue); the default lets everyone through. */
  guard?: RequestHandler;
}

const passThrough: RequestHandler = (_req, _res, next) => next();

export function toListItem(row: TokenRow) {
  return {
    contract_address: row.address,
    chain_id: row.chainId,
    name: row.name,
    symbol: row.symbol,
    current_risk_score: row.currentRiskScore,
    current_risk_level: row.currentRiskLevel,
    current_liquidity_usd: row.currentLiquidityUsd === null ? null : Number(row.currentLiquidityUsd),
    is_actively_traded: row.isActivelyTraded,
    detected_at: row.detectedAt.toISOString(),
  };
}

export function toDetail(row: TokenRow) {
  return {
    ...toListItem(row),
    decimals: row.decimals,
    total_supply: row.totalSupply,
    creator: row.creator,
    creator_is_contract: row.creatorIsContract,
    tx_origin: row.txOrigin,
    creation_tx_hash: row.creationTxHash,
    creation_block_number: row.creationBlockNumber,
    creation_block_hash: row.creationBlockHash,
    creation_timestamp: row.creationTimestamp?.toISOString() ?? null,
    creation_gas_used: row.creationGasUsed,
    detection_source: row.detectionSource,
    bytecode_hash: row.bytecodeHash,
    code_length: row.codeLength,
    proxy_like: row.proxyLike,
    analysis_stage: row.stage,
    updated_at: row.updatedAt.toISOString(),
  };
}

export function tokensRouter(deps: TokensRouterDeps): Router {
  const router = Router();
  const guard = deps.guard ?? passThrough;
  const chainId = chainIdParam(deps.knownChainIds);
  const listQuery = z.object({
    chain_id: chainId.optional(),
    page: integerParam(1, MAX_PAGE).default(1),
    limit: integerParam(1, MAX_LIMIT).default(DEFAULT_LIMIT),
  });
  const detailQuery = z.object({ chain_id: chainId.optional() });
  const detailParams = z.object({ address: addressParam });

  router.get('/tokens', guard, async (req, res) => {
    const query = parseOr400(listQuery, req.query);
    const { items, total } = await deps.tokens.list({ chainId: query.chain_id, page: query.page, limit: query.limit });
    res.json({ items: items.map(toListItem), total, page: query.page, limit: query.limit });
  });

  router.get('/tokens/:address', guard, async (req, res) => {
    const { address } = parseOr400(detailParams, req.params);
    const query = parseOr400(detailQuery, req.query);
    const row = await deps.tokens.get(query.chain_id, address);
    if (!row) throw new HttpError(404, MESSAGES.tokenNotFound);
    res.json(toDetail(row));
  });

  return router;
}
