export { type Auth, createAuth, type JwtConfig, principalOf, signToken } from './auth.ts';
export {
  createFailedAuthThrottle,
  FAILED_AUTH_LIMIT,
  type FailedAuthThrottle,
} from './auth-throttle.ts';
export { bearerGuard, sameSecret } from './bearer-guard.ts';
export { clientAddressOf, parseTrustProxy, type TrustProxy } from './client-address.ts';
export { type Clock, createRateLimiter, type Limits } from './rate-limit.ts';
export { createUsageCounter, type UsageCounter } from './usage.ts';
