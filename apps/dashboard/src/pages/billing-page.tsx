import { useState } from 'react';
import { ApiError, BillingOverview, dashboardApi, PlanName } from '../api/api';
import { Invoices, Purchases } from '../components/billing-history';
import { EmptyState, Field, Loading, LoadError, PageHeading } from '../components/ui';
import { useCan } from '../lib/role';
import { useLocation } from '../lib/router';
import { formatMoney } from '../lib/format';
import { useAsync } from '../lib/use-async';

const credits = (n: number) => `${n.toLocaleString('en-US')} credits`;

/** Sends the browser to a Stripe page (Checkout, the customer portal). */
function go(url: string): void {
  window.location.assign(url);
}

function Banners({ data }: { data: BillingOverview }) {
  const sub = data.subscription;
  return (
    <>
      {data.restriction && (
        <div className="notice notice-warning" role="alert">
          <p className="notice-title">This account is restricted</p>
          <p>{data.restriction.message}</p>
        </div>
      )}
      {data.top_up?.failing && data.top_up.last_error && (
        <div className="notice notice-warning" role="alert">
          <p className="notice-title">Automatic top-up failed</p>
          <p>{data.top_up.last_error}</p>
        </div>
      )}
      {sub?.grace_until && (
        <div className="notice notice-warning" role="alert">
          <p className="notice-title">Renewal failed</p>
          <p>
            The {sub.plan} plan&apos;s renewal is unpaid. Update the card; if it is still unpaid on {new Date(sub.grace_until).toUTCString()}, the account moves to the Free plan.
          </p>
        </div>
      )}
    </>
  );
}

function Packs({ data, canPay, onError }: { data: BillingOverview; canPay: boolean; onError: (message: string) => void }) {
  const [busy, setBusy] = useState<string | null>(null);
  const buy = async (packId: string) => {
    setBusy(packId);
    try {
      go((await dashboardApi.billingCheckout(packId)).url);
    } catch (error) {
      onError(error instanceof ApiError ? error.message : String(error));
      setBusy(null);
    }
  };
  return (
    <section className="section" aria-labelledby="packs-heading">
      <h2 id="packs-heading">Credit packs</h2>
      {data.packs.length === 0 ? (
        <p>No credit packs are on sale.</p>
      ) : (
        <ul className="cards">
          {data.packs.map((pack) => (
            <li className="card" key={pack.id}>
              <h3>{pack.name}</h3>
              <p>
                {credits(pack.credits)} for {formatMoney(pack.unit_amount, pack.currency)}
              </p>
              {canPay && (
                <button type="button" className="button button-primary" disabled={busy !== null} onClick={() => void buy(pack.id)} aria-label={`Buy ${pack.name}`}>
                  {busy === pack.id ? 'Opening checkout…' : 'Buy'}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Plan({ data, canPay, onError, onChanged }: { data: BillingOverview; canPay: boolean; onError: (message: string) => void; onChanged: (message: string) => void }) {
  if (data.plans.length === 0 && !data.subscription) return null;
  const sub = data.subscription;
  const choose = async (plan: PlanName) => {
    try {
      const reply = await dashboardApi.billingSubscribe(plan);
      if (reply.effective === 'checkout' && reply.url) go(reply.url);
      else onChanged(reply.effective === 'now' ? `The ${plan} plan applies now.` : `The account moves to the ${plan} plan at the end of the period paid for.`);
    } catch (error) {
      onError(error instanceof ApiError ? error.message : String(error));
    }
  };
  return (
    <section className="section" aria-labelledby="plan-heading">
      <h2 id="plan-heading">Plan</h2>
      <p>
        {sub && sub.status !== 'canceled'
          ? `Subscribed to ${sub.plan} (${sub.status})${sub.current_period_end ? `, renews ${new Date(sub.current_period_end).toLocaleDateString('en-US')}` : ''}${sub.cancel_at_period_end ? ', ends at the period end' : ''}.`
          : 'No subscription.'}
        {sub?.downgrade_at && ` Moves to ${sub.plan} on ${new Date(sub.downgrade_at).toLocaleDateString('en-US')}.`}
      </p>
      {canPay && (
        <div className="button-row">
          {data.plans.map((plan) => (
            <button key={plan} type="button" className="button button-secondary" onClick={() => void choose(plan)}>
              Choose {plan}
            </button>
          ))}
          {sub && sub.status !== 'canceled' && !sub.cancel_at_period_end && (
            <button type="button" className="button button-secondary" onClick={() => void choose('free')}>
              Change to Free
            </button>
          )}
        </div>
      )}
    </section>
  );
}

function TopUp({ data, canPay, onSaved }: { data: BillingOverview; canPay: boolean; onSaved: (message: string) => void }) {
  const topUp = data.top_up;
  const [packId, setPackId] = useState(topUp?.pack_id ?? data.packs[0]?.id ?? '');
  const [threshold, setThreshold] = useState(topUp?.threshold ? String(topUp.threshold) : '');
  const [error, setError] = useState<string | null>(null);
  if (!topUp || data.packs.length === 0) return null;
  const save = async (on: boolean) => {
    setError(null);
    try {
      const saved = await dashboardApi.billingSetTopUp(on ? packId : null, on ? Number(threshold) : null);
      onSaved(saved.enabled ? `A pack is bought automatically when the balance falls below ${credits(saved.threshold ?? 0)}.` : 'Automatic top-ups are off.');
    } catch (e) {
      setError(e instanceof ApiError ? e.detail : String(e));
    }
  };
  return (
    <section className="section" aria-labelledby="top-up-heading">
      <h2 id="top-up-heading">Automatic top-up</h2>
      <p>{topUp.enabled ? `On: ${topUp.pack_id ?? ''} when the balance falls below ${credits(topUp.threshold ?? 0)}.` : 'Off.'}</p>
      {!topUp.card_saved && <p className="hint">Buy a pack once with a card: automatic top-ups pay with the card saved then.</p>}
      {canPay && topUp.card_saved && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void save(true);
          }}
        >
          <label htmlFor="top-up-pack">Pack</label>
          <select id="top-up-pack" value={packId} onChange={(e) => setPackId(e.target.value)}>
            {data.packs.map((pack) => (
              <option key={pack.id} value={pack.id}>
                {pack.name} ({credits(pack.credits)}, {formatMoney(pack.unit_amount, pack.currency)})
              </option>
            ))}
          </select>
          <Field id="top-up-threshold" label="Buy when available credits fall below" inputMode="numeric" value={threshold} onChange={(e) => setThreshold(e.target.value)} error={error} />
          <div className="button-row">
            <button type="submit" className="button button-primary">
              Save top-up
            </button>
            {topUp.enabled && (
              <button type="button" className="button button-secondary" onClick={() => void save(false)}>
                Turn off
              </button>
            )}
          </div>
        </form>
      )}
    </section>
  );
}

/**
 * Billing (docs/guide/billing.md): the balance, packs bought through Stripe Checkout, the plan's
 * subscription, the automatic top-up, purchases with their receipts, and the customer portal. Owners
 * pay; admins see it (the server refuses the rest).
 */
export function BillingPage() {
  const can = useCan();
  const { query } = useLocation();
  const [state, reload] = useAsync(() => Promise.all([dashboardApi.billing(), dashboardApi.billingPurchases()]), []);
  const [message, setMessage] = useState<{ kind: 'success' | 'warning'; text: string } | null>(
    query.get('checkout') === 'success'
      ? { kind: 'success', text: 'Payment received. The credits are added as soon as Stripe confirms it, usually within seconds.' }
      : query.get('checkout') === 'canceled'
        ? { kind: 'warning', text: 'Checkout was canceled: nothing was charged.' }
        : query.get('subscription') === 'success'
          ? { kind: 'success', text: 'Subscribed. The plan applies as soon as Stripe confirms the payment.' }
          : null,
  );
  const canPay = can('owner');
  const onError = (text: string) => setMessage({ kind: 'warning', text });
  const onDone = (text: string) => {
    setMessage({ kind: 'success', text });
    reload();
  };
  const portal = async () => {
    try {
      go((await dashboardApi.billingPortal()).url);
    } catch (error) {
      onError(error instanceof ApiError ? error.message : String(error));
    }
  };

  return (
    <main id="main">
      <PageHeading title="Billing">Billing</PageHeading>
      {state.status === 'loading' && <Loading />}
      {state.status === 'error' && <LoadError message={state.error.detail} onRetry={reload} />}
      {state.status === 'ready' && state.data[0].provider === 'none' && (
        <EmptyState title="Payments are not enabled on this service.">
          <p>Credits and plans are added by the operator of the service. Available now: {credits(state.data[0].available)}.</p>
        </EmptyState>
      )}
      {state.status === 'ready' && state.data[0].provider !== 'none' && (
        <>
          {message && (
            <div className={`notice notice-${message.kind}`} role="status">
              <p>{message.text}</p>
            </div>
          )}
          <Banners data={state.data[0]} />
          <section className="cards" aria-label="Balance">
            <div className="card stat">
              <p>Available credits</p>
              <p className="stat-value">{state.data[0].available.toLocaleString('en-US')}</p>
            </div>
          </section>
          <Packs data={state.data[0]} canPay={canPay} onError={onError} />
          <Plan data={state.data[0]} canPay={canPay} onError={onError} onChanged={onDone} />
          <TopUp data={state.data[0]} canPay={canPay} onSaved={onDone} />
          <Purchases purchases={state.data[1].data} />
          <Invoices />
          {canPay && (
            <p>
              <button type="button" className="button button-secondary" onClick={() => void portal()}>
                Manage cards and invoices
              </button>
            </p>
          )}
        </>
      )}
    </main>
  );
}
