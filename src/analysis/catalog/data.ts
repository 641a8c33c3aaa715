import { CONTROL_GROUPS } from './data/control.ts';
import { FEE_GROUPS } from './data/fees.ts';
import { HOLDER_GROUPS } from './data/holders.ts';
import { TRADING_GROUPS } from './data/trading.ts';
import type { CatalogGroup } from './data/types.ts';

export type { CatalogGroup, CatalogItem } from './data/types.ts';

/**
 * The curated catalog of admin and risky functions, one file per concern under catalog-data/
 * (the comment in catalog-data/types.ts says how entries are written). Order matters only for
 * readability: no selector may have two meanings (catalog.test.ts).
 */
export const CATALOG_GROUPS: readonly CatalogGroup[] = [
  ...HOLDER_GROUPS,
  ...FEE_GROUPS,
  ...TRADING_GROUPS,
  ...CONTROL_GROUPS,
];
