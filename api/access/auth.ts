import type { Request, RequestHandler, Response } from 'express';
import type { Redis } from 'ioredis';
import jwt from 'jsonwebtoken';
import type { AccountRepository, KeyPrincipal, UserRow } from '../../db/repositories/accounts.ts';
import { authGenerationKey } from '../../infra/auth-generation.ts';
import { API_KEY_PATTERN, sha256Hex } from '../../src/accounts/credentials.ts';
import {
  DEFAULT_KEY_LIMITS,
  effectivePlan,
  type Plan,
  type PlanFeatures,
  planAllows,
} from '../../src/plans.ts';
import { HttpError, MESSAGES } from '../errors.ts';
import type { FailedAuthThrottle } from './auth-throttle.ts';
import { type Clock, type Limits, type RateLimiter, rateLimitHeaders } from './rate-limit.ts';
import type { UsageCounter } from './usage.ts';

/**
 * Credentials (docs/api.md): `Authorization: Bearer <JWT or PRO API key>` everywhere, and
 * `X-API-Key: <PRO API key>` on the PRO operations. JWTs are HS256 only (the algorithm is pinned
 * on verification, so `alg: none` and RS/HS confusion are refused), carry an expiry and an issuer,
 * and name the user; the user's plan is read on every request, so a downgrade takes effect at once.
 * A key authenticates only while it is active, unexpired, and its owner's effective plan is PRO.
 *
 * Rate limits (docs/security.md): API keys count in windows of their ACCOUNT (`account:<user id>`),
 * so a freshly generated key inherits the counters of the revoked one; usage stays per key. A JWT
 * on the PRO operations counts in those same account windows (with the account's key limits); a
 * JWT elsewhere (the web app) has its own per-user windows. Failed authentication is throttled per
 * client address (api/access/auth-throttle.ts) before any database lookup.
 */

export const JWT_ALGORITHM = 'HS256';
export const JWT_ISSUER = 'token-monitor';
export const JWT_TTL_SECONDS = 24 * 3_600;
/** Limits for people behind a JWT (the web app); API keys carry their own (docs/api.md defaults). */
export const JWT_LIMITS: Limits = { perMinute: 60, perHour: 1_000, perDay: 10_000 };
const MAX_CREDENTIAL_LENGTH = 4_096;
/** Looked-up keys and users are reused while the auth generation is unchanged, at most this long. */
const PRINCIPAL_CACHE_TTL_MS = 30_000;
export const PRINCIPAL_CACHE_MAX = 10_000;

export interface JwtConfig {
  secret: string;
  ttlSeconds?: number;
}

export interface Principal {
  kind: 'jwt' | 'api_key';
  user: UserRow;
  /** The effective plan now (an ended trial is FREE). */
  plan: Plan;
  keyId?: number;
  /** When the credential stops being valid on its own (JWT expiry, key expiry); none: never. */
  expiresAt?: Date;
}

export function signToken(
  user: { id: number; email: string },
  config: JwtConfig,
  now: Date,
): { token: string; expiresIn: number } {
  const expiresIn = config.ttlSeconds ?? JWT_TTL_SECONDS;
  const iat = Math.floor(now.getTime() / 1000);
  const token = jwt.sign(
    { sub: String(user.id), email: user.email, iat, exp: iat + expiresIn },
    config.secret,
    { algorithm: JWT_ALGORITHM, issuer: JWT_ISSUER },
  );
  return { token, expiresIn };
}

/** The user id and expiry, or undefined for any token that is not ours, valid and current. */
export function verifyTokenClaims(
  token: string,
  config: JwtConfig,
  now: Date,
): { userId: number; expiresAt: Date } | undefined {
  try {
    const payload = jwt.verify(token, config.secret, {
      algorithms: [JWT_ALGORITHM],
      issuer: JWT_ISSUER,
      clockTimestamp: Math.floor(now.getTime() / 1000),
    });
    if (
      typeof payload !== 'object' ||
      typeof payload.sub !== 'string' ||
      !/^\d{1,12}$/.test(payload.sub) ||
      typeof payload.exp !== 'number'
    )
      return undefined;
    return { userId: Number(payload.sub), expiresAt: new Date(payload.exp * 1000) };
  } catch {
    return undefined;
  }
}

/** The user id, or undefined for any token that is not ours, valid and current. */
export function verifyToken(token: string, config: JwtConfig, now: Date): number | undefined {
  return verifyTokenClaims(token, config, now)?.userId;
}

export function principalOf(res: Response): Principal {
  const principal = res.locals.principal as Principal | undefined;
  if (!principal) throw new Error('route without authentication');
  return principal;
}

export interface AuthDeps {
  accounts: AccountRepository;
  jwt: JwtConfig;
  rateLimiter: RateLimiter;
  usage: UsageCounter;
  clock: Clock;
  redis: Redis;
  redisPrefix: string;
  /** Failed authentication per client address; consulted before every database lookup. */
  failedAuth: FailedAuthThrottle;
  /** Entries of the principal cache (tests make it small). */
  principalCacheMax?: number;
}

/**
 * A per-process memo of database lookups, valid for one auth generation (infra/auth-generation.ts)
 * and a short TTL. Time-dependent state (an ending trial, an expiring key) is still evaluated on
 * every request against the clock, from the cached rows. A bounded LRU that keeps only hits:
 * lookups that found nothing are never stored, so random keys cannot push real users out.
 */
function createPrincipalCache(redis: Redis, prefix: string, max: number) {
  const entries = new Map<string, { generation: string; at: number; value: unknown }>();
  const generationKey = authGenerationKey(prefix);
  return async function cached<T>(
    key: string,
    load: () => Promise<T | undefined>,
  ): Promise<T | undefined> {
    const generation = (await redis.get(generationKey)) ?? '0';
    const hit = entries.get(key);
    const now = Date.now();
    if (hit && hit.generation === generation && now - hit.at < PRINCIPAL_CACHE_TTL_MS) {
      // Most recently used last: Map keeps insertion order, so the first entry is the eviction victim.
      entries.delete(key);
      entries.set(key, hit);
      return hit.value as T;
    }
    const value = await load();
    entries.delete(key);
    if (value === undefined) return undefined;
    while (entries.size >= max) entries.delete(entries.keys().next().value as string);
    entries.set(key, { generation, at: now, value });
    return value;
  };
}

const unauthorized = () =>
  new HttpError(401, MESSAGES.unauthorized, { 'WWW-Authenticate': 'Bearer' });
const throttled = (retryAfterSeconds: number) =>
  new HttpError(429, MESSAGES.rateLimited, { 'Retry-After': String(retryAfterSeconds) });

function bearer(req: Request): string | undefined {
  const header = req.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer ([^\s]+)$/i.exec(header);
  if (!match) throw unauthorized();
  return match[1];
}

const keyLimitsOf = (key: {
  requestsPerMinute: number;
  requestsPerHour: number;
  requestsPerDay: number;
}): Limits => ({
  perMinute: key.requestsPerMinute,
  perHour: key.requestsPerHour,
  perDay: key.requestsPerDay,
});
const DEFAULT_ACCOUNT_LIMITS: Limits = {
  perMinute: DEFAULT_KEY_LIMITS.requests_per_minute,
  perHour: DEFAULT_KEY_LIMITS.requests_per_hour,
  perDay: DEFAULT_KEY_LIMITS.requests_per_day,
};

/** The rate-limit subject of an account's API use: shared by all of its keys, old and new. */
export const accountSubject = (userId: number) => `account:${userId}`;

interface Resolved {
  principal: Principal;
  limits: Limits;
}

type Credential = { kind: 'key' | 'jwt'; value: string };

/**
 * From a credential to its principal and limits: the principal cache first, the database only
 * when the address has failed attempts left; a refusal counts against the address.
 */
function createResolver(deps: AuthDeps) {
  const cached = createPrincipalCache(
    deps.redis,
    deps.redisPrefix,
    deps.principalCacheMax ?? PRINCIPAL_CACHE_MAX,
  );

  /** Runs a database lookup unless the address has used up its failed attempts. */
  const guarded =
    <T>(address: string | undefined, load: () => Promise<T>) =>
    async () => {
      if (address === undefined) return load();
      const state = await deps.failedAuth.blocked(address);
      if (state.blocked) throw throttled(state.retryAfterSeconds);
      return load();
    };

  async function byApiKey(key: string, now: Date, address?: string): Promise<Resolved> {
    if (!API_KEY_PATTERN.test(key)) throw unauthorized();
    // Looked up by SHA-256 of the presented key: timing reveals nothing about stored keys.
    const hash = sha256Hex(key);
    const found = await cached<KeyPrincipal>(
      `key:${hash}`,
      guarded(address, () => deps.accounts.principalByKeyHash(hash)),
    );
    if (found?.key.status !== 'active') throw unauthorized();
    if ((found.key.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY) <= now.getTime())
      throw unauthorized();
    const plan = effectivePlan(found.user, now);
    if (plan !== 'PRO') throw unauthorized();
    return {
      principal: {
        kind: 'api_key',
        user: found.user,
        plan,
        keyId: found.key.id,
        expiresAt: found.key.expiresAt ?? undefined,
      },
      limits: keyLimitsOf(found.key),
    };
  }

  async function byJwt(token: string, now: Date, address?: string): Promise<Resolved> {
    const claims = verifyTokenClaims(token, deps.jwt, now);
    if (claims === undefined) throw unauthorized();
    const user = await cached<UserRow>(
      `user:${claims.userId}`,
      guarded(address, () => deps.accounts.userById(claims.userId)),
    );
    if (!user) throw unauthorized();
    return {
      principal: { kind: 'jwt', user, plan: effectivePlan(user, now), expiresAt: claims.expiresAt },
      limits: JWT_LIMITS,
    };
  }

  /** The limits of the account's API use: those of its active key, or the defaults without one. */
  async function accountLimits(userId: number, address: string): Promise<Limits> {
    const limits = await cached<Limits>(
      `limits:${userId}`,
      guarded(address, async () => {
        const [key] = await deps.accounts.activeKeys(userId);
        return key ? keyLimitsOf(key) : DEFAULT_ACCOUNT_LIMITS;
      }),
    );
    return limits ?? DEFAULT_ACCOUNT_LIMITS;
  }

  /** A refused credential counts against the address; past the limit the answer becomes 429. */
  async function resolve(credential: Credential, now: Date, address: string): Promise<Resolved> {
    try {
      return credential.kind === 'key'
        ? await byApiKey(credential.value, now, address)
        : await byJwt(credential.value, now, address);
    } catch (error) {
      if (!(error instanceof HttpError) || error.status !== 401) throw error;
      const state = await deps.failedAuth.fail(address);
      throw state.blocked ? throttled(state.retryAfterSeconds) : error;
    }
  }

  return { byApiKey, byJwt, accountLimits, resolve };
}

export function createAuth(deps: AuthDeps) {
  const { byApiKey, byJwt, accountLimits, resolve } = createResolver(deps);

  /**
   * Authenticates, applies the rate limit (429 with Retry-After), sets X-RateLimit-* and counts usage.
   * `apiKeyHeader`: the PRO operations, where X-API-Key is accepted and a JWT counts in the
   * account's windows like a key; `apiKey`: whether an API key is accepted at all (account
   * management takes a JWT only).
   */
  function authenticate(
    options: { apiKeyHeader?: boolean; apiKey?: boolean } = {},
  ): RequestHandler {
    const acceptKey = options.apiKey ?? true;
    return async (req, res, next) => {
      const now = deps.clock();
      const address = req.ip ?? 'unknown';
      const headerKey = req.headers['x-api-key'];
      const token = bearer(req);
      let credential: Credential;
      if (typeof headerKey === 'string' && options.apiKeyHeader)
        credential = { kind: 'key', value: headerKey };
      else if (token !== undefined)
        credential = { kind: API_KEY_PATTERN.test(token) ? 'key' : 'jwt', value: token };
      else throw unauthorized();
      if (credential.value.length > MAX_CREDENTIAL_LENGTH) throw unauthorized();
      if (credential.kind === 'key' && !acceptKey) throw unauthorized();

      const resolved = await resolve(credential, now, address);
      const { principal } = resolved;
      let subject = `user:${principal.user.id}`;
      let limits = resolved.limits;
      if (principal.kind === 'api_key') subject = accountSubject(principal.user.id);
      else if (options.apiKeyHeader && planAllows(principal.plan, 'pro_api')) {
        // A JWT on a key route is API use like a key's: same windows, same limits.
        subject = accountSubject(principal.user.id);
        limits = await accountLimits(principal.user.id, address);
      }
      const decision = await deps.rateLimiter.consume(subject, limits);
      res.set(rateLimitHeaders(decision.tightest));
      if (!decision.allowed) throw throttled(decision.retryAfterSeconds);
      if (principal.keyId !== undefined) deps.usage.record(principal.keyId);
      res.locals.principal = principal;
      next();
    };
  }

  /** 403 unless the caller's effective plan has the feature. */
  function requirePlan(feature: keyof PlanFeatures): RequestHandler {
    const message =
      feature === 'pro_api' || feature === 'api_keys'
        ? MESSAGES.proRequired
        : MESSAGES.basicRequired;
    return (_req, res, next) => {
      if (!planAllows(principalOf(res).plan, feature)) throw new HttpError(403, message);
      next();
    };
  }

  /** Signin and signup, per client address: slows password guessing without locking anyone out. */
  function limitAnonymous(limits: Limits): RequestHandler {
    return async (req, res, next) => {
      const decision = await deps.rateLimiter.consume(`ip:${req.ip ?? 'unknown'}`, limits);
      res.set(rateLimitHeaders(decision.tightest));
      if (!decision.allowed) throw throttled(decision.retryAfterSeconds);
      next();
    };
  }

  /**
   * The principal a raw credential (PRO API key or JWT) names, for callers outside Express (the
   * WebSocket). With `address`, a refusal counts as a failed attempt, and an address past its
   * limit gets an HttpError 429 instead of a lookup; without it (re-checks of open connections)
   * nothing is counted.
   */
  async function principalFor(
    credential: string,
    now = new Date(),
    address?: string,
  ): Promise<Principal | undefined> {
    if (credential.length > MAX_CREDENTIAL_LENGTH) return undefined;
    const kind = API_KEY_PATTERN.test(credential) ? 'key' : 'jwt';
    try {
      if (address !== undefined)
        return (await resolve({ kind, value: credential }, now, address)).principal;
      const resolved =
        kind === 'key' ? await byApiKey(credential, now) : await byJwt(credential, now);
      return resolved.principal;
    } catch (error) {
      if (error instanceof HttpError && error.status === 401) return undefined;
      throw error;
    }
  }

  return { authenticate, requirePlan, limitAnonymous, principalFor };
}

export type Auth = ReturnType<typeof createAuth>;
