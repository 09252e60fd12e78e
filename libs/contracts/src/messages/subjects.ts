/**
 * Request/reply subjects. The only place these strings exist: apps import them from here.
 * Version suffixes go on the subject when a payload changes incompatibly (`billing.reserve.v2`).
 */
export const Subjects = {
  billingReserve: 'billing.reserve',
  billingRelease: 'billing.release',
  billingBalance: 'billing.balance',
  billingAccountOpen: 'billing.account.open',
  billingLedger: 'billing.ledger',
  billingUsage: 'billing.usage',
  billingKeyCapsList: 'billing.key-caps.list',
  billingKeyCapsSet: 'billing.key-caps.set',
  billingLowBalanceGet: 'billing.low-balance.get',
  billingLowBalanceSet: 'billing.low-balance.set',
  /** A Stripe event the gateway verified (StripeEventRequest; docs/operations/payments.md). */
  billingStripeEvent: 'billing.stripe.event',
  /** The dashboard's Billing page: balance, packs, the Stripe customer (PaymentsOverviewRequest). */
  billingPaymentsOverview: 'billing.payments.overview',
  /** A Checkout Session for a credit pack (CreateCheckoutRequest). */
  billingPaymentsCheckout: 'billing.payments.checkout',
  /** A Stripe customer portal link (CreatePortalRequest). */
  billingPaymentsPortal: 'billing.payments.portal',
  /** The account's pack purchases with their receipts (ListPurchasesRequest). */
  billingPaymentsPurchases: 'billing.payments.purchases',
  /** The owner picks a plan: a subscription's Checkout, or its price changed (SubscribeRequest). */
  billingPaymentsSubscribe: 'billing.payments.subscribe',
  /** The account's invoices at Stripe (ListInvoicesRequest). */
  billingPaymentsInvoices: 'billing.payments.invoices',
  /** The account's automatic top-up (GetTopUpRequest; TopUpView). */
  billingPaymentsTopUpGet: 'billing.payments.top-up.get',
  /** Turns the automatic top-up on or off (SetTopUpRequest; TopUpView). */
  billingPaymentsTopUpSet: 'billing.payments.top-up.set',
  generationSubmit: 'generation.submit',
  /** A batch, without its lines (CreateBatchRequest; docs/design/batches.md). */
  generationBatchCreate: 'generation.batch.create',
  /** A chunk of a batch's lines (AddBatchLinesRequest). */
  generationBatchLines: 'generation.batch.lines',
  /** Every line stored: the batch starts (SealBatchRequest). */
  generationBatchSeal: 'generation.batch.seal',
  generationBatchGet: 'generation.batch.get',
  generationBatchList: 'generation.batch.list',
  generationBatchCancel: 'generation.batch.cancel',
  /** A page of a batch's results or errors file (ListBatchLinesRequest). */
  generationBatchResults: 'generation.batch.results',
  generationGet: 'generation.get',
  generationList: 'generation.list',
  generationCancel: 'generation.cancel',
  generationOutputStatus: 'generation.output-status',
  /** A provider's callback about an upstream job (ProviderCallbackRequest, provider-callbacks.ts). */
  generationProviderCallback: 'generation.provider-callback',
  modelsList: 'models.list',
  modelsGet: 'models.get',
  authWebhookSecretGet: 'auth.webhook-secret.get',
  /** Where an account's events go (AccountWebhooksRequest/Reply): its keys' default webhook URLs. */
  authAccountWebhooksGet: 'auth.account-webhooks.get',
  webhooksDeliveriesList: 'webhooks.deliveries.list',
  webhooksRedeliver: 'webhooks.redeliver',
  webhooksTestSend: 'webhooks.test.send',
  webhooksTestList: 'webhooks.test.list',
  /** An account's latest account-event deliveries (AccountEventsListRequest; ListWebhookDeliveriesReply). */
  webhooksAccountEventsList: 'webhooks.account-events.list',
} as const;

/**
 * Broadcasts: fire-and-forget, to every replica that listens (core NATS without a queue group;
 * in-process in standalone). Hints that make something faster, never the only way a fact travels.
 */
export const Broadcasts = {
  /** A job changed (queued, started, progressed, finished): feeds the live status streams. */
  generationChanged: 'generation.changed',
  /** An API key was revoked or its webhook URL or secret changed: gateways drop their cached copy. */
  apiKeyChanged: 'auth.api-key-changed',
  /** An account's plan or limits changed: gateways drop their cached copy of its plan. */
  accountChanged: 'auth.account-changed',
  /** The model catalogue changed (a model added, updated, disabled, enabled; a sync): every replica reads it again. */
  catalogueChanged: 'generation.catalogue-changed',
} as const;

/**
 * PostgreSQL NOTIFY channels (one database holds every service's schema): the database announces
 * these changes itself at the writer's commit (triggers in the owners' migrations), so they reach
 * every listening process whoever wrote them and whether or not a broker links the two.
 */
export const DatabaseChannels = {
  /** Payload `{"apiKeyId","lookupId"}` (ApiKeyChangedBroadcast); `auth.api_keys` (gateway migration 1764840000000). */
  apiKeyChanged: 'gen_api_key_changed',
  /** No payload; `generation.models` (generation migration 1764840000001). */
  catalogueChanged: 'gen_catalogue_changed',
  /** Payload `{"accountId"}` (AccountChangedBroadcast): plan or limits; `billing.accounts` (billing migration 1764930000000). */
  accountChanged: 'gen_account_changed',
} as const;

/** Durable events (JetStream in distributed mode; the outbox in both modes). */
export const Events = {
  generationCompleted: 'generation.completed',
  generationFailed: 'generation.failed',
  /** An account's available credits fell below its low-balance threshold (AccountLowBalanceEvent; billing's outbox). */
  accountLowBalance: 'account.low_balance',
  /** A payment refunded or disputed, an account restricted, a plan or top-up changed by Stripe (AccountBillingNoticeEvent; billing's outbox). */
  accountBillingNotice: 'account.billing_notice',
  /** A batch ended: completed, canceled or expired (BatchFinishedEvent; generation's outbox). */
  batchCompleted: 'batch.completed',
} as const;
export type EventName = (typeof Events)[keyof typeof Events];
