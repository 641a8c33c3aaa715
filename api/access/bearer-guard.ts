import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { HttpError, MESSAGES } from '../errors.ts';

/** Constant-time comparison of equal-length digests: the time tells nothing about the secret. */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** `Authorization: Bearer <token>` when a token is configured (METRICS_TOKEN); open otherwise. */
export function bearerGuard(token: string | undefined): RequestHandler {
  return (req, _res, next) => {
    if (token === undefined) return next();
    const match = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '');
    if (!match || !sameSecret(match[1]!, token)) {
      throw new HttpError(401, MESSAGES.unauthorized, { 'WWW-Authenticate': 'Bearer' });
    }
    next();
  };
}
