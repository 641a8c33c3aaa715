import { Router } from 'express';
import { z } from 'zod';
import { tokenKey, type TokenKey, type TokenRepository } from '../../db/repositories/tokens.ts';
import type { TokenCache, createListCache } from '../../infra/token-cache.ts';
import type { Auth } from '../auth.ts';
import { HttpError, MESSAGES } from '../errors.ts';
import type { Registry } from '../openapi.ts';
import { bulkResponse, completeToken, proTokenList } from '../schemas.ts';
import { PRO_LIST_FIELDS, shapeComplete, toComplete, type CompleteToken, type IncludeOptions } from '../token-view.ts';
import { addressParam, chainIdParam, parseOr400 } from '../validation.ts';
import { tokenFilterSchema, toListQuery } from './tokens.ts';

/**
 * The PRO operations (docs/api.md, header X-API-Key): the complete token object, the filtered list
 * with field selection, and bulk lookup. Complete objects of hot tokens come from a Redis cache
 * invalidated by version (infra/token-cache.ts).
 */

export const DETAIL_HISTORY_LIMIT = 100;
export const BULK_HISTORY_LIMIT = 50;
export const MAX_BULK = 50;
const ALWAYS_LISTED = ['contract_address', 'chain_id'];

const includeFlag = (fallback: boolean) => z.enum(['true', 'false'], 'must be true or false').transform((v) => v === 'true').optional()
  .transform((v) => v ?? fallback).describe(`default ${fallback}`);

/** Complete objects (history up to DETAIL_HISTORY_LIMIT) straight from Postgres. */
export async function assembleComplete(tokens: TokenRepository, keys: readonly TokenKey[]): Promise<CompleteToken[]> {
  const rows = await tokens.getMany(keys);
  if (rows.length === 0) return [];
  const present = rows.map((r) => ({ chainId: r.chainId, address: r.address }));
  const creatorKeys = rows.filter((r) => r.creator).map((r) => ({ chainId: r.chainId, address: r.creator! }));
  const [analyses, creators, histories] = await Promise.all([
    tokens.latestAnalyses(present),
    tokens.creatorsOf(creatorKeys),
    tokens.histories(present, DETAIL_HISTORY_LIMIT),
  ]);
  return rows.map((row) => {
    const key = tokenKey({ chainId: row.chainId, address: row.address });
    const creator = row.creator ? creators.get(tokenKey({ chainId: row.chainId, address: row.creator })) : undefined;
    return toComplete(row, analyses.get(key), creator, histories.get(key) ?? []);
  });
}

export interface ProRouterDeps {
  tokens: TokenRepository;
  knownChainIds: ReadonlySet<number>;
  auth: Auth;
  registry: Registry;
  cache: TokenCache<CompleteToken>;
  listCache: ReturnType<typeof createListCache>;
}

export function proRouter(deps: ProRouterDeps): Router {
  const router = Router();
  const { tokens, cache } = deps;
  const guard = [deps.auth.authenticate({ apiKeyHeader: true }), deps.auth.requirePlan('pro_api')];
  const chainId = chainIdParam(deps.knownChainIds);
  const addressParams = z.object({ address: addressParam });
  const detailQuery = z.object({
    chain_id: chainId.optional().describe('without it: the most recently detected token with this address'),
    include_history: includeFlag(false),
    include_analysis: includeFlag(true),
    include_dex: includeFlag(true),
  });
  const fieldsParam = z.string().max(1_000).transform((v) => v.split(',').map((f) => f.trim()).filter(Boolean))
    .refine((fields) => fields.length > 0, 'must name at least one field')
    .superRefine((fields, ctx) => {
      const unknown = fields.filter((f) => !(PRO_LIST_FIELDS as readonly string[]).includes(f));
      if (unknown.length > 0) ctx.addIssue({ code: 'custom', message: `unknown field ${JSON.stringify(unknown[0]!.slice(0, 40))} (known: ${PRO_LIST_FIELDS.join(', ')})` });
    });
  const listQuery = tokenFilterSchema(deps.knownChainIds).extend({
    fields: fieldsParam.optional().describe('comma-separated field names; contract_address and chain_id are always included'),
  });
  const bulkBody = z.strictObject({
    tokens: z.array(z.strictObject({
      address: addressParam,
      chain_id: z.number().int().refine((id) => deps.knownChainIds.has(id), 'unknown chain_id'),
    }), 'must be an array of {address, chain_id}').min(1, 'must contain at least 1 token').max(MAX_BULK, `must contain at most ${MAX_BULK} tokens`),
    include_history: z.boolean().default(false),
    include_analysis: z.boolean().default(true),
    include_dex: z.boolean().default(true),
  });

  /** Complete objects (history up to DETAIL_HISTORY_LIMIT) from the cache, the misses from Postgres. */
  async function loadComplete(keys: TokenKey[]): Promise<{ found: Map<string, CompleteToken>; hits: number; versions: Map<string, string> }> {
    const { hits, versions } = await cache.get(keys);
    const misses = keys.filter((k) => !hits.has(tokenKey(k)));
    const found = new Map(hits);
    if (misses.length > 0) {
      const fresh = (await assembleComplete(tokens, misses)).map((value) => {
        const key = tokenKey({ chainId: value.chain_id, address: value.contract_address });
        found.set(key, value);
        return { key: { chainId: value.chain_id, address: value.contract_address }, version: versions.get(key) ?? '0', value };
      });
      await cache.set(fresh);
    }
    return { found, hits: hits.size, versions };
  }

  /** Serialized detail answers of hot tokens, per include flags, valid for one token version. */
  const serialized = new Map<string, { v: string; src: CompleteToken; body: string }>();
  const SERIALIZED_MAX = 5_000;

  deps.registry.add({
    method: 'get', path: '/api/pro/tokens/:address', tag: 'PRO', auth: 'pro', params: addressParams, query: detailQuery,
    summary: 'The complete token object (PRO key)',
    description: 'History: at most 100 snapshots, most recent first. Parts the analysis stages have not filled yet are null.',
    responses: { 200: { description: 'The token', schema: completeToken }, 403: { description: '`PRO plan required`' }, 404: { description: '`Token not found`' } },
  });
  router.get('/pro/tokens/:address', ...guard, async (req, res) => {
    const { address } = parseOr400(addressParams, req.params);
    const query = parseOr400(detailQuery, req.query);
    let chain = query.chain_id;
    if (chain === undefined) {
      const row = await tokens.get(undefined, address);
      if (!row) throw new HttpError(404, MESSAGES.tokenNotFound);
      chain = row.chainId;
    }
    const key = { chainId: chain, address };
    const { found, versions } = await loadComplete([key]);
    const token = found.get(tokenKey(key));
    if (!token) throw new HttpError(404, MESSAGES.tokenNotFound);
    const include: IncludeOptions = { history: query.include_history, analysis: query.include_analysis, dex: query.include_dex, historyLimit: DETAIL_HISTORY_LIMIT };
    const memoKey = `${tokenKey(key)}|${+include.history}${+include.analysis}${+include.dex}`;
    const version = versions.get(tokenKey(key)) ?? '0';
    let memo = serialized.get(memoKey);
    // Same version and the very object the cache holds: a re-read from Postgres makes a new one.
    if (!memo || memo.v !== version || memo.src !== token) {
      memo = { v: version, src: token, body: JSON.stringify(shapeComplete(token, include)) };
      if (serialized.size >= SERIALIZED_MAX) serialized.clear();
      serialized.set(memoKey, memo);
    }
    res.type('application/json').send(memo.body);
  });

  deps.registry.add({
    method: 'get', path: '/api/pro/tokens', tag: 'PRO', auth: 'pro', query: listQuery as unknown as z.ZodObject,
    summary: 'Tokens with every filter, offset pagination and field selection (PRO key)',
    responses: { 200: { description: 'A page of tokens', schema: proTokenList }, 403: { description: '`PRO plan required`' } },
  });
  router.get('/pro/tokens', ...guard, async (req, res) => {
    const query = parseOr400(listQuery, req.query);
    const cacheKey = `pro:${JSON.stringify(query)}`;
    const cached = await deps.listCache.get(cacheKey);
    if (cached.body !== undefined) {
      res.type('application/json').send(cached.body);
      return;
    }
    const { items, total } = await tokens.list(toListQuery(query));
    const keys = items.map((r) => ({ chainId: r.chainId, address: r.address }));
    const creatorKeys = items.filter((r) => r.creator).map((r) => ({ chainId: r.chainId, address: r.creator! }));
    const [analyses, creators] = await Promise.all([tokens.latestAnalyses(keys), tokens.creatorsOf(creatorKeys)]);
    const fields = query.fields ? new Set([...ALWAYS_LISTED, ...query.fields]) : undefined;
    const mapped = items.map((row) => {
      const key = tokenKey({ chainId: row.chainId, address: row.address });
      const creator = row.creator ? creators.get(tokenKey({ chainId: row.chainId, address: row.creator })) : undefined;
      const { history: _h, risk_analysis: _r, dex_hints: _d, ...item } = toComplete(row, analyses.get(key), creator, []);
      return fields ? Object.fromEntries(Object.entries(item).filter(([k]) => fields.has(k))) : item;
    });
    const body = JSON.stringify({ items: mapped, total, page: query.page, limit: query.limit });
    deps.listCache.set(cacheKey, cached.version, body);
    res.type('application/json').send(body);
  });

  deps.registry.add({
    method: 'post', path: '/api/pro/tokens/bulk', tag: 'PRO', auth: 'pro', body: bulkBody,
    summary: 'Up to 50 complete token objects in one call (PRO key)',
    description: 'Unknown tokens are left out of `tokens` and listed in `metadata.not_found`; duplicates are answered once. History: at most 50 snapshots per token.',
    responses: { 200: { description: 'The tokens found', schema: bulkResponse }, 403: { description: '`PRO plan required`' } },
  });
  router.post('/pro/tokens/bulk', ...guard, async (req, res) => {
    const started = performance.now();
    const body = parseOr400(bulkBody, req.body);
    const seen = new Set<string>();
    const keys: TokenKey[] = [];
    for (const t of body.tokens) {
      const key = { chainId: t.chain_id, address: t.address };
      if (seen.has(tokenKey(key))) continue;
      seen.add(tokenKey(key));
      keys.push(key);
    }
    const { found, hits } = await loadComplete(keys);
    const include: IncludeOptions = { history: body.include_history, analysis: body.include_analysis, dex: body.include_dex, historyLimit: BULK_HISTORY_LIMIT };
    const result = keys.filter((k) => found.has(tokenKey(k))).map((k) => shapeComplete(found.get(tokenKey(k))!, include));
    const notFound = keys.filter((k) => !found.has(tokenKey(k))).map((k) => ({ address: k.address, chain_id: k.chainId }));
    res.json({
      tokens: result,
      metadata: {
        total_tokens: result.length,
        requested: keys.length,
        processing_time_ms: Math.round((performance.now() - started) * 100) / 100,
        cache_hit_rate: keys.length === 0 ? 0 : Math.round((hits / keys.length) * 1000) / 1000,
        not_found: notFound,
      },
    });
  });

  return router;
}
