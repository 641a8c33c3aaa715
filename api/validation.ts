import { z } from 'zod';
import { HttpError, describeZodError } from './errors.ts';

/** Request validation at the edge: every query, path and body goes through a zod schema. */

export const addressParam = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address')
  .transform((a) => a.toLowerCase());

export function chainIdParam(known: ReadonlySet<number>) {
  return z.coerce
    .number({ error: 'must be an integer' })
    .int('must be an integer')
    .refine((id) => known.has(id), { message: 'unknown chain_id' });
}

export function parseOr400<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw new HttpError(400, describeZodError(result.error));
  return result.data;
}
