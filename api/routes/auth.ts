import { Router } from 'express';
import { z } from 'zod';
import type { Redis } from 'ioredis';
import type { AccountRepository, ApiKeyRow, UserRow } from '../../db/repositories/accounts.ts';
import { bumpAuthGeneration } from '../../infra/auth-generation.ts';
import {
  API_KEY_PATTERN, MASKED_KEY_PATTERN, dummyPasswordHash, generateApiKey, hashPassword, sha256Hex, verifyPassword,
} from '../../src/accounts/credentials.ts';
import { DAY_MS, PLAN_FEATURES, PRO_KEY_FEATURES, effectivePlan, planState } from '../../src/plans.ts';
import { principalOf, signToken, type Auth, type JwtConfig } from '../auth.ts';
import { HttpError, MESSAGES } from '../errors.ts';
import type { Registry } from '../openapi.ts';
import type { Clock, Limits } from '../rate-limit.ts';
import {
  apiKeyCreated, apiKeyList, apiKeyRevoked, signinResponse, signupResponse, userSchema,
} from '../schemas.ts';
import type { UsageCounter } from '../usage.ts';
import { parseOr400 } from '../validation.ts';

/** Accounts and API keys (docs/api.md). */

const MIN_PASSWORD = 8;
const MAX_PASSWORD = 128;
const MAX_KEY_EXPIRY_DAYS = 3_650;
const DEFAULT_KEY_NAME = 'Default PRO key';
/** Per client address, on signup and signin. */
export const ANONYMOUS_LIMITS: Limits = { perMinute: 20, perHour: 200, perDay: 2_000 };

const credentialsBody = z.strictObject({
  email: z.email('must be an email address').max(254, 'must be at most 254 characters').transform((e) => e.toLowerCase()),
  password: z.string().min(MIN_PASSWORD, `must be at least ${MIN_PASSWORD} characters`).max(MAX_PASSWORD, `must be at most ${MAX_PASSWORD} characters`),
});
const signinBody = z.strictObject({
  email: z.string().max(254, 'must be at most 254 characters').transform((e) => e.toLowerCase()),
  password: z.string().max(MAX_PASSWORD, `must be at most ${MAX_PASSWORD} characters`),
});
const generateBody = z.strictObject({
  name: z.string().trim().min(1).max(100).optional(),
  description: z.string().max(500).optional(),
  expires_in_days: z.number().int().min(1).max(MAX_KEY_EXPIRY_DAYS).optional().describe('default: no expiry'),
});
const revokeParams = z.object({
  apiKey: z.string().max(200).refine((k) => API_KEY_PATTERN.test(k) || MASKED_KEY_PATTERN.test(k), 'must be an API key (svc_pro_…) or its masked form as listed'),
});

const isoOrNull = (d: Date | null) => d?.toISOString() ?? null;

export function toUser(user: UserRow, now: Date) {
  const plan = effectivePlan(user, now);
  return {
    id: user.id,
    email: user.email,
    plan,
    plan_state: planState(user, now),
    trial_ends_at: isoOrNull(user.trialEndsAt),
    payment_failed_at: isoOrNull(user.paymentFailedAt),
    downgraded_at: isoOrNull(user.downgradedAt),
    features: PLAN_FEATURES[plan],
    created_at: user.createdAt.toISOString(),
  };
}

const rateLimitOf = (key: ApiKeyRow) => ({ requests_per_day: key.requestsPerDay, requests_per_hour: key.requestsPerHour, requests_per_minute: key.requestsPerMinute });

export interface AuthRouterDeps {
  accounts: AccountRepository;
  auth: Auth;
  jwt: JwtConfig;
  usage: UsageCounter;
  clock: Clock;
  registry: Registry;
  redis: Redis;
  redisPrefix: string;
}

export function authRouter(deps: AuthRouterDeps): Router {
  const router = Router();
  const { auth, accounts, clock, registry } = deps;
  const jwtOnly = auth.authenticate({ apiKey: false });
  // Computed now, so that even the first signin of an unknown email costs one scrypt, not two.
  void dummyPasswordHash();
  const anonymous = auth.limitAnonymous(ANONYMOUS_LIMITS);

  registry.add({
    method: 'post', path: '/api/auth/signup', tag: 'Accounts', auth: 'none', summary: 'Create an account (plan FREE)', body: credentialsBody,
    responses: { 201: { description: 'Created', schema: signupResponse }, 409: { description: '`Email already registered`' }, 429: { description: 'Too many attempts from this address' } },
  });
  router.post('/auth/signup', anonymous, async (req, res) => {
    const body = parseOr400(credentialsBody, req.body);
    const user = await accounts.createUser({ email: body.email, passwordHash: await hashPassword(body.password), plan: 'FREE' });
    if (!user) throw new HttpError(409, MESSAGES.emailTaken);
    res.status(201).json({ user: toUser(user, clock()) });
  });

  registry.add({
    method: 'post', path: '/api/auth/signin', tag: 'Accounts', auth: 'none', summary: 'Sign in: a JWT (HS256) for the Bearer header', body: signinBody,
    responses: { 200: { description: 'Signed in', schema: signinResponse }, 401: { description: 'Wrong email or password: `Unauthorized. Please log in again.`' }, 429: { description: 'Too many attempts from this address' } },
  });
  router.post('/auth/signin', anonymous, async (req, res) => {
    const body = parseOr400(signinBody, req.body);
    const user = await accounts.userByEmail(body.email);
    // The same scrypt work for an unknown email: answer time does not tell which emails exist.
    const ok = await verifyPassword(body.password, user?.passwordHash ?? (await dummyPasswordHash()));
    if (!user || !ok) throw new HttpError(401, MESSAGES.unauthorized);
    const now = clock();
    const { token, expiresIn } = signToken(user, deps.jwt, now);
    res.json({
      token,
      token_type: 'Bearer',
      expires_in: expiresIn,
      user: { id: user.id, email: user.email, plan: effectivePlan(user, now), trial_ends_at: isoOrNull(user.trialEndsAt) },
    });
  });

  registry.add({
    method: 'get', path: '/api/auth/me', tag: 'Accounts', auth: 'bearer', summary: 'The signed-in user with plan state (JWT)',
    responses: { 200: { description: 'The user', schema: userSchema } },
  });
  router.get('/auth/me', jwtOnly, (_req, res) => {
    res.json(toUser(principalOf(res).user, clock()));
  });

  registry.add({
    method: 'post', path: '/api/auth/generate-api-key', tag: 'API keys', auth: 'bearer', body: generateBody,
    summary: 'Generate a PRO API key (JWT, PRO); the previous active key is revoked',
    responses: { 201: { description: 'The new key; api_key and api_secret are shown this once', schema: apiKeyCreated }, 403: { description: '`PRO plan required`' } },
  });
  router.post('/auth/generate-api-key', jwtOnly, auth.requirePlan('api_keys'), async (req, res) => {
    const body = parseOr400(generateBody, req.body ?? {});
    const { user } = principalOf(res);
    const now = clock();
    const key = generateApiKey();
    const expiresAt = body.expires_in_days ? new Date(now.getTime() + body.expires_in_days * DAY_MS) : null;
    const row = await accounts.generateKey(user.id, key, { name: body.name ?? DEFAULT_KEY_NAME, description: body.description ?? null, plan: 'PRO', now, expiresAt });
    // The previous key is revoked: no instance may keep accepting it from its memo.
    await bumpAuthGeneration(deps.redis, deps.redisPrefix);
    res.status(201).json({
      api_key: key.apiKey,
      api_secret: key.apiSecret,
      plan: 'PRO',
      name: row.name,
      description: row.description,
      rate_limit: rateLimitOf(row),
      features: [...PRO_KEY_FEATURES],
      status: 'active',
      created_at: row.createdAt.toISOString(),
      expires_at: isoOrNull(row.expiresAt),
    });
  });

  registry.add({
    method: 'get', path: '/api/auth/api-keys', tag: 'API keys', auth: 'bearer', summary: "The caller's active API keys, masked (JWT)",
    responses: { 200: { description: 'Active keys only', schema: apiKeyList } },
  });
  router.get('/auth/api-keys', jwtOnly, async (_req, res) => {
    const { user } = principalOf(res);
    const keys = await accounts.activeKeys(user.id);
    const usage = await deps.usage.read(keys.map((k) => k.id));
    const items = keys.map((k) => {
      const u = usage.get(k.id);
      const lastUsed = [k.lastUsed, u?.lastUsed].filter((d): d is Date => !!d).sort((a, b) => b.getTime() - a.getTime())[0] ?? null;
      return {
        api_key: k.maskedKey,
        name: k.name,
        plan: k.plan,
        status: 'active' as const,
        created_at: k.createdAt.toISOString(),
        last_used: isoOrNull(lastUsed),
        usage_stats: {
          requests_today: u?.requestsToday ?? 0,
          requests_this_month: u?.requestsThisMonth ?? 0,
          total_requests: k.totalRequests + (u?.unflushed ?? 0),
          last_used: isoOrNull(lastUsed),
        },
      };
    });
    res.json({ api_keys: items, total: items.length });
  });

  registry.add({
    method: 'delete', path: '/api/auth/api-keys/:apiKey', tag: 'API keys', auth: 'bearer', params: revokeParams,
    summary: 'Revoke an active key of the caller, named in full or masked as listed (JWT)',
    responses: { 200: { description: 'Revoked', schema: apiKeyRevoked }, 404: { description: '`API key not found`: no active key of the caller' } },
  });
  router.delete('/auth/api-keys/:apiKey', jwtOnly, async (req, res) => {
    const { apiKey } = parseOr400(revokeParams, req.params);
    const { user } = principalOf(res);
    const by = API_KEY_PATTERN.test(apiKey) ? { keyHash: sha256Hex(apiKey) } : { maskedKey: apiKey };
    const row = await accounts.revokeKey(user.id, by, clock());
    if (!row) throw new HttpError(404, MESSAGES.apiKeyNotFound);
    await bumpAuthGeneration(deps.redis, deps.redisPrefix);
    res.json({ message: 'API key revoked', api_key: row.maskedKey, status: 'revoked' });
  });

  return router;
}
