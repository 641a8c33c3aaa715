import { Router } from 'express';
import { z } from 'zod';
import { CREATOR_SORT_FIELDS, type CreatorRepository } from '../../db/repositories/creators.ts';
import type { CreatorRow } from '../../db/repositories/tokens.ts';
import type { Auth } from '../auth.ts';
import { HttpError, MESSAGES } from '../errors.ts';
import type { Registry } from '../openapi.ts';
import { creatorDetail, creatorList } from '../schemas.ts';
import { toListItem } from '../token-view.ts';
import { addressParam, chainIdParam, integerParam, parseOr400 } from '../validation.ts';

/** Creators and their reputation (docs/api.md), BASIC or PRO. */

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;
const MAX_PAGE = 1_000_000;
/** Tokens listed on a creator's detail, newest first. */
export const CREATOR_TOKENS_LIMIT = 100;

const rate = (part: number, total: number) => (total === 0 ? null : Math.round((part / total) * 10_000) / 10_000);

export function toCreator(row: CreatorRow) {
  return {
    address: row.address,
    chain_id: row.chainId,
    total_tokens: row.totalTokens,
    success_rate: rate(row.successCount, row.totalTokens),
    scam_rate: rate(row.scamCount, row.totalTokens),
    reputation_score: row.reputationScore,
    first_seen: row.firstSeen.toISOString(),
    last_seen: row.lastSeen.toISOString(),
  };
}

export function creatorsRouter(deps: { creators: CreatorRepository; knownChainIds: ReadonlySet<number>; auth: Auth; registry: Registry }): Router {
  const router = Router();
  const guard = [deps.auth.authenticate(), deps.auth.requirePlan('creators')];
  const chainId = chainIdParam(deps.knownChainIds);
  const listQuery = z.object({
    chain_id: chainId.optional(),
    page: integerParam(1, MAX_PAGE).default(1).describe('from 1 (default 1)'),
    limit: integerParam(1, MAX_LIMIT).default(DEFAULT_LIMIT).describe(`1-${MAX_LIMIT} (default ${DEFAULT_LIMIT})`),
    sort: z.enum(CREATOR_SORT_FIELDS, `must be one of ${CREATOR_SORT_FIELDS.join(', ')}`).default('last_seen').describe('descending (default last_seen)'),
  });
  const detailParams = z.object({ address: addressParam });
  const detailQuery = z.object({ chain_id: chainId.optional().describe('without it: the chain of the creator\'s most recent activity') });

  deps.registry.add({
    method: 'get', path: '/api/creators', tag: 'Creators', auth: 'bearer', query: listQuery, summary: 'Token creators and their reputation (BASIC or PRO)',
    responses: { 200: { description: 'A page of creators', schema: creatorList }, 403: { description: '`BASIC or PRO plan required`' } },
  });
  router.get('/creators', ...guard, async (req, res) => {
    const query = parseOr400(listQuery, req.query);
    const { items, total } = await deps.creators.list({ chainId: query.chain_id, page: query.page, limit: query.limit, sort: query.sort });
    res.json({ items: items.map(toCreator), total, page: query.page, limit: query.limit });
  });

  deps.registry.add({
    method: 'get', path: '/api/creators/:address', tag: 'Creators', auth: 'bearer', params: detailParams, query: detailQuery,
    summary: 'One creator with its tokens, newest first (BASIC or PRO)',
    responses: { 200: { description: 'The creator', schema: creatorDetail }, 403: { description: '`BASIC or PRO plan required`' }, 404: { description: '`Creator not found`' } },
  });
  router.get('/creators/:address', ...guard, async (req, res) => {
    const { address } = parseOr400(detailParams, req.params);
    const query = parseOr400(detailQuery, req.query);
    const [row] = await deps.creators.byAddress(address, query.chain_id);
    if (!row) throw new HttpError(404, MESSAGES.creatorNotFound);
    const tokens = await deps.creators.tokensOf(row.chainId, row.address, CREATOR_TOKENS_LIMIT);
    res.json({ ...toCreator(row), tokens: tokens.map(toListItem) });
  });

  return router;
}
