import type { RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { type TokenKey, type TokenRepository, tokenKey } from '../../db/repositories/tokens.ts';
import type { createListCache, TokenCache } from '../../infra/token-cache.ts';
import { dataQualityScore } from '../../src/tokens/quality.ts';
import { tokenSummary } from '../../src/tokens/view.ts';
import type { Auth } from '../access/index.ts';
import { HttpError, MESSAGES } from '../errors.ts';
import { type RouteSpec, route } from '../route.ts';
import { bulkResponse, completeToken, proTokenList } from '../schemas.ts';
import {
  assembleComplete,
  COMPLETE_FIELDS,
  type CompleteRecord,
  DETAIL_HISTORY_LIMIT,
  type IncludeOptions,
  shapeComplete,
} from '../token-view.ts';
import { addressParam, chainIdParam, integerParam } from '../validation.ts';
import { exportRoute } from './pro-export.ts';
import { includeFlag, proFilterShape, toProListQuery } from './pro-filters.ts';

/**
 * The PRO operations (docs/api.md, "PRO token data"; header X-API-Key): the complete token object,
 * the filtered list with offset pagination and field selection, bulk lookup, and the export.
 * Complete objects of hot tokens come from a Redis cache invalidated by version
 * (infra/token-cache.ts).
 */

export { DETAIL_HISTORY_LIMIT };
export const BULK_HISTORY_LIMIT = 50;
/** Snapshots per token in the list with include_history=true: as in bulk. */
export const LIST_HISTORY_LIMIT = 50;
export const MAX_BULK = 50;
export const DEFAULT_DETAIL_CHAIN_ID = 56;
export const PRO_LIST_DEFAULT_LIMIT = 50;
export const PRO_LIST_MAX_LIMIT = 100;
const MAX_OFFSET = 10_000_000;
const ALWAYS_LISTED = ['contract_address', 'chain_id'] as const;

export interface ProRouterDeps {
  tokens: TokenRepository;
  knownChainIds: ReadonlySet<number>;
  auth: Auth;
  cache: TokenCache<CompleteRecord>;
  listCache: ReturnType<typeof createListCache>;
  logger: Logger;
}

export interface ProContext {
  deps: ProRouterDeps;
  guard: RequestHandler[];
  chainId: ReturnType<typeof chainIdParam>;
  loadComplete: ReturnType<typeof createCompleteLoader>;
}

/**
 * Complete records from the cache, the misses from Postgres. The cache write of the misses is not
 * waited for (the records are already held in this process); a failed write is logged.
 */
function createCompleteLoader(
  tokens: TokenRepository,
  cache: TokenCache<CompleteRecord>,
  logger: Logger,
) {
  return async function loadComplete(keys: TokenKey[]) {
    const { hits, versions } = await cache.get(keys);
    const misses = keys.filter((k) => !hits.has(tokenKey(k)));
    const found = new Map(hits);
    if (misses.length > 0) {
      const fresh = (await assembleComplete(tokens, misses)).map((value) => {
        const key = { chainId: value.token.chain_id, address: value.token.contract_address };
        found.set(tokenKey(key), value);
        return { key, version: versions.get(tokenKey(key)) ?? '0', value };
      });
      cache
        .set(fresh)
        .catch((error: unknown) =>
          logger.warn({ err: error, tokens: fresh.length }, 'token cache write failed'),
        );
    }
    return { found, hits: hits.size, versions };
  };
}

function listQuerySchema(knownChainIds: ReadonlySet<number>) {
  const fieldsParam = z
    .string()
    .max(1_000)
    .transform((v) =>
      v
        .split(',')
        .map((f) => f.trim())
        .filter(Boolean),
    )
    .refine((fields) => fields.length > 0, 'must name at least one field')
    .superRefine((fields, ctx) => {
      const unknown = fields.filter((f) => !(COMPLETE_FIELDS as readonly string[]).includes(f));
      if (unknown.length > 0)
        ctx.addIssue({
          code: 'custom',
          message: `unknown field ${JSON.stringify(unknown[0]!.slice(0, 40))} (known: ${COMPLETE_FIELDS.join(', ')})`,
        });
    });
  return z.object({
    ...proFilterShape(knownChainIds),
    include_history: includeFlag(false).describe(
      `default false: token_history, up to ${LIST_HISTORY_LIMIT} snapshots per token`,
    ),
    limit: integerParam(1, PRO_LIST_MAX_LIMIT)
      .default(PRO_LIST_DEFAULT_LIMIT)
      .describe(`1-${PRO_LIST_MAX_LIMIT} (default ${PRO_LIST_DEFAULT_LIMIT})`),
    offset: integerParam(0, MAX_OFFSET).default(0).describe('tokens to skip (default 0)'),
    fields: fieldsParam
      .optional()
      .describe(
        'comma-separated fields of the complete object; contract_address and chain_id are always included',
      ),
  });
}

export type ProListQuery = z.output<ReturnType<typeof listQuerySchema>>;

/** One page of the PRO list: summaries, or complete objects narrowed to `fields`. */
async function listTokens(ctx: ProContext, query: ProListQuery, res: Response): Promise<undefined> {
  const { deps, loadComplete } = ctx;
  const { tokens } = deps;
  const cacheKey = `pro:${JSON.stringify(query)}`;
  const cached = await deps.listCache.get(cacheKey);
  if (cached.body !== undefined) {
    res.type('application/json').send(cached.body);
    return undefined;
  }
  const listQuery = { ...toProListQuery(query), page: 1, limit: query.limit, offset: query.offset };
  const nowMs = Date.now();
  let listed: Record<string, unknown>[];
  let total: number;
  let hasMore: boolean;
  let items: { chainId: number; address: string }[];
  if (!query.fields && !query.include_history) {
    // Summaries read a quarter of the columns: no JSON documents but the simulation's.
    const page = await tokens.listSummaries(listQuery);
    ({ items, total, hasMore } = page);
    listed = page.items.map((row) => tokenSummary(row, nowMs));
  } else {
    const page = await tokens.list(listQuery);
    ({ items, total, hasMore } = page);
    const keys = items.map((r) => ({ chainId: r.chainId, address: r.address }));
    const { found } = await loadComplete(keys);
    const fields = query.fields ? new Set<string>([...ALWAYS_LISTED, ...query.fields]) : undefined;
    const include: IncludeOptions = {
      history: query.include_history,
      analyses: true,
      adminFunctions: true,
      historyLimit: LIST_HISTORY_LIMIT,
    };
    listed = page.items.map((row) => {
      const record = found.get(tokenKey({ chainId: row.chainId, address: row.address }));
      const summary: Record<string, unknown> = tokenSummary(row, nowMs);
      if (!record) return summary;
      const full: Record<string, unknown> = shapeComplete(record, include, nowMs);
      const base = fields
        ? Object.fromEntries(Object.entries(full).filter(([k]) => fields.has(k)))
        : summary;
      return query.include_history ? { ...base, token_history: full.token_history } : base;
    });
  }
  const body = JSON.stringify({
    tokens: listed,
    pagination: {
      total,
      limit: query.limit,
      offset: query.offset,
      has_more: hasMore,
    },
  });
  deps.listCache.set(cacheKey, cached.version, body);
  res.type('application/json').send(body);
  return undefined;
}

function detailRoute(ctx: ProContext): RouteSpec {
  const { guard, loadComplete } = ctx;
  const addressParams = z.object({
    address: addressParam.describe('contract address, case-insensitive'),
  });
  const detailQuery = z.object({
    chain_id: ctx.chainId
      .optional()
      .transform((id) => id ?? DEFAULT_DETAIL_CHAIN_ID)
      .describe(`default ${DEFAULT_DETAIL_CHAIN_ID}`),
    include_history: includeFlag(true).describe(
      `default true: token_history, up to ${DETAIL_HISTORY_LIMIT} snapshots`,
    ),
    include_analyses: includeFlag(true),
    include_admin_functions: includeFlag(true),
  });
  /** Serialized detail answers of hot tokens, per include flags, valid for one token version and quality score. */
  const serialized = new Map<
    string,
    { v: string; src: CompleteRecord; quality: number; body: string }
  >();
  const SERIALIZED_MAX = 5_000;

  return route({
    method: 'get',
    path: '/api/pro/tokens/:address',
    tag: 'PRO',
    auth: 'pro',
    guard,
    params: addressParams,
    query: detailQuery,
    summary: 'The complete token object (PRO key)',
    description: `History: at most ${DETAIL_HISTORY_LIMIT} snapshots, most recent first. Parts the analysis stages have not filled yet are null.`,
    responses: {
      200: { description: 'The token', schema: completeToken },
      403: { description: '`PRO plan required`' },
      404: { description: '`Token not found`' },
    },
    async handler({ params, query }, _req, res) {
      const key = { chainId: query.chain_id, address: params.address };
      const { found, versions } = await loadComplete([key]);
      const record = found.get(tokenKey(key));
      if (!record) throw new HttpError(404, MESSAGES.tokenNotFound);
      const include: IncludeOptions = {
        history: query.include_history,
        analyses: query.include_analyses,
        adminFunctions: query.include_admin_functions,
        historyLimit: DETAIL_HISTORY_LIMIT,
      };
      const nowMs = Date.now();
      // Cheap to compute: the memo is checked before the object is shaped and serialized again.
      const quality = dataQualityScore(record.quality, nowMs);
      const memoKey = `${tokenKey(key)}|${+include.history}${+include.analyses}${+include.adminFunctions}`;
      const version = versions.get(tokenKey(key)) ?? '0';
      let memo = serialized.get(memoKey);
      // Same version, the very record the cache holds, and the same (time-dependent) quality score.
      if (!memo || memo.v !== version || memo.src !== record || memo.quality !== quality) {
        const body = JSON.stringify(shapeComplete(record, include, nowMs));
        memo = { v: version, src: record, quality, body };
        if (serialized.size >= SERIALIZED_MAX) serialized.clear();
        serialized.set(memoKey, memo);
      }
      res.type('application/json').send(memo.body);
      return undefined;
    },
  });
}

function listRoute(ctx: ProContext): RouteSpec {
  const { guard } = ctx;
  const listQuery = listQuerySchema(ctx.deps.knownChainIds);
  return route({
    method: 'get',
    path: '/api/pro/tokens',
    tag: 'PRO',
    auth: 'pro',
    guard,
    query: listQuery,
    summary: 'Tokens with filters, offset pagination and field selection (PRO key)',
    description:
      'Newest first. Without `fields`, each token carries the summary fields; `fields` selects among every field of the complete object.',
    responses: {
      200: { description: 'A page of tokens', schema: proTokenList },
      403: { description: '`PRO plan required`' },
    },
    handler: ({ query }, _req, res) => listTokens(ctx, query, res),
  });
}

function bulkRoute(ctx: ProContext): RouteSpec {
  const { guard, loadComplete } = ctx;
  const bulkBody = z.strictObject({
    tokens: z
      .array(
        z.strictObject({
          address: addressParam,
          chain_id: z
            .number()
            .int()
            .refine((id) => ctx.deps.knownChainIds.has(id), 'unknown chain_id'),
        }),
        'must be an array of {address, chain_id}',
      )
      .min(1, 'must contain at least 1 token')
      .max(MAX_BULK, `must contain at most ${MAX_BULK} tokens`),
    include_history: z
      .boolean()
      .default(true)
      .describe(`default true: up to ${BULK_HISTORY_LIMIT} snapshots per token`),
    include_analyses: z.boolean().default(true),
    include_admin_functions: z.boolean().default(true),
  });

  return route({
    method: 'post',
    path: '/api/pro/tokens/bulk',
    tag: 'PRO',
    auth: 'pro',
    guard,
    body: bulkBody,
    summary: `Up to ${MAX_BULK} complete token objects in one call (PRO key)`,
    description: `Unknown tokens are left out of \`tokens\` and listed in \`metadata.not_found\`; duplicates are answered once. More than ${MAX_BULK} entries: 400. History: at most ${BULK_HISTORY_LIMIT} snapshots per token.`,
    responses: {
      200: { description: 'The tokens found', schema: bulkResponse },
      403: { description: '`PRO plan required`' },
    },
    async handler({ body }) {
      const started = performance.now();
      const seen = new Set<string>();
      const keys: TokenKey[] = [];
      for (const t of body.tokens) {
        const key = { chainId: t.chain_id, address: t.address };
        if (seen.has(tokenKey(key))) continue;
        seen.add(tokenKey(key));
        keys.push(key);
      }
      const { found, hits } = await loadComplete(keys);
      const include: IncludeOptions = {
        history: body.include_history,
        analyses: body.include_analyses,
        adminFunctions: body.include_admin_functions,
        historyLimit: BULK_HISTORY_LIMIT,
      };
      const nowMs = Date.now();
      const result = keys
        .filter((k) => found.has(tokenKey(k)))
        .map((k) => shapeComplete(found.get(tokenKey(k))!, include, nowMs));
      const notFound = keys
        .filter((k) => !found.has(tokenKey(k)))
        .map((k) => ({ address: k.address, chain_id: k.chainId }));
      return {
        tokens: result,
        metadata: {
          total_tokens: result.length,
          requested: keys.length,
          processing_time_ms: Math.ceil(performance.now() - started),
          cache_hit_rate: keys.length === 0 ? 0 : Math.round((hits / keys.length) * 1000) / 1000,
          not_found: notFound,
        },
      };
    },
  });
}

export function proRoutes(deps: ProRouterDeps): RouteSpec[] {
  const guard = [deps.auth.authenticate({ apiKeyHeader: true }), deps.auth.requirePlan('pro_api')];
  const ctx: ProContext = {
    deps,
    guard,
    chainId: chainIdParam(deps.knownChainIds),
    loadComplete: createCompleteLoader(deps.tokens, deps.cache, deps.logger),
  };
  return [
    detailRoute(ctx),
    listRoute(ctx),
    bulkRoute(ctx),
    exportRoute({
      tokens: deps.tokens,
      knownChainIds: deps.knownChainIds,
      guard,
      logger: deps.logger,
    }),
  ];
}
