import { render } from 'preact';
import { useEffect, useSyncExternalStore } from 'react';
import { QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query';
import { Link, Redirect, Route, Switch, useLocation } from 'wouter';
import { ApiError, auth } from './api.ts';
import { LiveIndicator } from './components.tsx';
import { syncLive, useLiveStatus } from './live.ts';
import { session } from './session.ts';
import { SignIn, SignUp } from './pages/auth.tsx';
import { Feed } from './pages/feed.tsx';
import { Tokens } from './pages/tokens.tsx';
import { TokenPage } from './pages/token.tsx';
import { CreatorPage } from './pages/creator.tsx';
import { Watchlist } from './pages/watchlist.tsx';
import { Settings } from './pages/settings.tsx';
import './styles.css';

/** The web app's shell: session gate, navigation, live status, routes. */

const ME_REFRESH_MS = 60_000;

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // 4xx answers are final (the page explains them); only an unreachable or failing service is retried.
      retry: (count, error) => count < 3 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
      staleTime: 2_000,
      refetchOnWindowFocus: true,
    },
  },
});

function useSession() {
  return useSyncExternalStore(session.subscribe, session.get);
}

const NAV = [
  ['/', 'Live feed'],
  ['/tokens', 'Tokens'],
  ['/watchlist', 'Watchlist'],
  ['/settings', 'Settings'],
] as const;

function Shell() {
  const current = useSession();
  const [location, navigate] = useLocation();
  const live = useLiveStatus();
  // The plan may change while signed in (upgrade, trial end): the session follows /auth/me.
  const me = useQuery({ queryKey: ['me', current?.token], queryFn: auth.me, enabled: !!current, refetchInterval: ME_REFRESH_MS });
  useEffect(() => {
    if (me.data) session.updateUser({ id: me.data.id, email: me.data.email, plan: me.data.plan, trial_ends_at: me.data.trial_ends_at });
  }, [me.data]);
  useEffect(() => {
    syncLive();
  }, [current?.token, current?.user.plan]);
  useEffect(() => {
    if (!current) queryClient.clear();
  }, [current]);

  if (!current) {
    return (
      <Switch>
        <Route path="/signup"><SignUp /></Route>
        <Route path="/signin"><SignIn /></Route>
        <Route><Redirect to={`/signin${location !== '/' && location !== '/signin' ? `?next=${encodeURIComponent(location)}` : ''}`} /></Route>
      </Switch>
    );
  }
  return (
    <>
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <Link href="/" class="brand">token-monitor</Link>
        <nav aria-label="Main">
          <ul>
            {NAV.map(([href, label]) => (
              <li key={href}><Link href={href} aria-current={location === href ? 'page' : undefined}>{label}</Link></li>
            ))}
          </ul>
        </nav>
        <div class="account">
          <span class={`plan plan-${current.user.plan.toLowerCase()}`} title="Your plan">{current.user.plan}</span>
          <button type="button" class="small" onClick={() => { session.end('You are signed out.'); navigate('/signin'); }}>Sign out</button>
        </div>
      </header>
      <div class="status-bar"><LiveIndicator status={live} /></div>
      <main id="main" tabIndex={-1}>
        <Switch>
          <Route path="/"><Feed /></Route>
          <Route path="/tokens"><Tokens /></Route>
          <Route path="/token/:chain/:address">{(p) => <TokenPage chainId={Number(p.chain)} address={p.address.toLowerCase()} />}</Route>
          <Route path="/creator/:chain/:address">{(p) => <CreatorPage chainId={Number(p.chain)} address={p.address.toLowerCase()} />}</Route>
          <Route path="/watchlist"><Watchlist /></Route>
          <Route path="/settings"><Settings /></Route>
          <Route path="/signin"><Redirect to="/" /></Route>
          <Route path="/signup"><Redirect to="/" /></Route>
          <Route><section><h1>Page not found</h1><p><Link href="/">Back to the live feed</Link></p></section></Route>
        </Switch>
      </main>
    </>
  );
}

render(
  <QueryClientProvider client={queryClient}>
    <Shell />
  </QueryClientProvider>,
  document.getElementById('app')!,
);
