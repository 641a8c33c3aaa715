import type { Holders, HolderSells, LpHolders, TokenDetail } from '../token-model.ts';
import { pct, shortAddress } from '../format.ts';

/**
 * The holders panel of the token page: the largest holders' shares as bars (tagged pool, locker,
 * burn, creator, owner, the token itself), the shares the risk model reads, who holds each pool's
 * LP tokens, and how the real holders' sells went. Every bar has its figure in text beside it.
 */

const TAG_LABELS: Record<string, string> = {
  pair: 'pool',
  locker: 'locker',
  burn: 'burned',
  token: 'the token',
  creator: 'creator',
  owner: 'owner',
};

function Bar(props: { percent: number; tag: string | null }) {
  const width = Math.max(0.5, Math.min(100, props.percent));
  return (
    <span class="bar-track" aria-hidden="true">
      <span class={`bar bar-${props.tag ?? 'holder'}`} style={{ width: `${width}%` }} />
    </span>
  );
}

function TopHolders(props: { holders: Holders }) {
  const { holders } = props;
  if (holders.top_holders.length === 0) return <p class="muted">No holder yet.</p>;
  return (
    <ol class="holder-bars">
      {holders.top_holders.map((h) => (
        <li key={h.address}>
          <span class="holder-who">
            <code title={h.address}>{shortAddress(h.address)}</code>
            {h.tag && <span class={`chip chip-tag-${h.tag}`}>{TAG_LABELS[h.tag] ?? h.tag}</span>}
            {h.is_contract && !h.tag && <span class="chip">contract</span>}
          </span>
          <Bar percent={h.percent} tag={h.tag} />
          <span class="holder-pct">{pct(h.percent)}</span>
        </li>
      ))}
    </ol>
  );
}

function LpBars(props: { lp: LpHolders }) {
  const { lp } = props;
  const parts: [string, number][] = [
    ['locked', lp.locked_percent],
    ['burned', lp.burned_percent],
    ['creator', lp.creator_percent],
    ['other', lp.other_percent],
  ];
  return (
    <div class="lp">
      <p class="small-text">
        LP tokens of <code title={lp.pair_address}>{shortAddress(lp.pair_address)}</code>
        {lp.dex ? ` (${lp.dex})` : ''}: {parts.map(([k, v]) => `${pct(v)} ${k}`).join(', ')}
      </p>
      <span class="stack" aria-hidden="true">
        {parts.map(([k, v]) => (v > 0 ? <span key={k} class={`stack-${k}`} style={{ width: `${v}%` }} /> : null))}
      </span>
    </div>
  );
}

function Sells(props: { sells: HolderSells | null }) {
  const { sells } = props;
  if (!sells) return <p class="muted">Real holders' sells are simulated once the token trades and has holders.</p>;
  if (sells.tried === 0) return <p class="muted">No holder to try yet beyond the creator and the pools.</p>;
  return (
    <>
      <p class={sells.failed > 0 ? 'bad' : undefined}>
        {sells.tried - sells.failed} of {sells.tried} real holders could sell
        {sells.average_tax_pct !== null ? ` (tax ${pct(sells.average_tax_pct)} on average, ${pct(sells.max_tax_pct)} at most)` : ''}.
      </p>
      {sells.failures.length > 0 && (
        <ul class="evidence">
          {sells.failures.map((f) => (
            <li key={f.address}><code>{shortAddress(f.address)}</code> {f.reason}</li>
          ))}
        </ul>
      )}
    </>
  );
}

export function HoldersPanel(props: { t: TokenDetail }) {
  const { holders, lp_holders, holder_sells } = props.t;
  return (
    <section class="panel" aria-labelledby="holders-title">
      <h2 id="holders-title">Holders</h2>
      {!holders ? (
        <p class="muted">Not measured yet: holders are counted from the token's transfers.</p>
      ) : (
        <>
          <dl class="facts">
            <div><dt>Holders</dt><dd>{holders.holder_count.toLocaleString('en-US')}</dd></div>
            <div><dt>Creator</dt><dd>{pct(holders.creator_percent)}</dd></div>
            <div><dt>Top 10 outside pools</dt><dd>{pct(holders.top10_outside_pools_percent)}</dd></div>
            <div><dt>In pools</dt><dd>{pct(holders.pools_percent)}</dd></div>
            <div><dt>Burned</dt><dd>{pct(holders.burned_percent)}</dd></div>
            <div><dt>Contracts</dt><dd>{pct(holders.contract_percent)}</dd></div>
          </dl>
          {!holders.complete && (
            <p class="muted small-text">Tracked after the token's creation: some holders may be missing.</p>
          )}
          <h3>Largest holders</h3>
          <TopHolders holders={holders} />
        </>
      )}
      {lp_holders.map((lp) => <LpBars key={lp.pair_address} lp={lp} />)}
      <h3>Real holders' sells</h3>
      <Sells sells={holder_sells} />
    </section>
  );
}
