import type { AdminFamily, FunctionRisk } from '../../types.ts';

/**
 * The curated catalog of admin and risky functions, as signatures only: selectors are computed
 * from them at load time (catalog.ts), never typed by hand. Groups share a family, a default
 * risk level and a description; an entry may override either as [signature, risk, description].
 * Sources: OpenZeppelin (Ownable, AccessControl, Pausable, ERC20Burnable, proxies), Tether/USDC
 * style admin functions, and the launch-pad templates behind most mainnet tax and scam tokens
 * (SafeMoon/RFI forks, "openTrading/manualswap" stealth launches, DividendTracker tokens).
 */

export type CatalogItem =
  | string
  | readonly [signature: string, risk?: FunctionRisk, description?: string];

export interface CatalogGroup {
  family: AdminFamily;
  risk: FunctionRisk;
  description: string;
  entries: readonly CatalogItem[];
}
