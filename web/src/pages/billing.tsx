import { useEffect, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { billing, type BillingOverview, type BillingPeriod } from '../api.ts';
import { Failure, Loading } from '../components.tsx';
import { dateTime } from '../format.ts';

/**
 * The settings page's billing panel (docs/web.md): BASIC and PRO, monthly or annual, with the
 * processor's prices; a plan opens the processor's Checkout page, "Manage billing" its portal.
 * The plan itself changes when the processor's webhook says so: after returning from Checkout
 * the page asks again every few seconds until it has.
 */

/** After returning from Checkout: how often and how long the plan is asked for again. */
const CONFIRM_POLL_MS = 2_000;
const CONFIRM_WAIT_MS = 60_000;

function price(p: BillingOverview['plans'][number]['price']): string {
  if (!p || p.amount === null) return 'price unavailable';
  const amount = new Intl.NumberFormat(undefined, { style: 'currency', currency: p.currency.toUpperCase() }).format(p.amount / 100);
  return p.interval ? `${amount} / ${p.interval}` : amount;
}

function returnedFromCheckout(): 'success' | 'cancelled' | null {
  const value = new URLSearchParams(window.location.search).get('billing');
  return value === 'success' || value === 'cancelled' ? value : null;
}

function Plans({ overview, currentPlan }: { overview: BillingOverview; currentPlan: string }) {
  const [period, setPeriod] = useState<BillingPeriod>('monthly');
  const checkout = useMutation({
    mutationFn: (plan: 'BASIC' | 'PRO') => billing.checkout(plan, period),
    onSuccess: (session) => window.location.assign(session.checkout_url),
  });
  const offers = overview.plans.filter((p) => p.period === period);
  return (
    <div class="stack">
      <fieldset class="periods">
        <legend>Billing period</legend>
        <label class="check"><input type="radio" name="period" checked={period === 'monthly'} onChange={() => setPeriod('monthly')} /> Monthly</label>
        <label class="check"><input type="radio" name="period" checked={period === 'annual'} onChange={() => setPeriod('annual')} /> Annual</label>
      </fieldset>
      <ul class="plans">
        {offers.map((offer) => (
          <li key={`${offer.plan}-${offer.period}`} class="plan-offer">
            <h3>{offer.plan}</h3>
            <p class="plan-price">{price(offer.price)}</p>
            {overview.trial_days > 0 && <p class="muted small-text">{overview.trial_days}-day free trial, cancel any time</p>}
            <button type="button" class="primary" disabled={checkout.isPending || offer.plan === currentPlan} onClick={() => checkout.mutate(offer.plan)}>
              {offer.plan === currentPlan
                ? `On ${offer.plan}`
                : `${currentPlan === 'PRO' ? 'Switch' : 'Upgrade'} to ${offer.plan} (${offer.period})`}
            </button>
          </li>
        ))}
      </ul>
      {checkout.isError && <Failure error={checkout.error} what="the checkout" />}
    </div>
  );
}

function Subscription({ overview }: { overview: BillingOverview }) {
  const portal = useMutation({
    mutationFn: billing.portal,
    onSuccess: (session) => window.location.assign(session.portal_url),
  });
  const s = overview.subscription;
  return (
    <div class="stack">
      {s && (
        <p>
          {s.plan ?? 'A plan'}, {s.period ?? 'billed'} ({s.status.replace('_', ' ')}).{' '}
          {s.cancel_at
            ? `Cancelled: it ends on ${dateTime(s.cancel_at)}.`
            : s.current_period_end
              ? `${s.status === 'trialing' ? 'The trial ends and the first payment is due' : 'Renews'} on ${dateTime(s.current_period_end)}.`
              : ''}
        </p>
      )}
      <p class="muted small-text">Invoices, your card, cancelling and switching between monthly and annual are in the payment processor’s billing portal.</p>
      <button type="button" onClick={() => portal.mutate()} disabled={portal.isPending}>Manage billing</button>
      {portal.isError && <Failure error={portal.error} what="the billing portal" />}
    </div>
  );
}

export function BillingPanel({ plan }: { plan: string }) {
  const client = useQueryClient();
  const [returned] = useState(returnedFromCheckout);
  const [waitingSince] = useState(() => Date.now());
  const confirming = returned === 'success' && Date.now() - waitingSince < CONFIRM_WAIT_MS;
  const overview = useQuery({
    queryKey: ['billing'],
    queryFn: billing.overview,
    refetchInterval: confirming && plan === 'FREE' ? CONFIRM_POLL_MS : false,
  });
  // Back from Checkout: the header and the plan panel follow as soon as the webhook has landed.
  useEffect(() => {
    if (!confirming) return;
    const timer = setInterval(() => {
      void client.invalidateQueries({ queryKey: ['me'] });
      void client.invalidateQueries({ queryKey: ['me-settings'] });
    }, CONFIRM_POLL_MS);
    return () => clearInterval(timer);
  }, [confirming, client]);
  if (overview.isPending) return <Loading what="billing" />;
  if (overview.isError) return <Failure error={overview.error} what="billing" retry={() => void overview.refetch()} />;
  const o = overview.data;
  if (!o.configured)
    return <p class="muted" data-testid="billing-not-configured">Billing is not configured on this installation: an operator changes plans with <code>token-monitor users set-plan</code>.</p>;
  return (
    <>
      {returned === 'success' && (
        <p class="callout" role="status">{plan === 'FREE' ? 'Thank you! Your plan changes as soon as the payment processor confirms the subscription, within seconds.' : `Thank you! You are on ${plan} now.`}</p>
      )}
      {returned === 'cancelled' && <p class="callout" role="status">Checkout was cancelled: nothing was charged.</p>}
      {o.subscription ? <Subscription overview={o} /> : <Plans overview={o} currentPlan={plan} />}
      {!o.subscription && o.has_billing_account && <Subscription overview={o} />}
    </>
  );
}
