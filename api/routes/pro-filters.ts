import { z } from 'zod';
import type { TokenListQuery } from '../../db/repositories/tokens.ts';
import { addressParam, chainIdParam, integerParam } from '../validation.ts';

/** The PRO list's filters (docs/api.md), shared by the list and the export. */

const MAX_LIST_VALUES = 100;

export const includeFlag = (fallback: boolean) =>
  z
    .enum(['true', 'false'], 'must be true or false')
    .optional()
    .transform((v) => (v === undefined ? fallback : v === 'true'))
    .describe(`default ${fallback}`);

/** The PRO list's filters, shared by the list and the export. */
export function proFilterShape(knownChainIds: ReadonlySet<number>) {
  const split = z
    .string()
    .max(MAX_LIST_VALUES * 50)
    .transform((v) =>
      v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    );
  const list = <T extends z.ZodType<unknown, string>>(item: T, what: string) =>
    split.pipe(
      z
        .array(item)
        .min(1, `must name at least one ${what}`)
        .max(MAX_LIST_VALUES, `at most ${MAX_LIST_VALUES} values`),
    );
  return {
    addresses: list(addressParam, 'address').optional().describe('comma-separated token addresses'),
    chain_ids: list(chainIdParam(knownChainIds), 'chain id')
      .optional()
      .describe('comma-separated chain ids'),
    min_liquidity: z
      .string()
      .regex(/^\d{1,15}(\.\d{1,2})?$/, 'must be a non-negative decimal number')
      .transform(Number)
      .optional()
      .describe('minimum current liquidity in USD'),
    max_risk_score: integerParam(0, 100)
      .optional()
      .describe('maximum current risk score (higher = riskier)'),
  };
}

export type ProFilters = z.output<z.ZodObject<ReturnType<typeof proFilterShape>>>;

export function toProListQuery(filters: ProFilters): Omit<TokenListQuery, 'page' | 'limit'> {
  return {
    addresses: filters.addresses ? [...new Set(filters.addresses)] : undefined,
    chainIds: filters.chain_ids ? [...new Set(filters.chain_ids)] : undefined,
    minLiquidityUsd: filters.min_liquidity,
    maxRiskScore: filters.max_risk_score,
    sort: { field: 'detected_at', direction: 'desc' },
  };
}
