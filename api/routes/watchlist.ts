import type { RequestHandler } from 'express';
import { z } from 'zod';
import type { AccountRepository } from '../../db/repositories/accounts.ts';
import type { TokenRepository } from '../../db/repositories/tokens.ts';
import { type Auth, principalOf } from '../access/index.ts';
import { HttpError, MESSAGES } from '../errors.ts';
import { type RouteSpec, route } from '../route.ts';
import { watchlistItem, watchlistRemoved, watchlistResponse } from '../schemas.ts';
import { toListItem } from '../token-view.ts';
import { addressParam, chainIdParam } from '../validation.ts';

/**
 * The caller's watchlist (docs/api.md, "Watchlist"), BASIC or PRO. Capacity is unlimited, as the
 * plans promise: each entry names an existing token, and additions are bounded by the rate limit.
 */

export interface WatchlistDeps {
  accounts: AccountRepository;
  tokens: TokenRepository;
  knownChainIds: ReadonlySet<number>;
  auth: Auth;
}

export function watchlistRoutes(deps: WatchlistDeps): RouteSpec[] {
  const guard = [deps.auth.authenticate(), deps.auth.requirePlan('watchlist')];
  const addBody = z.strictObject({
    address: addressParam,
    chain_id: z
      .number('must be a number')
      .int()
      .refine((id) => deps.knownChainIds.has(id), 'unknown chain_id'),
  });

  return [
    route({
      method: 'get',
      path: '/api/watchlist',
      tag: 'Watchlist',
      auth: 'bearer',
      guard,
      summary: 'The tokens the caller watches, newest first (BASIC or PRO)',
      responses: {
        200: { description: 'The watchlist', schema: watchlistResponse },
        403: { description: '`BASIC or PRO plan required`' },
      },
      async handler(_input, _req, res) {
        const rows = await deps.accounts.watchlist(principalOf(res).user.id);
        const items = rows.map(({ entry, token }) => ({
          contract_address: entry.address,
          chain_id: entry.chainId,
          added_at: entry.createdAt.toISOString(),
          token: token ? toListItem(token) : null,
        }));
        return { items, total: items.length };
      },
    }),

    route({
      method: 'post',
      path: '/api/watchlist',
      tag: 'Watchlist',
      auth: 'bearer',
      guard,
      body: addBody,
      summary: 'Watch a token (BASIC or PRO)',
      responses: {
        201: { description: 'Added', schema: watchlistItem },
        403: { description: '`BASIC or PRO plan required`' },
        404: { description: '`Token not found`' },
        409: { description: '`Token already in watchlist`' },
      },
      async handler({ body }, _req, res) {
        const { user } = principalOf(res);
        const token = await deps.tokens.get(body.chain_id, body.address);
        if (!token) throw new HttpError(404, MESSAGES.tokenNotFound);
        const { added, createdAt } = await deps.accounts.addToWatchlist(
          user.id,
          body.chain_id,
          body.address,
        );
        if (!added) throw new HttpError(409, MESSAGES.alreadyInWatchlist);
        return {
          contract_address: token.address,
          chain_id: token.chainId,
          added_at: createdAt.toISOString(),
          token: toListItem(token),
        };
      },
    }),

    removeRoute(deps, guard),
  ];
}

function removeRoute(deps: WatchlistDeps, guard: RequestHandler[]): RouteSpec {
  const removeParams = z.object({ address: addressParam });
  const removeQuery = z.object({
    chain_id: chainIdParam(deps.knownChainIds)
      .optional()
      .describe('without it: the address on every chain'),
  });
  return route({
    method: 'delete',
    path: '/api/watchlist/:address',
    tag: 'Watchlist',
    auth: 'bearer',
    guard,
    params: removeParams,
    query: removeQuery,
    summary: 'Stop watching a token (BASIC or PRO)',
    responses: {
      200: { description: 'Removed', schema: watchlistRemoved },
      403: { description: '`BASIC or PRO plan required`' },
      404: { description: '`Token not in watchlist`' },
    },
    async handler({ params, query }, _req, res) {
      const removed = await deps.accounts.removeFromWatchlist(
        principalOf(res).user.id,
        params.address,
        query.chain_id,
      );
      if (removed.length === 0) throw new HttpError(404, MESSAGES.notInWatchlist);
      return {
        message: 'Token removed from watchlist',
        contract_address: params.address,
        chain_ids: removed.map((r) => r.chainId).sort((a, b) => a - b),
      };
    },
  });
}
