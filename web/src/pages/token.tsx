import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { ApiError, creators, tokens, watchlist, type LiveEvent, type RiskFactorDetail, type TokenDetail } from '../api.ts';
import { CopyButton, Failure, Flag, Loading, Locked, RiskBadge, Verdict } from '../components.tsx';
import { chainName, dateTime, pct, shortAddress, usd } from '../format.ts';
import { useLiveEvents } from '../live.ts';
import { HoldersPanel } from './holders.tsx';
import { session } from '../session.ts';
import { HookReport, MainPool } from './token-pool.tsx';

/**
 * The token page: verdict and score, every factor with its evidence, the admin functions, the
 * trade simulation, the chart, market and LP lock, and the creator. Live events for this token
 * refetch it in place.
 */

const HistoryChart = lazy(() => import('./chart.tsx'));
const REFRESH_COOLDOWN_S = 10;

/** Which risk factors explain a flag: matched on the factor codes of the risk model (docs/risk-model.md). */
const FLAGS: [keyof NonNullable<TokenDetail['security_hints']>, string, 'true' | 'false', RegExp][] = [
  ['ownership_renounced', 'Ownership renounced', 'true', /renounce/],
  ['hidden_owner', 'Hidden owner', 'false', /hidden-owner/],
  ['has_mint_function', 'Owner can mint', 'false', /mint/],
  ['has_blacklist_function', 'Owner can blacklist', 'false', /blacklist/],
  ['has_pause_function', 'Owner can pause trading', 'false', /pause/],
  ['fee_modifiable', 'Owner can change fees', 'false', /fee|tax/],
  ['has_max_tx_limit', 'Max transaction limit', 'false', /max-tx|max_tx|limit/],
  ['trading_restricted', 'Trading restricted', 'false', /trading|not-buyable/],
  ['owner_can_change_balance', 'Owner can change balances', 'false', /balance/],
  ['is_proxy', 'Upgradeable proxy', 'false', /proxy/],
];

/** before → after figures of a proof, as "holder_balance 1000 → 0". */
function proofFigures(proof: NonNullable<RiskFactorDetail['proof']>): string | null {
  const keys = Object.keys({ ...proof.before, ...proof.after });
  if (keys.length === 0) return null;
  return keys.map((k) => `${k} ${proof.before?.[k] ?? '—'} → ${proof.after?.[k] ?? '—'}`).join('; ');
}

function Evidence(props: { factor: RiskFactorDetail }) {
  const { proof } = props.factor;
  if (props.factor.evidence.length === 0 && !proof) return null;
  const figures = proof ? proofFigures(proof) : null;
  return (
    <ul class="evidence">
      {props.factor.evidence.map((e, i) => (
        <li key={i}><span class="kind">{e.kind ?? 'observed'}</span> {e.detail}{e.selector ? <code> 0x{e.selector.replace(/^0x/, '')}</code> : null}</li>
      ))}
      {proof && (
        <li class="proof"><span class="kind">{proof.status}</span> {proof.detail}{figures ? ` (${figures})` : null}</li>
      )}
    </ul>
  );
}

function HoneypotEvidence(props: { token: TokenDetail; factors: RiskFactorDetail[] }) {
  const { token } = props;
  const honeypot = token.is_honeypot === true || token.current_risk_level === 'honeypot';
  if (!honeypot) return null;
  const factor = props.factors.find((f) => f.code === 'honeypot');
  return (
    <div class="callout callout-bad" role="note" aria-labelledby="honeypot-title">
      <h2 id="honeypot-title">Honeypot: buyers cannot sell</h2>
      <p>{factor?.message ?? 'The simulated sell failed: tokens bought cannot be sold back.'}</p>
      {factor && <Evidence factor={factor} />}
      {token.trading_simulation?.error && <p class="muted">Simulation: {token.trading_simulation.error}</p>}
    </div>
  );
}

function Simulation(props: { token: TokenDetail }) {
  const sim = props.token.trading_simulation;
  if (!sim) return <p class="muted">Not simulated yet: trades are simulated once the token has liquidity.</p>;
  const yesNo = (v: boolean | null) => (v === null ? 'unknown' : v ? 'yes' : 'no');
  return (
    <dl class="facts">
      <div><dt>Buy</dt><dd>{yesNo(sim.is_buyable)}</dd></div>
      <div><dt>Sell</dt><dd class={sim.is_sellable === false ? 'bad' : undefined}>{sim.is_sellable === false ? 'fails' : yesNo(sim.is_sellable)}</dd></div>
      <div><dt>Buy tax</dt><dd>{pct(sim.buy_tax_pct)}</dd></div>
      <div><dt>Sell tax</dt><dd>{pct(sim.sell_tax_pct)}</dd></div>
      <div><dt>Transfer tax</dt><dd>{pct(sim.transfer_tax_pct)}</dd></div>
      <div><dt>Max tx</dt><dd>{sim.max_tx_amount ?? 'none found'}</dd></div>
      <div><dt>Honeypot</dt><dd><Verdict isHoneypot={props.token.is_honeypot} level={props.token.current_risk_level} sellable={sim.is_sellable} /></dd></div>
      <div><dt>Simulated</dt><dd>{dateTime(sim.simulated_at)}</dd></div>
      {sim.error && <div class="wide"><dt>Note</dt><dd>{sim.error}</dd></div>}
    </dl>
  );
}

function CreatorCard(props: { chainId: number; address: string | null; allowed: boolean }) {
  const query = useQuery({
    queryKey: ['creator', props.chainId, props.address],
    queryFn: () => creators.detail(props.chainId, props.address!),
    enabled: props.allowed && !!props.address,
  });
  if (!props.address) return <p class="muted">Creator not known yet.</p>;
  const link = <Link href={`/creator/${props.chainId}/${props.address}`}>{shortAddress(props.address)}</Link>;
  if (!props.allowed) return <p>Deployed by <code>{shortAddress(props.address)}</code>. <span class="muted">BASIC shows the creator’s record.</span></p>;
  if (query.isPending) return <p>Deployed by {link}. <Loading what="their record" /></p>;
  if (query.isError) return <p>Deployed by {link}. <span class="muted">{query.error instanceof ApiError && query.error.status === 404 ? 'No record yet.' : 'Record unavailable right now.'}</span></p>;
  const c = query.data;
  return (
    <dl class="facts">
      <div class="wide"><dt>Creator</dt><dd>{link}</dd></div>
      <div><dt>Reputation</dt><dd>{c.reputation_score ?? '—'}/100</dd></div>
      <div><dt>Tokens</dt><dd>{c.total_tokens ?? '—'}</dd></div>
      <div><dt>Success rate</dt><dd>{pct(c.success_rate)}</dd></div>
      <div><dt>Scam rate</dt><dd class={(c.scam_rate ?? 0) > 0 ? 'bad' : undefined}>{pct(c.scam_rate)}</dd></div>
    </dl>
  );
}

function Actions(props: { token: TokenDetail; allowed: boolean }) {
  const { token } = props;
  const client = useQueryClient();
  const [cooldown, setCooldown] = useState(0);
  const [message, setMessage] = useState<string | null>(null);
  const list = useQuery({ queryKey: ['watchlist'], queryFn: watchlist.list, enabled: props.allowed });
  const watching = list.data?.items.some((w) => w.chain_id === token.chain_id && w.contract_address === token.contract_address) ?? false;
  const toggle = useMutation({
    mutationFn: async () => {
      if (watching) await watchlist.remove(token.chain_id, token.contract_address);
      else await watchlist.add(token.chain_id, token.contract_address);
    },
    onSuccess: () => {
      setMessage(watching ? 'Removed from your watchlist.' : 'Added to your watchlist.');
      return client.invalidateQueries({ queryKey: ['watchlist'] });
    },
    onError: (e) => setMessage(e instanceof ApiError && e.status === 409 ? 'Already in your watchlist.' : 'The watchlist could not be changed. Try again.'),
  });
  useEffect(() => {
    if (cooldown <= 0) return;
    const timer = setTimeout(() => setCooldown((s) => s - 1), 1000);
    return () => clearTimeout(timer);
  }, [cooldown]);
  const refresh = async () => {
    try {
      await tokens.refresh(token.chain_id, token.contract_address);
      setMessage('Refresh queued: the analysis runs again now.');
      setCooldown(REFRESH_COOLDOWN_S);
    } catch (e) {
      if (e instanceof ApiError && e.status === 429) {
        setCooldown(e.retryAfter ?? REFRESH_COOLDOWN_S);
        setMessage('Refreshed moments ago: a token can be refreshed once every 10 seconds.');
      } else setMessage('The refresh could not be queued. Try again shortly.');
    }
  };
  if (!props.allowed) return <p class="muted">BASIC adds watching and manual refresh.</p>;
  return (
    <div class="actions">
      <button type="button" onClick={() => toggle.mutate()} disabled={toggle.isPending || list.isPending} aria-pressed={watching}>
        {watching ? 'Unwatch' : 'Watch'}
      </button>
      <button type="button" onClick={refresh} disabled={cooldown > 0}>{cooldown > 0 ? `Refresh (${cooldown}s)` : 'Refresh'}</button>
      <p class="muted small-text" role="status">{message}</p>
    </div>
  );
}

function WhyThisScore(props: { t: TokenDetail }) {
  const latest = props.t.analyses[0] ?? null;
  const factors = latest?.risk_factor_details ?? [];
  return (
    <section class="panel" aria-labelledby="why-title">
      <h2 id="why-title">Why this score</h2>
      {factors.length === 0 ? <p class="muted">{latest ? 'No risk factor found.' : 'The analysis has not finished yet.'}</p> : (
        <ol class="factors">
          {factors.map((f, i) => (
            <li key={`${f.code}-${i}`} class={`sev-${f.severity ?? 'info'}`}>
              <p><span class={`chip chip-${f.severity ?? 'info'}`}>{f.severity ?? 'info'}</span> {f.message} {f.points !== null && <span class="muted">({f.points > 0 ? '+' : ''}{f.points})</span>}</p>
              <Evidence factor={f} />
            </li>
          ))}
        </ol>
      )}
      {latest && latest.actionable_insights.length > 0 && (
        <><h3>What to do</h3><ul>{latest.actionable_insights.map((s) => <li key={s}>{s}</li>)}</ul></>
      )}
    </section>
  );
}

function Capabilities(props: { t: TokenDetail }) {
  const latest = props.t.analyses[0] ?? null;
  const factors = latest?.risk_factor_details ?? [];
  const hints = props.t.security_hints;
  return (
    <section class="panel" aria-labelledby="flags-title">
      <h2 id="flags-title">Contract capabilities</h2>
      {!hints ? <p class="muted">The contract has not been analysed yet.</p> : (
        <table class="flags">
          <thead><tr><th scope="col">Capability</th><th scope="col">Found</th><th scope="col">Evidence</th></tr></thead>
          <tbody>
            {FLAGS.map(([field, label, good, pattern]) => {
              const factor = factors.find((f) => pattern.test(f.code));
              return (
                <tr key={field}>
                  <th scope="row">{label}</th>
                  <td><Flag value={hints[field] as boolean | null} good={good} /></td>
                  <td>{factor?.evidence[0]?.detail ?? <span class="muted">—</span>}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <h3>Admin functions</h3>
      {!hints || hints.admin_functions.length === 0 ? <p class="muted">{hints ? 'No privileged function found.' : 'Not analysed yet.'}</p> : (
        <div class="scroll">
          <table class="admin">
            <thead><tr><th scope="col">Function</th><th scope="col">Selector</th><th scope="col">Who can call</th><th scope="col">Risk</th><th scope="col">What it does</th></tr></thead>
            <tbody>
              {hints.admin_functions.map((f, i) => (
                <tr key={`${f.selector}-${i}`}>
                  <td><code>{f.name ?? '?'}</code></td><td><code>{f.selector ? `0x${f.selector.replace(/^0x/, '')}` : '—'}</code></td>
                  <td>{f.access_control ?? '—'}</td><td>{f.risk_level ?? '—'}</td><td>{f.description ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** Simulation, market, chart, creator, creation facts and alerts. */
function Details(props: { t: TokenDetail; basic: boolean }) {
  const { t, basic } = props;
  const latest = t.analyses[0] ?? null;
  return (
    <>
    <div class="grid-2">
      <section class="panel" aria-labelledby="sim-title">
        <h2 id="sim-title">Trade simulation</h2>
        {basic ? <Simulation token={t} /> : <Locked feature="The simulated buy, sell and transfer" plan="BASIC" />}
        {basic && <HookReport hook={t.trading_simulation?.hook ?? null} />}
      </section>
      <section class="panel" aria-labelledby="market-title">
        <h2 id="market-title">Market</h2>
        <dl class="facts">
          <div><dt>Price</dt><dd>{usd(t.price_usd)}</dd></div>
          <div><dt>Liquidity</dt><dd>{usd(t.current_liquidity_usd)}</dd></div>
          <div><dt>Volume 24 h</dt><dd>{usd(t.dex_hints?.volume_24h_usd)}</dd></div>
          <div><dt>Pairs</dt><dd>{t.dex_hints?.num_trading_pairs ?? '—'}</dd></div>
          <div class="wide"><dt>Main pair</dt><dd><MainPool t={t} /></dd></div>
          <div class="wide"><dt>LP lock</dt><dd>{t.liquidity_lock && (t.liquidity_lock.locked_pct !== null || t.liquidity_lock.burned_pct !== null) ? `${pct(t.liquidity_lock.locked_pct)} locked, ${pct(t.liquidity_lock.burned_pct)} burned` : 'not measured yet'}</dd></div>
        </dl>
      </section>
    </div>

    <section class="panel" aria-labelledby="chart-title">
      <h2 id="chart-title">Price, liquidity and risk</h2>
      {t.token_history === null ? <Locked feature="The price, liquidity and risk history" plan="PRO" />
        : t.token_history.length < 2 ? <p class="muted">Not enough snapshots yet: they are recorded as the pool trades (every minute at most).</p>
        : <Suspense fallback={<Loading what="the chart" />}><HistoryChart history={t.token_history} /></Suspense>}
    </section>

    <div class="grid-2">
      <section class="panel" aria-labelledby="creator-title">
        <h2 id="creator-title">Creator</h2>
        <CreatorCard chainId={t.chain_id} address={t.creator} allowed={basic} />
      </section>
      <section class="panel" aria-labelledby="creation-title">
        <h2 id="creation-title">Creation</h2>
        <dl class="facts">
          <div><dt>Block</dt><dd>{t.creation_block_number ?? '—'}</dd></div>
          <div><dt>Detected</dt><dd>{dateTime(t.detected_at)}</dd></div>
          <div class="wide"><dt>Transaction</dt><dd>{t.creation_tx_hash ? <code>{shortAddress(t.creation_tx_hash)}</code> : '—'}</dd></div>
          <div><dt>Decimals</dt><dd>{t.decimals ?? '—'}</dd></div>
          <div><dt>Updated</dt><dd>{dateTime(t.last_updated)}</dd></div>
        </dl>
      </section>
    </div>

    {latest && latest.alerts.length > 0 && (
      <section class="panel" aria-labelledby="alerts-title">
        <h2 id="alerts-title">Alerts</h2>
        <ul class="alert-list">{latest.alerts.map((a, i) => <li key={i}><strong>{a.type}</strong>: {a.message}</li>)}</ul>
      </section>
    )}
    </>
  );
}

export function TokenPage(props: { chainId: number; address: string }) {
  const plan = session.get()?.user.plan ?? 'FREE';
  const basic = plan !== 'FREE';
  const client = useQueryClient();
  const key = ['token', props.chainId, props.address];
  const query = useQuery({ queryKey: key, queryFn: () => tokens.detail(props.chainId, props.address), refetchInterval: 30_000 });
  useLiveEvents(useCallback((event: LiveEvent) => {
    if (event.data.chain_id === props.chainId && event.data.contract_address.toLowerCase() === props.address) void client.invalidateQueries({ queryKey: key });
  }, [props.chainId, props.address]));

  if (query.isPending) return <Loading what="the token" />;
  if (query.isError) return <Failure error={query.error} what="token" retry={() => void query.refetch()} />;
  const t = query.data;
  const latest = t.analyses[0] ?? null;
  const factors = latest?.risk_factor_details ?? [];
  const title = `${t.name ?? 'Unnamed token'}${t.symbol ? ` (${t.symbol})` : ''}`;
  return (
    <article aria-labelledby="token-title" class="token">
      <header class="token-head">
        <div>
          <h1 id="token-title">{title}</h1>
          <p class="address"><span>{chainName(t.chain_id)}</span> · <code>{t.contract_address}</code> <CopyButton value={t.contract_address} label="contract address" /></p>
        </div>
        <div class="head-actions">
          {t.dex_hints?.buy_url && <a class="button" href={t.dex_hints.buy_url} target="_blank" rel="noopener noreferrer">Buy on {t.dex_hints.recommended_dex ?? 'DEX'}</a>}
          <Actions token={t} allowed={basic} />
        </div>
      </header>

      <section class="panel verdict-panel" aria-labelledby="risk-title">
        <h2 id="risk-title">Risk</h2>
        {basic ? (
          <div class="score-line">
            <RiskBadge score={t.current_risk_score} level={t.current_risk_level} />
            <Verdict isHoneypot={t.is_honeypot} level={t.current_risk_level} sellable={t.trading_simulation?.is_sellable} />
            {t.data_quality_score !== null && <span class="muted">data measured: {Math.round(t.data_quality_score * 100)}%</span>}
          </div>
        ) : <Locked feature="The risk score, the honeypot verdict and the evidence behind them" plan="BASIC" />}
        {basic && <HoneypotEvidence token={t} factors={factors} />}
        {basic && t.impersonates && (
          <div class="callout callout-bad callout-lookalike" role="note">
            <h2>Look-alike of {t.impersonates.symbol}</h2>
            <p>
              The real {t.impersonates.symbol} of this chain is at <code>{t.impersonates.canonical_address}</code>: this token only copies its name or symbol.
            </p>
          </div>
        )}
      </section>

      {basic && <WhyThisScore t={t} />}
      {basic && <Capabilities t={t} />}
      {basic ? <HoldersPanel t={t} /> : (
        <section class="panel" aria-labelledby="holders-title">
          <h2 id="holders-title">Holders</h2>
          <Locked feature="Who holds the token, the LP holders and the real holders' sells" plan="BASIC" />
        </section>
      )}
      <Details t={t} basic={basic} />
    </article>
  );
}
