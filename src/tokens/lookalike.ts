/**
 * Look-alike tokens (docs/risk-model.md, "Look-alikes"): a token whose symbol or name is that of a
 * well-known token of its chain (its wrapped native token, its stablecoins, a short list per
 * chain: src/config/chains.ts KNOWN_TOKENS, CHAINS_FILE `known_tokens`) while it lives at another
 * address. Names are compared after folding what makes two strings look alike to a reader: case,
 * spaces and punctuation, Cyrillic and Greek letters that look Latin, full-width forms.
 */

export interface KnownToken {
  symbol: string;
  name: string;
  address: string;
}

export interface Lookalike {
  symbol: string;
  canonical_address: string;
  matched: 'symbol' | 'name';
}

/** Letters other scripts share with Latin capitals and small letters (the usual phishing set). */
const CONFUSABLES: Record<string, string> = {
  А: 'A',
  В: 'B',
  Е: 'E',
  К: 'K',
  М: 'M',
  Н: 'H',
  О: 'O',
  Р: 'P',
  С: 'C',
  Т: 'T',
  У: 'Y',
  Х: 'X',
  Ѕ: 'S',
  І: 'I',
  Ј: 'J',
  а: 'a',
  е: 'e',
  о: 'o',
  р: 'p',
  с: 'c',
  у: 'y',
  х: 'x',
  ѕ: 's',
  і: 'i',
  ј: 'j',
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
  ο: 'o',
  ν: 'v',
  '０': '0',
  Ⅰ: 'I',
};

/** Upper-case letters and digits only, confusables folded (NFKC first: full-width, ligatures). */
export function foldName(value: string): string {
  const normal = value.normalize('NFKC');
  let out = '';
  for (const ch of normal) out += CONFUSABLES[ch] ?? ch;
  return out.toUpperCase().replace(/[^A-Z0-9]/g, '');
}

/** Too short to tell a copy from a coincidence once folded (a name "T" or a symbol "U"). */
const MIN_FOLDED_LENGTH = 3;

/**
 * The well-known token `token` pretends to be, or null: its folded symbol equals a known symbol,
 * or its folded name a known name, and it is not that token (another address).
 */
export function findLookalike(
  token: { address: string; name: string | null; symbol: string | null },
  known: readonly KnownToken[],
): Lookalike | null {
  const address = token.address.toLowerCase();
  if (known.some((k) => k.address.toLowerCase() === address)) return null;
  const symbol = token.symbol === null ? '' : foldName(token.symbol);
  const name = token.name === null ? '' : foldName(token.name);
  for (const k of known) {
    const sameSymbol = symbol.length >= MIN_FOLDED_LENGTH && symbol === foldName(k.symbol);
    const sameName = name.length >= MIN_FOLDED_LENGTH && name === foldName(k.name);
    if (sameSymbol || sameName)
      return {
        symbol: k.symbol,
        canonical_address: k.address.toLowerCase(),
        matched: sameSymbol ? 'symbol' : 'name',
      };
  }
  return null;
}
