import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { oneOf, RISK_LEVELS, tokens, type LiveEvent, type RiskLevel, type TokenListItem } from '../api.ts';
import { Empty, Failure, Loading, RiskBadge } from '../components.tsx';
import { CHAINS, age, chainName, usd } from '../format.ts';
import { POLL_INTERVAL_MS, useLiveEvents, useLiveStatus } from '../live.ts';
import { session } from '../session.ts';

/**
 * The live feed: the newest tokens, then every token.created / token.updated / alert / removed
 * event applied in place. Without a live connection the list is polled (the status bar says why).
 */

const FEED_SIZE = 50;
const NEW_ROW_HIGHLIGHT_MS = 4_000;

export interface FeedRow extends TokenListItem {
  alert?: string | null;
  arrivedAt?: number;
}

const keyOf = (t: { chain_id: number; contract_address: string }) => `${t.chain_id}:${t.contract_address.toLowerCase()}`;

function FeedTable(props: { shown: FeedRow[]; riskVisible: boolean; paused: boolean }) {
  const { shown, riskVisible, paused } = props;
  return (
    <table class="rows feed" aria-describedby="feed-title">
      <thead>
        <tr><th scope="col">Token</th><th scope="col">Chain</th><th scope="col">Age</th><th scope="col">Risk</th><th scope="col">Liquidity</th><th scope="col">Verdict</th></tr>
      </thead>
      <tbody aria-live={paused ? 'off' : 'polite'} aria-relevant="additions">
        {shown.map((row) => (
          <tr key={keyOf(row)} class={row.arrivedAt && Date.now() - row.arrivedAt < NEW_ROW_HIGHLIGHT_MS ? 'row-new' : undefined} data-address={row.contract_address}>
            <td data-label="Token">
              <Link href={`/token/${row.chain_id}/${row.contract_address}`} class="token-link">
                <strong>{row.name ?? 'Unnamed'}</strong> <span class="muted">{row.symbol ?? '?'}</span>
              </Link>
              {row.alert && <span class="alert-tag" role="note">⚠ {row.alert}</span>}
            </td>
            <td data-label="Chain">{chainName(row.chain_id)}</td>
            <td data-label="Age"><time dateTime={row.detected_at ?? undefined}>{age(row.detected_at)}</time></td>
            <td data-label="Risk"><RiskBadge score={row.current_risk_score} level={row.current_risk_level} hidden={!riskVisible} /></td>
            <td data-label="Liquidity">{usd(row.current_liquidity_usd)}</td>
            <td data-label="Verdict"><Verdict row={row} riskVisible={riskVisible} /></td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function applyEvent(rows: Map<string, FeedRow>, event: LiveEvent): Map<string, FeedRow> {
  const next = new Map(rows);
  const key = keyOf(event.data);
  const existing = next.get(key);
  const d = event.data as Record<string, unknown>;
  if (event.type === 'token.removed') {
    next.delete(key);
  } else if (event.type === 'alert') {
    if (existing) next.set(key, { ...existing, alert: typeof d.message === 'string' ? d.message : 'Alert' });
  } else {
    const patch: Partial<FeedRow> = {};
    // Events carry the name and symbol under full_token_data.token (older ones at the top).
    const meta = (d.full_token_data as { token?: { name?: unknown; symbol?: unknown } } | undefined)?.token;
    if (typeof meta?.name === 'string') patch.name = meta.name;
    if (typeof meta?.symbol === 'string') patch.symbol = meta.symbol;
    for (const field of ['name', 'symbol', 'current_risk_score', 'current_risk_level', 'current_liquidity_usd', 'is_honeypot', 'detected_at'] as const) {
      if (field in d) (patch as Record<string, unknown>)[field] = d[field];
    }
    next.set(key, {
      contract_address: event.data.contract_address.toLowerCase(), chain_id: event.data.chain_id, name: null, symbol: null,
      current_risk_score: null, current_risk_level: null, current_liquidity_usd: null, is_actively_traded: null, detected_at: event.ts,
      ...existing, ...patch, arrivedAt: existing?.arrivedAt ?? (event.type === 'token.created' ? Date.now() : undefined),
    });
  }
  return next;
}

function Verdict(props: { row: FeedRow; riskVisible: boolean }) {
  if (!props.riskVisible) return <span class="muted">BASIC</span>;
  const { row } = props;
  if (row.is_honeypot === true || row.current_risk_level === 'honeypot') return <span class="verdict verdict-bad">Honeypot</span>;
  if (row.current_risk_score === null || row.current_risk_score === undefined) return <span class="verdict verdict-unknown">Pending</span>;
  // Without a pool nothing could be sold or simulated: no verdict yet rather than a false "sellable".
  if (!row.current_liquidity_usd) return <span class="verdict verdict-unknown">No pool yet</span>;
  return <span class="verdict verdict-ok">Sellable</span>;
}

export function Feed() {
  const plan = session.get()?.user.plan ?? 'FREE';
  const riskVisible = plan !== 'FREE';
  const live = useLiveStatus();
  const [chain, setChain] = useState('');
  const [level, setLevel] = useState<RiskLevel | ''>('');
  const [paused, setPaused] = useState(false);
  const [rows, setRows] = useState<Map<string, FeedRow>>(new Map());
  const [frozen, setFrozen] = useState<FeedRow[] | null>(null);
  const [missed, setMissed] = useState(0);
  const [, setTick] = useState(0);
  const pausedRef = useRef(paused);
  pausedRef.current = paused;

  const polling = live.mode !== 'live';
  const query = useQuery({
    queryKey: ['feed', chain, riskVisible ? level : ''],
    queryFn: () => tokens.list({ limit: FEED_SIZE, chain_id: chain ? Number(chain) : undefined, risk_level: riskVisible && level ? level : undefined }),
    refetchInterval: polling && !paused ? POLL_INTERVAL_MS : false,
  });

  // The list answer is the base; live rows the API has not listed yet stay on top of it.
  useEffect(() => {
    if (!query.data) return;
    setRows((previous) => {
      const next = new Map<string, FeedRow>();
      for (const item of query.data.items) {
        const old = previous.get(keyOf(item));
        next.set(keyOf(item), { ...item, alert: old?.alert, arrivedAt: old?.arrivedAt });
      }
      for (const [key, row] of previous) if (!next.has(key) && row.arrivedAt) next.set(key, row);
      return next;
    });
  }, [query.data]);

  useLiveEvents(useCallback((event: LiveEvent) => {
    if (pausedRef.current) setMissed((n) => n + 1);
    setRows((previous) => applyEvent(previous, event));
  }, []));

  // Ages tick once a second.
  useEffect(() => {
    const timer = setInterval(() => setTick((n) => n + 1), 1000);
    return () => clearInterval(timer);
  }, []);

  const visible = useMemo(() => {
    const list = [...rows.values()].filter((r) => (!chain || r.chain_id === Number(chain)) && (!level || r.current_risk_level === level));
    list.sort((a, b) => (b.detected_at ?? '').localeCompare(a.detected_at ?? ''));
    return list.slice(0, FEED_SIZE);
  }, [rows, chain, level]);
  const shown = paused && frozen ? frozen : visible;

  const togglePause = () => {
    if (paused) {
      setFrozen(null);
      setMissed(0);
    } else {
      setFrozen(visible);
    }
    setPaused(!paused);
  };

  return (
    <section aria-labelledby="feed-title">
      <div class="page-head">
        <h1 id="feed-title">Live feed</h1>
        <p class="muted">New tokens as the chains produce them, with their risk verdicts.</p>
      </div>
      {!riskVisible && <p class="note">Your FREE plan shows new tokens without their risk. <strong>BASIC shows the risk score</strong>, the honeypot verdict and live updates. <Link href="/settings">See plans</Link></p>}
      <div class="toolbar" role="group" aria-label="Feed filters">
        <label>Chain
          <select value={chain} onChange={(e) => setChain(e.currentTarget.value)}>
            <option value="">All chains</option>
            {Object.entries(CHAINS).map(([id, name]) => <option key={id} value={id}>{name}</option>)}
          </select>
        </label>
        <label>Risk level
          <select value={level} onChange={(e) => setLevel(oneOf(RISK_LEVELS, e.currentTarget.value) ?? '')} disabled={!riskVisible} title={riskVisible ? undefined : 'BASIC filters by risk'}>
            <option value="">Any risk</option>
            {RISK_LEVELS.map((l) => <option key={l} value={l}>{l}</option>)}
          </select>
        </label>
        <button type="button" onClick={togglePause} aria-pressed={paused}>
          {paused ? `Resume${missed > 0 ? ` (${missed} new)` : ''}` : 'Pause'}
        </button>
      </div>
      {query.isPending && rows.size === 0 ? <Loading what="the newest tokens" />
        : query.isError && rows.size === 0 ? <Failure error={query.error} what="the feed" retry={() => void query.refetch()} />
        : shown.length === 0 ? (
          <Empty>
            <p>No tokens {chain || level ? 'match these filters' : 'detected yet'}.</p>
            <p class="muted">New deployments appear here within seconds of their block.</p>
          </Empty>
        ) : (
          <>
            {query.isError && <Failure error={query.error} what="the newest tokens" />}
            <FeedTable shown={shown} riskVisible={riskVisible} paused={paused} />
          </>
        )}
    </section>
  );
}
