import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { auth, keys, preferences, type AlertKind, type ApiKeyCreated, type Plan, type PreferencesUpdate } from '../api.ts';
import { CopyButton, Failure, Loading } from '../components.tsx';
import { BillingPanel } from './billing.tsx';
import { dateTime } from '../format.ts';
import { session } from '../session.ts';

/** Plan and trial state, API keys (PRO), and email alert preferences (BASIC and up). */

/** Every alert kind the API knows (its generated types): a new kind fails the type check until it has words here. */
const ALERT_LABELS: Record<AlertKind, string> = {
  honeypot: 'A token turns out to be a honeypot', liquidity_pull: 'Liquidity is pulled', rug: 'Rug pull',
  owner_changed: 'The owner changes', tax_raised: 'A tax is raised', mint_after_launch: 'Tokens are minted after launch',
  risk_level_changed: 'The risk level changes',
  holder_concentration: 'Supply concentrated in few wallets', impersonation: 'A look-alike of a well-known token',
};
const ALERT_KINDS = Object.entries(ALERT_LABELS) as [AlertKind, string][];

const PLAN_TEXT: Record<Plan, string> = {
  FREE: 'Basic viewing: new tokens without risk scores.',
  BASIC: 'Risk scores, watchlist, creator pages, live updates (1 connection).',
  PRO: 'Everything in BASIC, plus history, raw data, the API with keys, and 10 live connections.',
};

function PlanPanel() {
  const me = useQuery({ queryKey: ['me-settings'], queryFn: auth.me });
  if (me.isPending) return <Loading what="your plan" />;
  if (me.isError) return <Failure error={me.error} what="your plan" retry={() => void me.refetch()} />;
  const u = me.data;
  return (
    <dl class="facts">
      <div><dt>Account</dt><dd>{u.email}</dd></div>
      <div><dt>Plan</dt><dd><strong>{u.plan}</strong>{u.plan_state ? ` (${u.plan_state})` : ''}</dd></div>
      <div class="wide"><dt>Includes</dt><dd>{PLAN_TEXT[u.plan] ?? ''}</dd></div>
      {u.trial_ends_at && <div><dt>Trial ends</dt><dd>{dateTime(u.trial_ends_at)}</dd></div>}
      {u.plan_ends_at && <div><dt>Plan ends</dt><dd>{dateTime(u.plan_ends_at)} (cancelled)</dd></div>}
      {u.payment_failed_at && <div class="wide"><dt>Payment</dt><dd class="bad">A payment failed on {dateTime(u.payment_failed_at)}: the plan returns to FREE 3 days later unless it is settled.</dd></div>}
    </dl>
  );
}

function ApiKeys() {
  const client = useQueryClient();
  const [created, setCreated] = useState<ApiKeyCreated | null>(null);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [confirming, setConfirming] = useState<string | null>(null);
  const list = useQuery({ queryKey: ['api-keys'], queryFn: keys.list });
  const generate = useMutation({
    mutationFn: () => keys.generate(name.trim() || 'My key', description.trim()),
    onSuccess: (key) => {
      setCreated(key);
      setName('');
      setDescription('');
      return client.invalidateQueries({ queryKey: ['api-keys'] });
    },
  });
  const revoke = useMutation({
    mutationFn: (apiKey: string) => keys.revoke(apiKey),
    onSettled: () => {
      setConfirming(null);
      return client.invalidateQueries({ queryKey: ['api-keys'] });
    },
  });
  return (
    <>
      <form class="stack" onSubmit={(e) => { e.preventDefault(); generate.mutate(); }}>
        <label for="key-name">Key name</label>
        <input id="key-name" value={name} maxLength={100} onInput={(e) => setName(e.currentTarget.value)} placeholder="My trading bot" />
        <label for="key-description">What it is for (optional)</label>
        <input id="key-description" value={description} maxLength={500} onInput={(e) => setDescription(e.currentTarget.value)} />
        <p class="muted small-text">Generating a key revokes your current one: one active key per account.</p>
        <button type="submit" class="primary" disabled={generate.isPending}>Generate API key</button>
        {generate.isError && <Failure error={generate.error} what="a new key" />}
      </form>
      {created && (
        <div class="callout callout-secret" role="alert" aria-labelledby="secret-title">
          <h3 id="secret-title">Your new API key</h3>
          <p><strong>Copy the key and the secret now: the secret is shown this once and cannot be shown again.</strong></p>
          <p>Key: <code class="secret" data-testid="new-api-key">{created.api_key}</code> <CopyButton value={created.api_key} label="API key" /></p>
          <p>Secret: <code class="secret" data-testid="new-api-secret">{created.api_secret}</code> <CopyButton value={created.api_secret} label="API secret" /></p>
          <button type="button" onClick={() => setCreated(null)}>I have copied them</button>
        </div>
      )}
      <h3>Active keys</h3>
      {list.isPending ? <Loading what="your keys" />
        : list.isError ? <Failure error={list.error} what="your keys" retry={() => void list.refetch()} />
        : list.data.api_keys.length === 0 ? <p class="muted">No active key.</p>
        : (
          <div class="scroll">
            <table class="keys">
              <thead><tr><th scope="col">Key</th><th scope="col">Name</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Today</th><th scope="col">This month</th><th scope="col">Total</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
              <tbody>
                {list.data.api_keys.map((k) => (
                  <tr key={k.api_key}>
                    <td><code>{k.api_key}</code></td><td>{k.name ?? '—'}</td><td>{dateTime(k.created_at)}</td><td>{dateTime(k.last_used)}</td>
                    <td>{k.usage_stats?.requests_today ?? 0}</td><td>{k.usage_stats?.requests_this_month ?? 0}</td><td>{k.usage_stats?.total_requests ?? 0}</td>
                    <td>
                      {confirming === k.api_key ? (
                        <span class="confirm" role="group" aria-label="Confirm revoking">
                          <button type="button" class="danger small" onClick={() => revoke.mutate(k.api_key)} disabled={revoke.isPending}>Yes, revoke</button>
                          <button type="button" class="small" onClick={() => setConfirming(null)}>Keep</button>
                        </span>
                      ) : <button type="button" class="small" onClick={() => setConfirming(k.api_key)} aria-label={`Revoke key ${k.api_key}`}>Revoke</button>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      {revoke.isError && <Failure error={revoke.error} what="the key" />}
    </>
  );
}

function AlertPreferences() {
  const client = useQueryClient();
  const prefs = useQuery({ queryKey: ['preferences'], queryFn: preferences.get });
  const [saved, setSaved] = useState(false);
  const save = useMutation({
    mutationFn: (value: PreferencesUpdate) => preferences.put(value),
    onSuccess: (value) => {
      client.setQueryData(['preferences'], value);
      setSaved(true);
    },
  });
  if (prefs.isPending) return <Loading what="your alert preferences" />;
  if (prefs.isError) return <Failure error={prefs.error} what="your alert preferences" retry={() => void prefs.refetch()} />;
  const p = prefs.data;
  // email_alerts is required in every update (the API's body): send the current one along.
  const toggleKind = (kind: AlertKind, on: boolean) => save.mutate({ email_alerts: p.email_alerts, alert_kinds: on ? [...new Set([...p.alert_kinds, kind])] : p.alert_kinds.filter((k) => k !== kind) });
  return (
    <fieldset>
      <legend>Email alerts for the tokens you watch</legend>
      <label class="check"><input type="checkbox" checked={p.email_alerts} onChange={(e) => save.mutate({ email_alerts: e.currentTarget.checked })} /> Send me email alerts</label>
      {ALERT_KINDS.map(([kind, label]) => (
        <label key={kind} class="check"><input type="checkbox" disabled={!p.email_alerts} checked={p.alert_kinds.includes(kind)} onChange={(e) => toggleKind(kind, e.currentTarget.checked)} /> {label}</label>
      ))}
      <p class="muted small-text" role="status">{save.isError ? 'Not saved: try again.' : saved ? 'Saved.' : ''}</p>
    </fieldset>
  );
}

export function Settings() {
  const plan = session.get()?.user.plan ?? 'FREE';
  return (
    <section aria-labelledby="settings-title">
      <div class="page-head"><h1 id="settings-title">Settings</h1></div>
      <section class="panel" aria-labelledby="plan-title"><h2 id="plan-title">Plan</h2><PlanPanel /></section>
      <section class="panel" aria-labelledby="billing-title"><h2 id="billing-title">Billing</h2><BillingPanel plan={plan} /></section>
      <section class="panel" aria-labelledby="keys-title">
        <h2 id="keys-title">API keys</h2>
        {plan === 'PRO' ? <ApiKeys /> : <p class="muted">API keys come with the PRO plan: programmatic access to complete token data, 1,000 requests a day.</p>}
      </section>
      <section class="panel" aria-labelledby="alerts-title">
        <h2 id="alerts-title">Email alerts</h2>
        {plan === 'FREE' ? <p class="muted">Email alerts come with the BASIC plan, for the tokens on your watchlist.</p> : <AlertPreferences />}
      </section>
    </section>
  );
}
