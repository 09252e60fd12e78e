import type { ServiceName } from '../shared/health';
import type { Broadcast, Subject } from '../messages/payload-classes';
import type { EventName } from '../messages/subjects';

/** Who publishes a message and who takes it: a service, or the operator's CLI (`gen ...`). */
export type Party = ServiceName | 'cli';

export interface Parties {
  from: readonly Party[];
  to: readonly Party[];
  /** Why the list is unusual, when it is (printed in the document). */
  note?: string;
}

const gatewayTo = (to: Party): Parties => ({ from: ['gateway'], to: [to] });

/**
 * The senders and receivers of every subject, for the message contract's operations (a subject
 * missing here does not compile). Written by hand: the code that sends is in the apps, which a
 * library cannot import; message-parties.spec.ts checks each entry against the apps' sources.
 */
export const MESSAGE_PARTIES: Readonly<Record<Subject | EventName | Broadcast, Parties>> = {
  'billing.reserve': { from: ['gateway', 'generation'], to: ['billing'], note: 'Generation holds the credits of a batch line when it admits the line.' },
  'billing.release': {
    from: ['gateway', 'generation'],
    to: ['billing'],
    note: 'Generation releases a batch line\'s hold when the line does not become a job after all (its model refused, its account\'s queue full, its batch canceled).',
  },
  'billing.balance': gatewayTo('billing'),
  'billing.account.open': gatewayTo('billing'),
  'billing.ledger': gatewayTo('billing'),
  'billing.usage': gatewayTo('billing'),
  'billing.key-caps.list': gatewayTo('billing'),
  'billing.key-caps.set': gatewayTo('billing'),
  'billing.low-balance.get': gatewayTo('billing'),
  'billing.low-balance.set': gatewayTo('billing'),
  'billing.stripe.event': gatewayTo('billing'),
  'billing.payments.overview': gatewayTo('billing'),
  'billing.payments.checkout': gatewayTo('billing'),
  'billing.payments.portal': gatewayTo('billing'),
  'billing.payments.purchases': gatewayTo('billing'),
  'billing.payments.subscribe': gatewayTo('billing'),
  'billing.payments.invoices': gatewayTo('billing'),
  'billing.payments.top-up.get': gatewayTo('billing'),
  'billing.payments.top-up.set': gatewayTo('billing'),
  'generation.submit': gatewayTo('generation'),
  'generation.batch.create': gatewayTo('generation'),
  'generation.batch.lines': gatewayTo('generation'),
  'generation.batch.seal': gatewayTo('generation'),
  'generation.batch.get': gatewayTo('generation'),
  'generation.batch.list': gatewayTo('generation'),
  'generation.batch.cancel': gatewayTo('generation'),
  'generation.batch.results': gatewayTo('generation'),
  'generation.get': gatewayTo('generation'),
  'generation.list': gatewayTo('generation'),
  'generation.cancel': gatewayTo('generation'),
  'generation.output-status': gatewayTo('generation'),
  'generation.provider-callback': gatewayTo('generation'),
  'models.list': gatewayTo('generation'),
  'models.get': { from: [], to: ['generation'], note: 'Answered for any caller; no service of this release sends it (the gateway reads its copy of models.list).' },
  'auth.webhook-secret.get': { from: ['webhooks'], to: ['gateway'] },
  'auth.account-webhooks.get': { from: ['webhooks'], to: ['gateway'] },
  'webhooks.deliveries.list': gatewayTo('webhooks'),
  'webhooks.redeliver': gatewayTo('webhooks'),
  'webhooks.test.send': gatewayTo('webhooks'),
  'webhooks.test.list': gatewayTo('webhooks'),
  'webhooks.account-events.list': gatewayTo('webhooks'),
  'generation.completed': { from: ['generation'], to: ['billing', 'webhooks'] },
  'generation.failed': { from: ['generation'], to: ['billing', 'webhooks'] },
  'batch.completed': { from: ['generation'], to: ['webhooks'] },
  'account.low_balance': { from: ['billing'], to: ['gateway', 'webhooks', 'billing'] },
  'account.billing_notice': { from: ['billing'], to: ['gateway'] },
  'generation.changed': { from: ['generation'], to: ['gateway', 'generation'] },
  'auth.api-key-changed': { from: ['gateway', 'cli'], to: ['gateway'] },
  'auth.account-changed': { from: ['cli'], to: ['gateway'] },
  'generation.catalogue-changed': { from: ['cli'], to: ['gateway', 'generation'] },
};
