import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { AccountRepository, ApiKeyRow, UserRow } from '../../db/repositories/accounts.ts';
import { bumpAuthGeneration } from '../../infra/auth-generation.ts';
import {
  dummyPasswordHash,
  generateApiKey,
  hashPassword,
  MASKED_KEY_PATTERN,
  sha256Hex,
  verifyPassword,
} from '../../src/accounts/credentials.ts';
import {
  DAY_MS,
  effectivePlan,
  PLAN_FEATURES,
  PRO_KEY_FEATURES,
  planState,
} from '../../src/plans.ts';
import { isoOrNull } from '../../src/time.ts';
import type { Clock, Limits, UsageCounter } from '../access/index.ts';
import { type Auth, type JwtConfig, principalOf, signToken } from '../access/index.ts';
import { HttpError, MESSAGES } from '../errors.ts';
import { type RouteSpec, route } from '../route.ts';
import {
  apiKeyCreated,
  apiKeyList,
  apiKeyRevoked,
  signinResponse,
  signupResponse,
  userSchema,
} from '../schemas.ts';

/** Accounts and API keys (docs/api.md, "Accounts and API keys"). */

const MIN_PASSWORD = 8;
const MAX_PASSWORD = 128;
const MAX_KEY_EXPIRY_DAYS = 3_650;
const DEFAULT_KEY_NAME = 'Default PRO key';
/** The key object's plan, as the API contract writes it (docs/api.md). */
const KEY_PLAN = 'pro';
/** Per client address, on signup and signin. */
export const ANONYMOUS_LIMITS: Limits = { perMinute: 20, perHour: 200, perDay: 2_000 };

const credentialsBody = z.strictObject({
  email: z
    .email('must be an email address')
    .max(254, 'must be at most 254 characters')
    .transform((e) => e.toLowerCase()),
  password: z
    .string()
    .min(MIN_PASSWORD, `must be at least ${MIN_PASSWORD} characters`)
    .max(MAX_PASSWORD, `must be at most ${MAX_PASSWORD} characters`),
});
const signinBody = z.strictObject({
  email: z
    .string()
    .max(254, 'must be at most 254 characters')
    .transform((e) => e.toLowerCase()),
  password: z.string().max(MAX_PASSWORD, `must be at most ${MAX_PASSWORD} characters`),
});
const generateBody = z.strictObject({
  plan: z
    .literal(KEY_PLAN, `must be "${KEY_PLAN}" (the only plan with API keys)`)
    .optional()
    .describe('"pro", the only plan supported'),
  name: z.string().trim().min(1).max(100).optional(),
  description: z.string().max(500).optional(),
  expires_in_days: z
    .number()
    .int()
    .min(1)
    .max(MAX_KEY_EXPIRY_DAYS)
    .optional()
    .describe('default: no expiry'),
});
/** Any `svc_pro_<hex>` (the contract fixes no length), or the masked form exactly as listed. */
const ANY_KEY_PATTERN = /^svc_pro_[0-9a-f]{1,128}$/;
const revokeParams = z.object({
  apiKey: z
    .string()
    .max(200)
    .refine(
      (k) => ANY_KEY_PATTERN.test(k) || MASKED_KEY_PATTERN.test(k),
      'must be an API key (svc_pro_<hex>) or its masked form as listed',
    ),
});

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

const rateLimitOf = (key: ApiKeyRow) => ({
  requests_per_day: key.requestsPerDay,
  requests_per_hour: key.requestsPerHour,
  requests_per_minute: key.requestsPerMinute,
});

export interface AuthRouterDeps {
  accounts: AccountRepository;
  auth: Auth;
  jwt: JwtConfig;
  usage: UsageCounter;
  clock: Clock;
  redis: Redis;
  redisPrefix: string;
}

export function authRoutes(deps: AuthRouterDeps): RouteSpec[] {
  // Computed now, so that even the first signin of an unknown email costs one scrypt, not two.
  void dummyPasswordHash();
  const jwtOnly = deps.auth.authenticate({ apiKey: false });
  return [...signRoutes(deps), ...meAndGenerateRoutes(deps, jwtOnly), ...keyRoutes(deps, jwtOnly)];
}

/** Signup and signin, throttled per client address. */
function signRoutes(deps: AuthRouterDeps): RouteSpec[] {
  const { accounts, clock } = deps;
  const anonymous = deps.auth.limitAnonymous(ANONYMOUS_LIMITS);
  const tooMany = { description: 'Too many attempts from this address' };
  return [
    route({
      method: 'post',
      path: '/api/auth/signup',
      tag: 'Accounts',
      auth: 'none',
      summary: 'Create an account (plan FREE)',
      guard: [anonymous],
      body: credentialsBody,
      responses: {
        201: { description: 'Created', schema: signupResponse },
        409: { description: '`Email already registered`' },
        429: tooMany,
      },
      async handler({ body }) {
        const user = await accounts.createUser({
          email: body.email,
          passwordHash: await hashPassword(body.password),
          plan: 'FREE',
        });
        if (!user) throw new HttpError(409, MESSAGES.emailTaken);
        return { user: toUser(user, clock()) };
      },
    }),

    route({
      method: 'post',
      path: '/api/auth/signin',
      tag: 'Accounts',
      auth: 'none',
      summary: 'Sign in: a JWT (HS256) for the Bearer header',
      guard: [anonymous],
      body: signinBody,
      responses: {
        200: { description: 'Signed in', schema: signinResponse },
        401: { description: 'Wrong email or password: `Unauthorized. Please log in again.`' },
        429: tooMany,
      },
      async handler({ body }) {
        const user = await accounts.userByEmail(body.email);
        // The same scrypt work for an unknown email: answer time does not tell which emails exist.
        const ok = await verifyPassword(
          body.password,
          user?.passwordHash ?? (await dummyPasswordHash()),
        );
        if (!user || !ok) throw new HttpError(401, MESSAGES.unauthorized);
        const now = clock();
        const { token, expiresIn } = signToken(user, deps.jwt, now);
        return {
          token,
          token_type: 'Bearer',
          expires_in: expiresIn,
          user: {
            id: user.id,
            email: user.email,
            plan: effectivePlan(user, now),
            trial_ends_at: isoOrNull(user.trialEndsAt),
          },
        };
      },
    }),
  ];
}

function meAndGenerateRoutes(deps: AuthRouterDeps, jwtOnly: RequestHandler): RouteSpec[] {
  const { auth, accounts, clock } = deps;
  return [
    route({
      method: 'get',
      path: '/api/auth/me',
      tag: 'Accounts',
      auth: 'bearer',
      summary: 'The signed-in user with plan state (JWT)',
      guard: [jwtOnly],
      responses: { 200: { description: 'The user', schema: userSchema } },
      handler: (_input, _req, res) => toUser(principalOf(res).user, clock()),
    }),

    route({
      method: 'post',
      path: '/api/auth/generate-api-key',
      tag: 'API keys',
      auth: 'bearer',
      body: generateBody,
      guard: [jwtOnly, auth.requirePlan('api_keys')],
      summary: 'Generate a PRO API key (JWT, PRO); the previous active key is revoked',
      responses: {
        201: {
          description: 'The new key; api_key and api_secret are shown this once',
          schema: apiKeyCreated,
        },
        403: { description: '`PRO plan required`' },
      },
      async handler({ body }, _req, res) {
        const { user } = principalOf(res);
        const now = clock();
        const key = generateApiKey();
        const expiresAt = body.expires_in_days
          ? new Date(now.getTime() + body.expires_in_days * DAY_MS)
          : null;
        const row = await accounts.generateKey(user.id, key, {
          name: body.name ?? DEFAULT_KEY_NAME,
          description: body.description ?? '',
          plan: 'PRO',
          now,
          expiresAt,
        });
        // The previous key is revoked: no instance may keep accepting it from its memo.
        await bumpAuthGeneration(deps.redis, deps.redisPrefix);
        return {
          api_key: key.apiKey,
          api_secret: key.apiSecret,
          plan: KEY_PLAN,
          name: row.name,
          description: row.description ?? '',
          rate_limit: rateLimitOf(row),
          features: [...PRO_KEY_FEATURES],
          status: 'active',
          created_at: row.createdAt.toISOString(),
          expires_at: isoOrNull(row.expiresAt),
        };
      },
    }),
  ];
}

/** The caller's active keys, and revocation. */
function keyRoutes(deps: AuthRouterDeps, jwtOnly: RequestHandler): RouteSpec[] {
  const { accounts, clock } = deps;
  return [
    route({
      method: 'get',
      path: '/api/auth/api-keys',
      tag: 'API keys',
      auth: 'bearer',
      summary: "The caller's active API keys, masked (JWT)",
      guard: [jwtOnly],
      responses: { 200: { description: 'Active keys only', schema: apiKeyList } },
      async handler(_input, _req, res) {
        const { user } = principalOf(res);
        const keys = await accounts.activeKeys(user.id);
        const usage = await deps.usage.read(keys.map((k) => k.id));
        const items = keys.map((k) => {
          const u = usage.get(k.id);
          const lastUsed =
            [k.lastUsed, u?.lastUsed]
              .filter((d): d is Date => !!d)
              .sort((a, b) => b.getTime() - a.getTime())[0] ?? null;
          return {
            api_key: k.maskedKey,
            name: k.name,
            plan: KEY_PLAN,
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
        return { api_keys: items, total: items.length };
      },
    }),

    route({
      method: 'delete',
      path: '/api/auth/api-keys/:apiKey',
      tag: 'API keys',
      auth: 'bearer',
      params: revokeParams,
      guard: [jwtOnly],
      summary: 'Revoke an active key of the caller, named in full or masked as listed (JWT)',
      responses: {
        200: { description: 'Revoked', schema: apiKeyRevoked },
        404: { description: '`API key not found`: the value names no active key of the caller' },
      },
      async handler({ params }, _req, res) {
        const { apiKey } = params;
        const { user } = principalOf(res);
        // Any svc_pro_<hex> is a well-formed name; one that is no key of ours simply finds nothing.
        const by = MASKED_KEY_PATTERN.test(apiKey)
          ? { maskedKey: apiKey }
          : { keyHash: sha256Hex(apiKey) };
        const row = await accounts.revokeKey(user.id, by, clock());
        if (!row) throw new HttpError(404, MESSAGES.apiKeyNotFound);
        await bumpAuthGeneration(deps.redis, deps.redisPrefix);
        return { message: 'API key revoked', api_key: row.maskedKey, status: 'revoked' };
      },
    }),
  ];
}
