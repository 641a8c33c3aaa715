import type { Request, RequestHandler, Response } from 'express';
import type { Redis } from 'ioredis';
import jwt from 'jsonwebtoken';
import type { AccountRepository, KeyPrincipal, UserRow } from '../db/repositories/accounts.ts';
import { authGenerationKey } from '../infra/auth-generation.ts';
import { API_KEY_PATTERN, sha256Hex } from '../src/accounts/credentials.ts';
import { effectivePlan, planAllows, type Plan, type PlanFeatures } from '../src/plans.ts';
import { HttpError, MESSAGES } from './errors.ts';
import { rateLimitHeaders, type Clock, type Limits, type RateLimiter } from './rate-limit.ts';
import type { UsageCounter } from './usage.ts';

/**
 * Credentials (docs/api.md): `Authorization: Bearer <JWT or PRO API key>` everywhere, and
 * `X-API-Key: <PRO API key>` on the PRO operations. JWTs are HS256 only (the algorithm is pinned
 * on verification, so `alg: none` and RS/HS confusion are refused), carry an expiry and an issuer,
 * and name the user; the user's plan is read on every request, so a downgrade takes effect at once.
 * A key authenticates only while it is active, unexpired, and its owner's effective plan is PRO.
 */

export const JWT_ALGORITHM = 'HS256';
export const JWT_ISSUER = 'token-monitor';
export const JWT_TTL_SECONDS = 24 * 3_600;
/** Limits for people behind a JWT (the web app); API keys carry their own (docs/api.md defaults). */
export const JWT_LIMITS: Limits = { perMinute: 60, perHour: 1_000, perDay: 10_000 };
const MAX_CREDENTIAL_LENGTH = 4_096;
/** Looked-up keys and users are reused while the auth generation is unchanged, at most this long. */
const PRINCIPAL_CACHE_TTL_MS = 30_000;
const PRINCIPAL_CACHE_MAX = 10_000;

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
}

export function signToken(user: { id: number; email: string }, config: JwtConfig, now: Date): { token: string; expiresIn: number } {
  const expiresIn = config.ttlSeconds ?? JWT_TTL_SECONDS;
  const iat = Math.floor(now.getTime() / 1000);
  const token = jwt.sign({ sub: String(user.id), email: user.email, iat, exp: iat + expiresIn }, config.secret, { algorithm: JWT_ALGORITHM, issuer: JWT_ISSUER });
  return { token, expiresIn };
}

/** The user id, or undefined for any token that is not ours, valid and current. */
export function verifyToken(token: string, config: JwtConfig, now: Date): number | undefined {
  try {
    const payload = jwt.verify(token, config.secret, {
      algorithms: [JWT_ALGORITHM],
      issuer: JWT_ISSUER,
      clockTimestamp: Math.floor(now.getTime() / 1000),
    });
    if (typeof payload !== 'object' || typeof payload.sub !== 'string' || !/^\d{1,12}$/.test(payload.sub) || typeof payload.exp !== 'number') return undefined;
    return Number(payload.sub);
  } catch {
    return undefined;
  }
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
}

/**
 * A per-process memo of database lookups, valid for one auth generation (infra/auth-generation.ts)
 * and a short TTL. Time-dependent state (an ending trial, an expiring key) is still evaluated on
 * every request against the clock, from the cached rows.
 */
function createPrincipalCache(redis: Redis, prefix: string) {
  const entries = new Map<string, { generation: string; at: number; value: unknown }>();
  const generationKey = authGenerationKey(prefix);
  return async function cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    const generation = (await redis.get(generationKey)) ?? '0';
    const hit = entries.get(key);
    const now = Date.now();
    if (hit && hit.generation === generation && now - hit.at < PRINCIPAL_CACHE_TTL_MS) return hit.value as T;
    const value = await load();
    if (entries.size >= PRINCIPAL_CACHE_MAX) entries.clear();
    entries.set(key, { generation, at: now, value });
    return value;
  };
}

const unauthorized = () => new HttpError(401, MESSAGES.unauthorized, { 'WWW-Authenticate': 'Bearer' });

function bearer(req: Request): string | undefined {
  const header = req.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer ([^\s]+)$/i.exec(header);
  if (!match) throw unauthorized();
  return match[1];
}

export function createAuth(deps: AuthDeps) {
  const cached = createPrincipalCache(deps.redis, deps.redisPrefix);

  async function byApiKey(key: string, now: Date): Promise<{ principal: Principal; limits: Limits }> {
    if (!API_KEY_PATTERN.test(key)) throw unauthorized();
    // Looked up by SHA-256 of the presented key: timing reveals nothing about stored keys.
    const hash = sha256Hex(key);
    const found = await cached<KeyPrincipal | undefined>(`key:${hash}`, () => deps.accounts.principalByKeyHash(hash));
    if (found?.key.status !== 'active') throw unauthorized();
    if ((found.key.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY) <= now.getTime()) throw unauthorized();
    const plan = effectivePlan(found.user, now);
    if (plan !== 'PRO') throw unauthorized();
    return {
      principal: { kind: 'api_key', user: found.user, plan, keyId: found.key.id },
      limits: { perMinute: found.key.requestsPerMinute, perHour: found.key.requestsPerHour, perDay: found.key.requestsPerDay },
    };
  }

  async function byJwt(token: string, now: Date): Promise<{ principal: Principal; limits: Limits }> {
    const userId = verifyToken(token, deps.jwt, now);
    if (userId === undefined) throw unauthorized();
    const user = await cached<UserRow | undefined>(`user:${userId}`, () => deps.accounts.userById(userId));
    if (!user) throw unauthorized();
    return { principal: { kind: 'jwt', user, plan: effectivePlan(user, now) }, limits: JWT_LIMITS };
  }

  /**
   * Authenticates, applies the rate limit (429 with Retry-After), sets X-RateLimit-* and counts usage.
   * `apiKeyHeader`: whether X-API-Key is accepted (the PRO operations); `apiKey`: whether an API
   * key is accepted at all (account management takes a JWT only).
   */
  function authenticate(options: { apiKeyHeader?: boolean; apiKey?: boolean } = {}): RequestHandler {
    const acceptKey = options.apiKey ?? true;
    return async (req, res, next) => {
      const now = deps.clock();
      const headerKey = req.headers['x-api-key'];
      const token = bearer(req);
      let credential: { kind: 'key' | 'jwt'; value: string };
      if (typeof headerKey === 'string' && options.apiKeyHeader) credential = { kind: 'key', value: headerKey };
      else if (token !== undefined) credential = { kind: API_KEY_PATTERN.test(token) ? 'key' : 'jwt', value: token };
      else throw unauthorized();
      if (credential.value.length > MAX_CREDENTIAL_LENGTH) throw unauthorized();
      if (credential.kind === 'key' && !acceptKey) throw unauthorized();

      const { principal, limits } = credential.kind === 'key' ? await byApiKey(credential.value, now) : await byJwt(credential.value, now);
      const subject = principal.keyId !== undefined ? `key:${principal.keyId}` : `user:${principal.user.id}`;
      const decision = await deps.rateLimiter.consume(subject, limits);
      res.set(rateLimitHeaders(decision.tightest));
      if (!decision.allowed) throw new HttpError(429, MESSAGES.rateLimited, { 'Retry-After': String(decision.retryAfterSeconds) });
      if (principal.keyId !== undefined) deps.usage.record(principal.keyId);
      res.locals.principal = principal;
      next();
    };
  }

  /** 403 unless the caller's effective plan has the feature. */
  function requirePlan(feature: keyof PlanFeatures): RequestHandler {
    const message = feature === 'pro_api' || feature === 'api_keys' ? MESSAGES.proRequired : MESSAGES.basicRequired;
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
      if (!decision.allowed) throw new HttpError(429, MESSAGES.rateLimited, { 'Retry-After': String(decision.retryAfterSeconds) });
      next();
    };
  }

  /** The principal a raw credential (PRO API key or JWT) names, for callers outside Express (the WebSocket). */
  async function principalFor(credential: string, now = new Date()): Promise<Principal | undefined> {
    try {
      const { principal } = API_KEY_PATTERN.test(credential) ? await byApiKey(credential, now) : await byJwt(credential, now);
      return principal;
    } catch {
      return undefined;
    }
  }

  return { authenticate, requirePlan, limitAnonymous, principalFor };
}

export type Auth = ReturnType<typeof createAuth>;
