import { useCallback, useState } from 'react';
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { tokens, watchlist, type LiveEvent } from '../api.ts';
import { Empty, Failure, Loading, Locked, RiskBadge } from '../components.tsx';
import { chainName, dateTime, usd } from '../format.ts';
import { POLL_INTERVAL_MS, useLiveEvents, useLiveStatus } from '../live.ts';
import { session } from '../session.ts';

/** The watched tokens with their latest alerts; live alerts for them are added as they come. */

const ALERT_LOOKUPS_MAX = 25;

export function Watchlist() {
  const allowed = (session.get()?.user.plan ?? 'FREE') !== 'FREE';
  const client = useQueryClient();
  const live = useLiveStatus();
  const [liveAlerts, setLiveAlerts] = useState<Record<string, string[]>>({});
  const list = useQuery({ queryKey: ['watchlist'], queryFn: watchlist.list, enabled: allowed, refetchInterval: live.mode === 'live' ? false : POLL_INTERVAL_MS * 6 });
  const items = list.data?.items ?? [];
  // The stored alerts of each watched token come with its latest analysis.
  const details = useQueries({
    queries: items.slice(0, ALERT_LOOKUPS_MAX).map((w) => ({
      queryKey: ['token', w.chain_id, w.contract_address],
      queryFn: () => tokens.detail(w.chain_id, w.contract_address),
      staleTime: 30_000,
    })),
  });
  useLiveEvents(useCallback((event: LiveEvent) => {
    const key = `${event.data.chain_id}:${event.data.contract_address.toLowerCase()}`;
    if (event.type === 'alert' && typeof event.data.message === 'string') {
      const message = event.data.message;
      setLiveAlerts((previous) => ({ ...previous, [key]: [message, ...(previous[key] ?? [])].slice(0, 5) }));
    }
    if (event.type !== 'token.created') void client.invalidateQueries({ queryKey: ['watchlist'] });
  }, [client]));
  const remove = useMutation({
    mutationFn: (w: { chain_id: number; contract_address: string }) => watchlist.remove(w.chain_id, w.contract_address),
    onSettled: () => client.invalidateQueries({ queryKey: ['watchlist'] }),
  });

  if (!allowed) return <section aria-labelledby="wl-title"><h1 id="wl-title">Watchlist</h1><Locked feature="The watchlist, with alerts for the tokens you watch" plan="BASIC" /></section>;
  return (
    <section aria-labelledby="wl-title">
      <div class="page-head">
        <h1 id="wl-title">Watchlist</h1>
        <p class="muted">Tokens you watch and their alerts. Add one with “Watch” on its page.</p>
      </div>
      {list.isPending ? <Loading what="your watchlist" />
        : list.isError ? <Failure error={list.error} what="your watchlist" retry={() => void list.refetch()} />
        : items.length === 0 ? <Empty><p>You are not watching any token yet.</p><p><Link href="/">Open the live feed</Link> and choose “Watch” on a token’s page.</p></Empty>
        : (
          <ul class="watch-list">
            {items.map((w, i) => {
              const key = `${w.chain_id}:${w.contract_address}`;
              const stored = details[i]?.data?.analyses[0]?.alerts ?? [];
              const alerts = [...(liveAlerts[key] ?? []).map((m) => ({ type: 'live', message: m })), ...stored];
              return (
                <li key={key} class="panel">
                  <div class="watch-head">
                    <Link href={`/token/${w.chain_id}/${w.contract_address}`} class="token-link"><strong>{w.token?.name ?? 'Unnamed'}</strong> <span class="muted">{w.token?.symbol ?? '?'}</span></Link>
                    <RiskBadge score={w.token?.current_risk_score} level={w.token?.current_risk_level} />
                    <span class="muted">{chainName(w.chain_id)} · liquidity {usd(w.token?.current_liquidity_usd)} · watched since {dateTime(w.added_at)}</span>
                    <button type="button" class="small" onClick={() => remove.mutate(w)} disabled={remove.isPending}
                      aria-label={`Unwatch ${w.token?.name ?? w.contract_address}`}>Unwatch</button>
                  </div>
                  {alerts.length === 0 ? <p class="muted small-text">No alert.</p> : (
                    <ul class="alerts">{alerts.map((a, j) => <li key={j}><strong>{a.type === 'live' ? 'new' : a.type}</strong>: {a.message}</li>)}</ul>
                  )}
                </li>
              );
            })}
          </ul>
        )}
    </section>
  );
}
