import { id } from 'ethers';
import type { CatalogEntry, ExtractedFunction } from '../types.ts';
import { CATALOG_GROUPS, type CatalogGroup } from './data.ts';

/**
 * The admin-function catalog, built once at load time from the signatures of catalog/data.ts:
 * every selector is keccak256(signature)[0..4], computed here, never typed by hand.
 */

const SIGNATURE = /^([A-Za-z_$][A-Za-z0-9_$]*)\((.*)\)$/;

export const selectorOf = (signature: string): string => id(signature).slice(2, 10);

export function buildCatalog(groups: readonly CatalogGroup[]): CatalogEntry[] {
  const bySelector = new Map<string, CatalogEntry>();
  const entries: CatalogEntry[] = [];
  for (const group of groups) {
    for (const item of group.entries) {
      const [signature, risk, description] = typeof item === 'string' ? [item] : item;
      const match = SIGNATURE.exec(signature);
      if (!match || /\s/.test(signature))
        throw new Error(`catalog: malformed signature ${JSON.stringify(signature)}`);
      const entry: CatalogEntry = {
        name: match[1]!,
        signature,
        selector: selectorOf(signature),
        family: group.family,
        risk_level: risk ?? group.risk,
        description: description ?? group.description,
      };
      const clash = bySelector.get(entry.selector);
      // The same selector twice would give one function two meanings: a data error, refused at load.
      if (clash)
        throw new Error(
          `catalog: ${signature} and ${clash.signature} share selector ${entry.selector}`,
        );
      bySelector.set(entry.selector, entry);
      entries.push(entry);
    }
  }
  return entries;
}

export const CATALOG: readonly CatalogEntry[] = Object.freeze(buildCatalog(CATALOG_GROUPS));
const CATALOG_BY_SELECTOR: ReadonlyMap<string, CatalogEntry> = new Map(
  CATALOG.map((e) => [e.selector, e]),
);

export function catalogEntry(selector: string): CatalogEntry | undefined {
  return CATALOG_BY_SELECTOR.get(selector.toLowerCase().replace(/^0x/, ''));
}

/** The catalog entries whose selector the dispatcher has, in the order of `functions`. */
export function matchCatalog(
  functions: readonly Pick<ExtractedFunction, 'selector'>[],
): CatalogEntry[] {
  const matched: CatalogEntry[] = [];
  for (const f of functions) {
    const entry = CATALOG_BY_SELECTOR.get(f.selector);
    if (entry) matched.push(entry);
  }
  return matched;
}
