import { z } from 'zod';
import { CREATOR_SORT_FIELDS, type CreatorRepository } from '../../db/repositories/creators.ts';
import type { CreatorRow } from '../../db/repositories/tokens.ts';
import { rates } from '../../src/analysis/risk/index.ts';
import type { Auth } from '../access/index.ts';
import { HttpError, MESSAGES } from '../errors.ts';
import { type RouteSpec, route } from '../route.ts';
import { creatorDetail, creatorList } from '../schemas.ts';
import { toListItem } from '../token-view.ts';
import { addressParam, chainIdParam, integerParam } from '../validation.ts';

/** Creators and their reputation (docs/api.md, "Creators"), BASIC or PRO. */

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;
const MAX_PAGE = 1_000_000;
/** Tokens listed on a creator's detail, newest first. */
export const CREATOR_TOKENS_LIMIT = 100;

export function toCreator(row: CreatorRow) {
  return {
    address: row.address,
    chain_id: row.chainId,
    total_tokens: row.totalTokens,
    ...rates({
      total_tokens: row.totalTokens,
      success_count: row.successCount,
      scam_count: row.scamCount,
    }),
    reputation_score: row.reputationScore,
    first_seen: row.firstSeen.toISOString(),
    last_seen: row.lastSeen.toISOString(),
  };
}

export function creatorsRoutes(deps: {
  creators: CreatorRepository;
  knownChainIds: ReadonlySet<number>;
  auth: Auth;
}): RouteSpec[] {
  const guard = [deps.auth.authenticate(), deps.auth.requirePlan('creators')];
  const chainId = chainIdParam(deps.knownChainIds);
  const listQuery = z.object({
    chain_id: chainId.optional(),
    page: integerParam(1, MAX_PAGE).default(1).describe('from 1 (default 1)'),
    limit: integerParam(1, MAX_LIMIT)
      .default(DEFAULT_LIMIT)
      .describe(`1-${MAX_LIMIT} (default ${DEFAULT_LIMIT})`),
    sort: z
      .enum(CREATOR_SORT_FIELDS, `must be one of ${CREATOR_SORT_FIELDS.join(', ')}`)
      .default('last_seen')
      .describe('descending (default last_seen)'),
  });
  const detailParams = z.object({ address: addressParam });
  const detailQuery = z.object({
    chain_id: chainId
      .optional()
      .describe("without it: the chain of the creator's most recent activity"),
  });

  return [
    route({
      method: 'get',
      path: '/api/creators',
      tag: 'Creators',
      auth: 'bearer',
      guard,
      query: listQuery,
      summary: 'Token creators and their reputation (BASIC or PRO)',
      responses: {
        200: { description: 'A page of creators', schema: creatorList },
        403: { description: '`BASIC or PRO plan required`' },
      },
      async handler({ query }) {
        const { items, total } = await deps.creators.list({
          chainId: query.chain_id,
          page: query.page,
          limit: query.limit,
          sort: query.sort,
        });
        return { items: items.map(toCreator), total, page: query.page, limit: query.limit };
      },
    }),

    route({
      method: 'get',
      path: '/api/creators/:address',
      tag: 'Creators',
      auth: 'bearer',
      guard,
      params: detailParams,
      query: detailQuery,
      summary: 'One creator with its tokens, newest first (BASIC or PRO)',
      responses: {
        200: { description: 'The creator', schema: creatorDetail },
        403: { description: '`BASIC or PRO plan required`' },
        404: { description: '`Creator not found`' },
      },
      async handler({ params, query }) {
        const [row] = await deps.creators.byAddress(params.address, query.chain_id);
        if (!row) throw new HttpError(404, MESSAGES.creatorNotFound);
        const tokens = await deps.creators.tokensOf(row.chainId, row.address, CREATOR_TOKENS_LIMIT);
        return { ...toCreator(row), tokens: tokens.map(toListItem) };
      },
    }),
  ];
}
