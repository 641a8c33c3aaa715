import type { PoolHook, TokenDetail } from '../api.ts';
import { shortAddress } from '../format.ts';

/**
 * The token's main pool (a Uniswap V4 pool is named by its id and may have a hook), and the
 * simulated pool's hook: its permission bits, why it cannot work, whether its owner can change
 * it, and what it did to the simulated buys and sells.
 */

export function MainPool(props: { t: TokenDetail }) {
  const dex = props.t.dex_hints;
  const main = dex?.main_trading_pair ?? null;
  if (!main) return <>—</>;
  const pair = dex?.trading_pairs.find((p) => p.pair_address === main);
  return (
    <>
      <code title={main}>{shortAddress(main)}</code>
      {pair?.dex && <span class="muted"> on {pair.dex}</span>}
      {pair?.pool_id && (
        <span class="muted">
          {' '}· hook {pair.hook_address ? <code title={pair.hook_address}>{shortAddress(pair.hook_address)}</code> : 'none'}
        </span>
      )}
    </>
  );
}

export function HookReport(props: { hook: PoolHook | null }) {
  const hook = props.hook;
  if (!hook) return null;
  const control =
    hook.can_change_swaps === null ? 'not analysed' : hook.can_change_swaps ? 'yes: its owner can change what it does to swaps' : 'no';
  return (
    <section aria-labelledby="hook-title" class="hook">
      <h3 id="hook-title">Pool hook</h3>
      <dl class="facts">
        <div class="wide"><dt>Hook</dt><dd><code>{hook.address}</code></dd></div>
        <div class="wide"><dt>Pool</dt><dd><code title={hook.pool_id}>{shortAddress(hook.pool_id)}</code></dd></div>
        <div class="wide"><dt>Permissions</dt><dd>{hook.permissions.length > 0 ? hook.permissions.join(', ') : 'none'} <span class="muted">({hook.flags})</span></dd></div>
        <div class="wide"><dt>Owner can change it</dt><dd class={hook.can_change_swaps ? 'bad' : undefined}>{control}</dd></div>
      </dl>
      {hook.problems.length > 0 && (
        <ul class="evidence">{hook.problems.map((p) => <li key={p} class="bad">{p}</li>)}</ul>
      )}
      {hook.findings.length > 0 && (
        <>
          <h4>What the hook did in the simulation</h4>
          <ul class="evidence">{hook.findings.map((f) => <li key={f}>{f}</li>)}</ul>
        </>
      )}
    </section>
  );
}
