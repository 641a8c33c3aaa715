import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { creators } from '../api.ts';
import { CopyButton, Empty, Failure, Loading, Locked, RiskBadge } from '../components.tsx';
import { age, chainName, dateTime, pct, usd } from '../format.ts';
import { session } from '../session.ts';

/** A creator (the deploying wallet): reputation, success and scam rates, and their tokens. */

export function CreatorPage(props: { chainId: number; address: string }) {
  const allowed = (session.get()?.user.plan ?? 'FREE') !== 'FREE';
  const query = useQuery({ queryKey: ['creator', props.chainId, props.address], queryFn: () => creators.detail(props.chainId, props.address), enabled: allowed });
  if (!allowed) {
    return <section aria-labelledby="creator-title"><h1 id="creator-title">Creator</h1><Locked feature="The creator page (reputation, scam rate, their other tokens)" plan="BASIC" /></section>;
  }
  if (query.isPending) return <Loading what="the creator" />;
  if (query.isError) return <Failure error={query.error} what="creator" retry={() => void query.refetch()} />;
  const c = query.data;
  return (
    <section aria-labelledby="creator-title">
      <div class="page-head">
        <h1 id="creator-title">Creator</h1>
        <p class="address"><span>{chainName(c.chain_id)}</span> · <code>{c.address}</code> <CopyButton value={c.address} label="creator address" /></p>
      </div>
      <div class="panel">
        <dl class="facts">
          <div><dt>Reputation</dt><dd class="big">{c.reputation_score ?? '—'}<span class="muted">/100</span></dd></div>
          <div><dt>Tokens created</dt><dd class="big">{c.total_tokens ?? '—'}</dd></div>
          <div><dt>Success rate</dt><dd class="big">{pct(c.success_rate)}</dd></div>
          <div><dt>Scam rate</dt><dd class={`big ${(c.scam_rate ?? 0) > 0 ? 'bad' : ''}`}>{pct(c.scam_rate)}</dd></div>
          <div><dt>First seen</dt><dd>{dateTime(c.first_seen)}</dd></div>
          <div><dt>Last seen</dt><dd>{dateTime(c.last_seen)}</dd></div>
        </dl>
      </div>
      <h2>Their tokens</h2>
      {!c.tokens || c.tokens.length === 0 ? <Empty><p>No token recorded for this creator yet.</p></Empty> : (
        <table class="rows">
          <thead><tr><th scope="col">Token</th><th scope="col">Detected</th><th scope="col">Risk</th><th scope="col">Liquidity</th></tr></thead>
          <tbody>
            {c.tokens.map((t) => (
              <tr key={t.contract_address}>
                <td data-label="Token"><Link href={`/token/${t.chain_id}/${t.contract_address}`} class="token-link"><strong>{t.name ?? 'Unnamed'}</strong> <span class="muted">{t.symbol ?? '?'}</span></Link></td>
                <td data-label="Detected">{age(t.detected_at)} ago</td>
                <td data-label="Risk"><RiskBadge score={t.current_risk_score} level={t.current_risk_level} /></td>
                <td data-label="Liquidity">{usd(t.current_liquidity_usd)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
