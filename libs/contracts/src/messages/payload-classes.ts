import { ProviderCallbackRequest } from '../shared/provider-callbacks';
import { AccountWebhooksRequest, WebhookSecretRequest } from './auth.messages';
import { AddBatchLinesRequest, BatchFinishedEvent, CancelBatchRequest, CreateBatchRequest, GetBatchRequest, ListBatchesRequest, ListBatchLinesRequest, SealBatchRequest } from './batches.messages';
import {
  BalanceRequest,
  GetLowBalanceRequest,
  LedgerRequest,
  ListKeyCapsRequest,
  OpenBillingAccountRequest,
  ReleaseCreditsRequest,
  ReserveCreditsRequest,
  SetKeyCapsRequest,
  SetLowBalanceRequest,
  UsageRequest,
} from './billing.messages';
import { AccountChangedBroadcast, ApiKeyChangedBroadcast, GenerationChangedBroadcast } from './broadcasts.messages';
import { AccountBillingNoticeEvent, AccountLowBalanceEvent, GenerationFinishedEvent } from './events.messages';
import {
  CancelGenerationRequest,
  GetGenerationRequest,
  GetModelRequest,
  ListGenerationsRequest,
  ListModelsRequest,
  OutputStatusRequest,
  SubmitGenerationRequest,
} from './generation.messages';
import { CreateCheckoutRequest, CreatePortalRequest, ListPurchasesRequest, PaymentsOverviewRequest, StripeEventRequest, SubscribeRequest, GetTopUpRequest, SetTopUpRequest, ListInvoicesRequest } from './payments.messages';
import { Broadcasts, EventName, Events, Subjects } from './subjects';
import {
  AccountEventsListRequest,
  ListTestWebhooksRequest,
  ListWebhookDeliveriesRequest,
  RedeliverWebhookRequest,
  SendTestWebhookRequest,
} from './webhooks.messages';

/** A payload class: its class-validator decorators are the payload's schema. */
export type PayloadClass = new () => object;

export type Subject = (typeof Subjects)[keyof typeof Subjects];
export type Broadcast = (typeof Broadcasts)[keyof typeof Broadcasts];

/**
 * The class of every request and event payload, by subject: the transport checks each message it
 * receives against it before a handler sees it (libs/transport, payload-check.ts). A subject
 * missing here does not compile.
 */
export const PAYLOAD_CLASSES: Readonly<Record<Subject | EventName, PayloadClass>> = {
  [Subjects.billingReserve]: ReserveCreditsRequest,
  [Subjects.billingRelease]: ReleaseCreditsRequest,
  [Subjects.billingBalance]: BalanceRequest,
  [Subjects.billingAccountOpen]: OpenBillingAccountRequest,
  [Subjects.billingLedger]: LedgerRequest,
  [Subjects.billingUsage]: UsageRequest,
  [Subjects.billingKeyCapsList]: ListKeyCapsRequest,
  [Subjects.billingKeyCapsSet]: SetKeyCapsRequest,
  [Subjects.billingLowBalanceGet]: GetLowBalanceRequest,
  [Subjects.billingLowBalanceSet]: SetLowBalanceRequest,
  [Subjects.billingStripeEvent]: StripeEventRequest,
  [Subjects.billingPaymentsOverview]: PaymentsOverviewRequest,
  [Subjects.billingPaymentsCheckout]: CreateCheckoutRequest,
  [Subjects.billingPaymentsPortal]: CreatePortalRequest,
  [Subjects.billingPaymentsPurchases]: ListPurchasesRequest,
  [Subjects.billingPaymentsSubscribe]: SubscribeRequest,
  [Subjects.billingPaymentsInvoices]: ListInvoicesRequest,
  [Subjects.billingPaymentsTopUpGet]: GetTopUpRequest,
  [Subjects.billingPaymentsTopUpSet]: SetTopUpRequest,
  [Subjects.generationSubmit]: SubmitGenerationRequest,
  [Subjects.generationBatchCreate]: CreateBatchRequest,
  [Subjects.generationBatchLines]: AddBatchLinesRequest,
  [Subjects.generationBatchSeal]: SealBatchRequest,
  [Subjects.generationBatchGet]: GetBatchRequest,
  [Subjects.generationBatchList]: ListBatchesRequest,
  [Subjects.generationBatchCancel]: CancelBatchRequest,
  [Subjects.generationBatchResults]: ListBatchLinesRequest,
  [Subjects.generationGet]: GetGenerationRequest,
  [Subjects.generationList]: ListGenerationsRequest,
  [Subjects.generationCancel]: CancelGenerationRequest,
  [Subjects.generationOutputStatus]: OutputStatusRequest,
  [Subjects.generationProviderCallback]: ProviderCallbackRequest,
  [Subjects.modelsList]: ListModelsRequest,
  [Subjects.modelsGet]: GetModelRequest,
  [Subjects.authWebhookSecretGet]: WebhookSecretRequest,
  [Subjects.authAccountWebhooksGet]: AccountWebhooksRequest,
  [Subjects.webhooksDeliveriesList]: ListWebhookDeliveriesRequest,
  [Subjects.webhooksRedeliver]: RedeliverWebhookRequest,
  [Subjects.webhooksTestSend]: SendTestWebhookRequest,
  [Subjects.webhooksTestList]: ListTestWebhooksRequest,
  [Subjects.webhooksAccountEventsList]: AccountEventsListRequest,
  [Events.generationCompleted]: GenerationFinishedEvent,
  [Events.generationFailed]: GenerationFinishedEvent,
  [Events.accountLowBalance]: AccountLowBalanceEvent,
  [Events.accountBillingNotice]: AccountBillingNoticeEvent,
  [Events.batchCompleted]: BatchFinishedEvent,
};

export interface BroadcastPayload {
  payload: PayloadClass | null;
  malformed: 'drop' | 'deliver';
}

/**
 * Broadcasts are hints (Broadcasts), so a malformed one is counted and then either dropped or passed
 * on as it came: `deliver` for the cache invalidations, whose subscribers answer a message they cannot
 * read by forgetting everything they cached (dropping it would keep what it meant to invalidate);
 * `drop` for the live status, which the durable paths (the record, the event) carry anyway.
 */
export const BROADCAST_PAYLOADS: Readonly<Record<Broadcast, BroadcastPayload>> = {
  [Broadcasts.generationChanged]: { payload: GenerationChangedBroadcast, malformed: 'drop' },
  [Broadcasts.apiKeyChanged]: { payload: ApiKeyChangedBroadcast, malformed: 'deliver' },
  [Broadcasts.accountChanged]: { payload: AccountChangedBroadcast, malformed: 'deliver' },
  // Carries nothing (every replica reads the whole catalogue again): nothing to check.
  [Broadcasts.catalogueChanged]: { payload: null, malformed: 'deliver' },
};
