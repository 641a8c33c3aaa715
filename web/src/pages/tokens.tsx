import { useEffect, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useLocation, useSearch } from 'wouter';
import { oneOf, RISK_LEVELS, type TokenFilters, type TokenListItem, tokens } from '../api.ts';
import { Empty, Failure, Loading, RiskBadge } from '../components.tsx';
import { CHAINS, age, chainName, usd } from '../format.ts';
import { session } from '../session.ts';

/** Every filter of GET /api/tokens, with search and pages, kept in the URL so a view can be shared. */

const PAGE_SIZE = 25;
type Sort = NonNullable<TokenFilters['sort']>;
const SORTS: [Sort, string][] = [
  ['-detected_at', 'Newest first'], ['detected_at', 'Oldest first'], ['-current_liquidity_usd', 'Most liquidity'],
  ['-current_risk_score', 'Riskiest first'], ['current_risk_score', 'Safest first'],
];
const RISK_ONLY = new Set(['risk_level', 'is_honeypot']);

function filtersOf(search: string, riskVisible: boolean): TokenFilters {
  const p = new URLSearchParams(search);
  const int = (name: string) => {
    const v = Number(p.get(name));
    return Number.isInteger(v) && v > 0 ? v : undefined;
  };
  const sort = SORTS.find(([v]) => v === p.get('sort'))?.[0];
  return {
    page: int('page') ?? 1,
    limit: PAGE_SIZE,
    chain_id: int('chain_id'),
    q: p.get('q')?.trim() || undefined,
    risk_level: riskVisible ? (oneOf(RISK_LEVELS, p.get('risk_level')) ?? undefined) : undefined,
    is_honeypot: riskVisible && p.has('is_honeypot') ? p.get('is_honeypot') === 'true' : undefined,
    min_liquidity_usd: Number(p.get('min_liquidity_usd')) > 0 ? Number(p.get('min_liquidity_usd')) : undefined,
    sort: sort && (riskVisible || !sort.includes('risk')) ? sort : undefined,
  };
}

function TokenTable(props: { items: TokenListItem[]; riskVisible: boolean }) {
  const { items, riskVisible } = props;
  return (
    <table class="rows">
      <thead><tr><th scope="col">Token</th><th scope="col">Chain</th><th scope="col">Detected</th><th scope="col">Risk</th><th scope="col">Liquidity</th><th scope="col">Traded</th></tr></thead>
      <tbody>
        {items.map((t) => (
          <tr key={`${t.chain_id}:${t.contract_address}`}>
            <td data-label="Token"><Link href={`/token/${t.chain_id}/${t.contract_address}`} class="token-link"><strong>{t.name ?? 'Unnamed'}</strong> <span class="muted">{t.symbol ?? '?'}</span></Link></td>
            <td data-label="Chain">{chainName(t.chain_id)}</td>
            <td data-label="Detected">{age(t.detected_at)} ago</td>
            <td data-label="Risk"><RiskBadge score={t.current_risk_score} level={t.current_risk_level} hidden={!riskVisible} /></td>
            <td data-label="Liquidity">{usd(t.current_liquidity_usd)}</td>
            <td data-label="Traded">{t.is_actively_traded === null ? '—' : t.is_actively_traded ? 'yes' : 'no'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function Tokens() {
  const riskVisible = (session.get()?.user.plan ?? 'FREE') !== 'FREE';
  const search = useSearch();
  const [location, navigate] = useLocation();
  const filters = filtersOf(search, riskVisible);
  const [q, setQ] = useState(filters.q ?? '');
  useEffect(() => setQ(filters.q ?? ''), [filters.q]);

  const query = useQuery({ queryKey: ['tokens', filters], queryFn: () => tokens.list(filters), placeholderData: keepPreviousData });

  const update = (changes: Record<string, string | undefined>) => {
    const p = new URLSearchParams(search);
    for (const [k, v] of Object.entries(changes)) if (v) p.set(k, v); else p.delete(k);
    if (!('page' in changes)) p.delete('page');
    for (const k of RISK_ONLY) if (!riskVisible) p.delete(k);
    const text = p.toString();
    navigate(`${location}${text ? `?${text}` : ''}`);
  };

  const pages = query.data ? Math.max(1, Math.ceil(query.data.total / PAGE_SIZE)) : 1;
  const page = filters.page ?? 1;
  return (
    <section aria-labelledby="tokens-title">
      <div class="page-head">
        <h1 id="tokens-title">Tokens</h1>
        <p class="muted">Search and filter every detected token. The address bar keeps the view, so it can be shared.</p>
      </div>
      <form class="toolbar" role="search" onSubmit={(e) => { e.preventDefault(); update({ q: q.trim() || undefined }); }}>
        <label>Search
          <input type="search" value={q} placeholder="Name, symbol or 0x…" onInput={(e) => setQ(e.currentTarget.value)} maxLength={64} />
        </label>
        <button type="submit">Search</button>
        <label>Chain
          <select value={filters.chain_id ?? ''} onChange={(e) => update({ chain_id: e.currentTarget.value || undefined })}>
            <option value="">All chains</option>
            {Object.entries(CHAINS).map(([id, name]) => <option key={id} value={id}>{name}</option>)}
          </select>
        </label>
        <label>Risk level
          <select value={filters.risk_level ?? ''} disabled={!riskVisible} onChange={(e) => update({ risk_level: e.currentTarget.value || undefined })}>
            <option value="">Any risk</option>
            {['low', 'medium', 'high', 'honeypot'].map((l) => <option key={l} value={l}>{l}</option>)}
          </select>
        </label>
        <label>Honeypots
          <select value={filters.is_honeypot === undefined ? '' : String(filters.is_honeypot)} disabled={!riskVisible} onChange={(e) => update({ is_honeypot: e.currentTarget.value || undefined })}>
            <option value="">Include</option>
            <option value="true">Only honeypots</option>
            <option value="false">Exclude honeypots</option>
          </select>
        </label>
        <label>Min. liquidity (USD)
          <input type="number" min="0" step="100" value={filters.min_liquidity_usd ?? ''} onChange={(e) => update({ min_liquidity_usd: e.currentTarget.value || undefined })} />
        </label>
        <label>Sort
          <select value={filters.sort ?? '-detected_at'} onChange={(e) => update({ sort: e.currentTarget.value === '-detected_at' ? undefined : e.currentTarget.value })}>
            {SORTS.filter(([v]) => riskVisible || !v.includes('risk')).map(([v, label]) => <option key={v} value={v}>{label}</option>)}
          </select>
        </label>
      </form>
      {!riskVisible && <p class="note">BASIC shows the risk score and filters by risk.</p>}
      {query.isPending ? <Loading what="tokens" />
        : query.isError ? <Failure error={query.error} what="the token list" retry={() => void query.refetch()} />
        : query.data.items.length === 0 ? <Empty><p>No token matches these filters.</p></Empty>
        : (
          <>
            <p class="muted" role="status">{query.data.total} token{query.data.total === 1 ? '' : 's'}</p>
            <TokenTable items={query.data.items} riskVisible={riskVisible} />
            <nav class="pager" aria-label="Pages">
              <button type="button" disabled={page <= 1} onClick={() => update({ page: String(page - 1) })}>Previous</button>
              <span>Page {page} of {pages}</span>
              <button type="button" disabled={page >= pages} onClick={() => update({ page: String(page + 1) })}>Next</button>
            </nav>
          </>
        )}
    </section>
  );
}
