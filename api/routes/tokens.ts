import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { assembleComplete } from '../../db/repositories/complete.ts';
import {
  EXACT_TOTAL_LIMIT,
  type ListCursor,
  TOKEN_SORT_FIELDS,
  type TokenListQuery,
  type TokenRepository,
  type TokenSortField,
} from '../../db/repositories/tokens.ts';
import type { createListCache } from '../../infra/token-cache.ts';
import { RISK_LEVELS } from '../../src/analysis/types.ts';
import { planAllows } from '../../src/plans.ts';
import { toDetail, toListItem, withoutRisk } from '../../src/tokens/complete.ts';
import type { Submitter } from '../../workers/submit.ts';
import { type Auth, principalOf } from '../access/index.ts';
import { HttpError, MESSAGES } from '../errors.ts';
import { type RouteSpec, route } from '../route.ts';
import { refreshResponse, tokenDetail, tokenList } from '../schemas.ts';
import { completeToken } from '../token-schemas.ts';
import { addressParam, chainIdParam, integerParam } from '../validation.ts';

/** General token API (docs/api.md, "General API"): list, detail and manual refresh. */

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
const MAX_PAGE = 1_000_000;
const MAX_Q_LENGTH = 64;
export const REFRESH_COOLDOWN_MS = 10_000;

const SORT_VALUES = TOKEN_SORT_FIELDS.flatMap((f) => [f, `-${f}`]) as [string, ...string[]];

const booleanParam = z
  .enum(['true', 'false'], 'must be true or false')
  .transform((v) => v === 'true');
const usdParam = z
  .string()
  .regex(/^\d{1,15}(\.\d{1,2})?$/, 'must be a non-negative decimal number')
  .transform(Number);
const timeParam = z
  .string()
  .regex(
    /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2}))?$/,
    'must be an ISO 8601 date or date-time with time zone',
  )
  .transform((v) => new Date(v))
  .refine((d) => !Number.isNaN(d.getTime()), 'must be a valid date');

/** `<detected_at to the microsecond>|<address>`, base64url: the position after which a page starts. */
const CURSOR_PATTERN =
  /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?([+-]\d{2}:\d{2}|Z))\|(0x[0-9a-f]{40})$/;
export const encodeCursor = (c: ListCursor) =>
  Buffer.from(`${c.detectedAt}|${c.address}`).toString('base64url');
const cursorParam = z
  .string()
  .max(200)
  .transform((value, ctx): ListCursor => {
    const match = CURSOR_PATTERN.exec(Buffer.from(value, 'base64url').toString('utf8'));
    if (!match) {
      ctx.addIssue({ code: 'custom', message: 'must be a cursor from X-Next-Cursor' });
      return z.NEVER;
    }
    return { detectedAt: match[1]!, address: match[4]! };
  });

/** The filters, order and pagination of the general list. */
export function tokenFilterSchema(knownChainIds: ReadonlySet<number>) {
  return z
    .object({
      chain_id: chainIdParam(knownChainIds).optional(),
      page: integerParam(1, MAX_PAGE).default(1).describe('from 1 (default 1)'),
      limit: integerParam(1, MAX_LIMIT)
        .default(DEFAULT_LIMIT)
        .describe(`1-${MAX_LIMIT} (default ${DEFAULT_LIMIT})`),
      risk_level: z.enum(RISK_LEVELS, `must be one of ${RISK_LEVELS.join(', ')}`).optional(),
      min_risk_score: integerParam(0, 100).optional(),
      max_risk_score: integerParam(0, 100).optional(),
      is_honeypot: booleanParam
        .optional()
        .describe('true: risk level honeypot; false: anything else, unscored included'),
      min_liquidity_usd: usdParam.optional(),
      has_liquidity: booleanParam
        .optional()
        .describe('true: some liquidity now; false: none measured'),
      is_actively_traded: booleanParam.optional().describe('traded within the last 24 hours'),
      created_after: timeParam
        .optional()
        .describe('creation time (or detection time when unknown) at or after'),
      created_before: timeParam
        .optional()
        .describe('creation time (or detection time when unknown) before'),
      q: z
        .string()
        .trim()
        .min(1, 'must not be empty')
        .max(MAX_Q_LENGTH, `must be at most ${MAX_Q_LENGTH} characters`)
        .optional()
        .describe('case-insensitive substring of name or symbol, or a prefix of the address'),
      sort: z
        .enum(SORT_VALUES, `must be one of ${SORT_VALUES.join(', ')}`)
        .optional()
        .describe('a field, descending with a leading "-" (default -detected_at); nulls last'),
      cursor: cursorParam
        .optional()
        .describe(
          'keyset pagination in the default order: the X-Next-Cursor header of the previous page; the page after it, as fast at any depth (page must be 1, sort absent or -detected_at)',
        ),
    })
    .refine(
      (q) =>
        q.min_risk_score === undefined ||
        q.max_risk_score === undefined ||
        q.min_risk_score <= q.max_risk_score,
      {
        message: 'must not exceed max_risk_score',
        path: ['min_risk_score'],
      },
    )
    .refine((q) => !q.created_after || !q.created_before || q.created_after < q.created_before, {
      message: 'must be before created_before',
      path: ['created_after'],
    })
    .refine((q) => !q.cursor || q.page === 1, {
      message: 'must be 1 with a cursor',
      path: ['page'],
    })
    .refine((q) => !q.cursor || q.sort === undefined || q.sort === '-detected_at', {
      message: 'must be -detected_at (or absent) with a cursor',
      path: ['sort'],
    });
}

export type TokenFilters = z.infer<ReturnType<typeof tokenFilterSchema>>;

export function usesRisk(filters: TokenFilters): boolean {
  return (
    filters.risk_level !== undefined ||
    filters.min_risk_score !== undefined ||
    filters.max_risk_score !== undefined ||
    filters.is_honeypot !== undefined ||
    (filters.sort ?? '').includes('risk')
  );
}

export function toListQuery(filters: TokenFilters): TokenListQuery {
  const sort = filters.sort ?? '-detected_at';
  return {
    chainId: filters.chain_id,
    page: filters.page,
    limit: filters.limit,
    riskLevel: filters.risk_level,
    minRiskScore: filters.min_risk_score,
    maxRiskScore: filters.max_risk_score,
    isHoneypot: filters.is_honeypot,
    minLiquidityUsd: filters.min_liquidity_usd,
    hasLiquidity: filters.has_liquidity,
    isActivelyTraded: filters.is_actively_traded,
    createdAfter: filters.created_after,
    createdBefore: filters.created_before,
    q: filters.q,
    after: filters.cursor,
    sort: {
      field: sort.replace(/^-/, '') as TokenSortField,
      direction: sort.startsWith('-') ? 'desc' : 'asc',
    },
  };
}

export interface TokensRouterDeps {
  tokens: TokenRepository;
  knownChainIds: ReadonlySet<number>;
  auth: Auth;
  submit: Submitter;
  redis: Redis;
  redisPrefix: string;
  listCache: ReturnType<typeof createListCache>;
}

export function tokensRoutes(deps: TokensRouterDeps): RouteSpec[] {
  const guard: RequestHandler[] = [deps.auth.authenticate()];
  return [listRoute(deps, guard), detailRoute(deps, guard), refreshRoute(deps, guard)];
}

/**
 * One page of the general list as cached: the next page's cursor (empty when this page is not
 * full), a newline, the JSON body. The cursor goes out in a header, so the body keeps its shape.
 */
async function listPage(deps: TokensRouterDeps, filters: TokenFilters, showRisk: boolean) {
  const cacheKey = `general:${showRisk}:${JSON.stringify(filters)}`;
  const cached = await deps.listCache.get(cacheKey);
  if (cached.body === undefined) {
    const { items, total } = await deps.tokens.listItems(toListQuery(filters));
    const mapped = items.map((row) => (showRisk ? toListItem(row) : withoutRisk(toListItem(row))));
    const last = items.at(-1);
    const next =
      last && items.length === filters.limit
        ? encodeCursor({ detectedAt: last.cursorAt, address: last.address })
        : '';
    const body = JSON.stringify({ items: mapped, total, page: filters.page, limit: filters.limit });
    cached.body = `${next}\n${body}`;
    deps.listCache.set(cacheKey, cached.version, cached.body);
  }
  const cut = cached.body.indexOf('\n');
  return { next: cached.body.slice(0, cut), body: cached.body.slice(cut + 1) };
}

function listRoute(deps: TokensRouterDeps, guard: RequestHandler[]): RouteSpec {
  return route({
    method: 'get',
    path: '/api/tokens',
    tag: 'Tokens',
    auth: 'bearer',
    guard,
    query: tokenFilterSchema(deps.knownChainIds),
    summary: 'Tokens, newest first, with filters (risk fields and filters: BASIC or PRO)',
    description: `\`total\`: exact when at most ${EXACT_TOTAL_LIMIT} tokens match; above that, the planner's estimate (always more than ${EXACT_TOTAL_LIMIT}). A full page in the default order carries the header \`X-Next-Cursor\`: pass it as \`cursor\` for the next page (keyset pagination, as fast at any depth as the first page).`,
    responses: {
      200: { description: 'A page of tokens', schema: tokenList },
      403: { description: '`BASIC or PRO plan required` (FREE using a risk filter or sort)' },
    },
    async handler({ query: filters }, _req, res) {
      const showRisk = planAllows(principalOf(res).plan, 'risk');
      if (!showRisk && usesRisk(filters)) throw new HttpError(403, MESSAGES.basicRequired);
      const { next, body } = await listPage(deps, filters, showRisk);
      const defaultOrder = filters.sort === undefined || filters.sort === '-detected_at';
      if (next && defaultOrder) res.set('X-Next-Cursor', next);
      res.type('application/json').send(body);
      return undefined;
    },
  });
}

function detailRoute(deps: TokensRouterDeps, guard: RequestHandler[]): RouteSpec {
  const detailQuery = z.object({
    chain_id: chainIdParam(deps.knownChainIds)
      .optional()
      .describe('without it: the most recently detected token with this address'),
    view: z
      .enum(['general', 'complete'], 'must be general or complete')
      .optional()
      .describe(
        'complete (BASIC and PRO): the complete token object, history for PRO only; FREE always gets the general view',
      ),
  });
  return route({
    method: 'get',
    path: '/api/tokens/:address',
    tag: 'Tokens',
    auth: 'bearer',
    guard,
    params: z.object({ address: addressParam }),
    query: detailQuery,
    summary: 'General detail view of a token (risk fields: BASIC or PRO)',
    responses: {
      200: {
        description: 'The token; with view=complete (BASIC, PRO) the complete token object',
        schema: z.union([tokenDetail, completeToken, completeToken.omit({ token_history: true })]),
      },
      404: { description: '`Token not found`' },
    },
    async handler({ params, query }, _req, res) {
      const row = await deps.tokens.get(query.chain_id, params.address);
      if (!row) throw new HttpError(404, MESSAGES.tokenNotFound);
      const plan = principalOf(res).plan;
      if (!planAllows(plan, 'risk')) return withoutRisk(toDetail(row, 'none'));
      if (query.view !== 'complete')
        return toDetail(row, planAllows(plan, 'pro_api') ? 'all' : 'summary');
      // view=complete (the web app's token page): BASIC and PRO see the analysis behind the
      // score (flags, evidence, simulation, DEX state); the history snapshots are PRO's (the
      // plans table), so BASIC gets the object without them.
      const [record] = await assembleComplete(deps.tokens, [
        { chainId: row.chainId, address: row.address },
      ]);
      if (!record) throw new HttpError(404, MESSAGES.tokenNotFound);
      const { token_history: _history, ...withoutHistory } = record.token;
      return planAllows(plan, 'pro_api') ? record.token : withoutHistory;
    },
  });
}

/** Manual refresh: the token (or an unknown contract) runs through the pipeline again. */
function refreshRoute(deps: TokensRouterDeps, guard: RequestHandler[]): RouteSpec {
  const refreshQuery = z.object({ chain_id: chainIdParam(deps.knownChainIds) });
  const addressParams = z.object({ address: addressParam });
  return route({
    method: 'post',
    path: '/api/tokens/:address/refresh',
    tag: 'Tokens',
    auth: 'bearer',
    params: addressParams,
    query: refreshQuery,
    guard: [...guard, deps.auth.requirePlan('risk')],
    summary:
      'Run a token through the pipeline now (BASIC or PRO); an unknown contract is probed and, if a token, recorded',
    description:
      'One refresh per token every 10 s, whoever asks. A known token restarts at the bytecode stage; an unknown address with code that answers the ERC-20 probe is recorded (detection_source "submitted", creation data null) and runs through every stage.',
    responses: {
      202: { description: 'Queued', schema: refreshResponse },
      403: { description: '`BASIC or PRO plan required`' },
      404: { description: '`Token not found`: no code, or the code is no token' },
      429: { description: '`Refresh cooldown active` (with Retry-After), or the rate limit' },
    },
    async handler({ params, query }) {
      const { address } = params;
      const { chain_id } = query;
      // The cooldown is taken before any RPC work, so repeated refreshes cannot hammer the node.
      const cooldownKey = `${deps.redisPrefix}:refresh:${chain_id}:${address}`;
      const taken = await deps.redis.set(cooldownKey, '1', 'PX', REFRESH_COOLDOWN_MS, 'NX');
      if (taken !== 'OK') {
        const ttl = await deps.redis.pttl(cooldownKey);
        throw new HttpError(429, MESSAGES.refreshCooldown, {
          'Retry-After': String(
            Math.max(1, Math.ceil((ttl > 0 ? ttl : REFRESH_COOLDOWN_MS) / 1000)),
          ),
        });
      }
      const result = await deps.submit(chain_id, address);
      if (result.status === 'not-found') throw new HttpError(404, MESSAGES.tokenNotFound);
      return { status: 'queued' };
    },
  });
}
