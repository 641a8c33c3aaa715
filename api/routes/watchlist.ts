import { Router } from 'express';
import { z } from 'zod';
import type { AccountRepository } from '../../db/repositories/accounts.ts';
import type { TokenRepository } from '../../db/repositories/tokens.ts';
import { principalOf, type Auth } from '../auth.ts';
import { HttpError, MESSAGES } from '../errors.ts';
import type { Registry } from '../openapi.ts';
import { watchlistItem, watchlistRemoved, watchlistResponse } from '../schemas.ts';
import { toListItem } from '../token-view.ts';
import { addressParam, chainIdParam, parseOr400 } from '../validation.ts';

/** The caller's watchlist (docs/api.md), BASIC or PRO. */

export const MAX_WATCHLIST = 500;

export function watchlistRouter(deps: { accounts: AccountRepository; tokens: TokenRepository; knownChainIds: ReadonlySet<number>; auth: Auth; registry: Registry }): Router {
  const router = Router();
  const guard = [deps.auth.authenticate(), deps.auth.requirePlan('watchlist')];
  const chainId = chainIdParam(deps.knownChainIds);
  const addBody = z.strictObject({
    address: addressParam,
    chain_id: z.number('must be a number').int().refine((id) => deps.knownChainIds.has(id), 'unknown chain_id'),
  });
  const removeParams = z.object({ address: addressParam });
  const removeQuery = z.object({ chain_id: chainId.optional().describe('without it: the address on every chain') });

  deps.registry.add({
    method: 'get', path: '/api/watchlist', tag: 'Watchlist', auth: 'bearer', summary: 'The tokens the caller watches, newest first (BASIC or PRO)',
    responses: { 200: { description: 'The watchlist', schema: watchlistResponse }, 403: { description: '`BASIC or PRO plan required`' } },
  });
  router.get('/watchlist', ...guard, async (_req, res) => {
    const rows = await deps.accounts.watchlist(principalOf(res).user.id);
    const items = rows.map(({ entry, token }) => ({
      contract_address: entry.address,
      chain_id: entry.chainId,
      added_at: entry.createdAt.toISOString(),
      token: token ? toListItem(token) : null,
    }));
    res.json({ items, total: items.length });
  });

  deps.registry.add({
    method: 'post', path: '/api/watchlist', tag: 'Watchlist', auth: 'bearer', body: addBody, summary: 'Watch a token (BASIC or PRO)',
    responses: {
      201: { description: 'Added', schema: watchlistItem },
      403: { description: '`BASIC or PRO plan required`' },
      404: { description: '`Token not found`' },
      409: { description: '`Token already in watchlist`' },
    },
  });
  router.post('/watchlist', ...guard, async (req, res) => {
    const body = parseOr400(addBody, req.body);
    const { user } = principalOf(res);
    const token = await deps.tokens.get(body.chain_id, body.address);
    if (!token) throw new HttpError(404, MESSAGES.tokenNotFound);
    if ((await deps.accounts.watchlistCount(user.id)) >= MAX_WATCHLIST) throw new HttpError(400, `watchlist: at most ${MAX_WATCHLIST} tokens`);
    const { added, createdAt } = await deps.accounts.addToWatchlist(user.id, body.chain_id, body.address);
    if (!added) throw new HttpError(409, MESSAGES.alreadyInWatchlist);
    res.status(201).json({ contract_address: token.address, chain_id: token.chainId, added_at: createdAt.toISOString(), token: toListItem(token) });
  });

  deps.registry.add({
    method: 'delete', path: '/api/watchlist/:address', tag: 'Watchlist', auth: 'bearer', params: removeParams, query: removeQuery,
    summary: 'Stop watching a token (BASIC or PRO)',
    responses: { 200: { description: 'Removed', schema: watchlistRemoved }, 403: { description: '`BASIC or PRO plan required`' }, 404: { description: '`Token not in watchlist`' } },
  });
  router.delete('/watchlist/:address', ...guard, async (req, res) => {
    const { address } = parseOr400(removeParams, req.params);
    const { chain_id } = parseOr400(removeQuery, req.query);
    const removed = await deps.accounts.removeFromWatchlist(principalOf(res).user.id, address, chain_id);
    if (removed.length === 0) throw new HttpError(404, MESSAGES.notInWatchlist);
    res.json({ message: 'Token removed from watchlist', contract_address: address, chain_ids: removed.map((r) => r.chainId).sort((a, b) => a - b) });
  });

  return router;
}
