/**
 * A block explorer speaking the Etherscan API (`module=contract&action=getsourcecode`), configured
 * per chain (`explorer_api_url` in CHAINS_FILE, or EXPLORER_API_URL_<chain_id>). It answers one
 * question: did the explorer verify this contract's source? `security_hints.verified_contract` is
 * true only on its yes (docs/api.md, "verified_contract").
 */

const EXPLORER_TIMEOUT_MS = 5_000;

export interface ExplorerConfig {
  url: string;
  apiKey?: string;
}

interface SourceCodeAnswer {
  status?: string;
  message?: string;
  result?: { SourceCode?: unknown; ABI?: unknown }[] | string;
}

/**
 * true: verified source; false: the explorer knows the address and has no source; null: no
 * answer worth trusting (network error, rate limit, malformed reply), so a caller keeps what it knew.
 */
export async function verifiedSource(
  config: ExplorerConfig,
  address: string,
  fetchImpl: typeof fetch = fetch,
): Promise<boolean | null> {
  const url = new URL(config.url);
  url.searchParams.set('module', 'contract');
  url.searchParams.set('action', 'getsourcecode');
  url.searchParams.set('address', address);
  if (config.apiKey) url.searchParams.set('apikey', config.apiKey);
  try {
    const response = await fetchImpl(url, { signal: AbortSignal.timeout(EXPLORER_TIMEOUT_MS) });
    if (!response.ok) return null;
    const body = (await response.json()) as SourceCodeAnswer;
    // Etherscan answers status "0" with a string result for errors (rate limits, bad keys).
    if (!Array.isArray(body.result) || body.result.length === 0) return null;
    const source = body.result[0]!.SourceCode;
    return typeof source === 'string' && source.trim().length > 0;
  } catch {
    return null;
  }
}
