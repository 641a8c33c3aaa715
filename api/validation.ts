import { z } from 'zod';

/** Request validation at the edge: every query, path and body goes through a zod schema. */

export const addressParam = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address')
  .transform((a) => a.toLowerCase());

/** A decimal integer in a query string: plain digits only (no 1e1, 0x10 or padding). */
export function integerParam(min: number, max: number) {
  return z
    .string()
    .regex(/^\d{1,15}$/, 'must be an integer')
    .transform(Number)
    .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));
}

export function chainIdParam(known: ReadonlySet<number>) {
  return z
    .string()
    .regex(/^\d{1,15}$/, 'must be an integer')
    .transform(Number)
    .refine((id) => known.has(id), { message: 'unknown chain_id' });
}
