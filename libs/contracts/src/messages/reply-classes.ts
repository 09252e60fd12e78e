import { WebhookSecretReplyPayload, AccountWebhooksReplyPayload } from './auth.reply-payloads';
import {
  BalanceReplyPayload,
  KeyCapViewPayload,
  LedgerReplyPayload,
  ListKeyCapsReplyPayload,
  LowBalanceViewPayload,
  ReleaseCreditsReplyPayload,
  ReserveCreditsReplyPayload,
  UsageReplyPayload,
} from './billing.reply-payloads';
import { AddBatchLinesReplyPayload, BatchLinesReplyPayload, BatchViewPayload, ListBatchesReplyPayload } from './batches.messages';
import { GenerationRecordPayload } from './generation-record.payload';
import {
  CancelGenerationReplyPayload,
  ListGenerationsReplyPayload,
  ListModelsReplyPayload,
  ModelInfoPayload,
  OutputStatusReplyPayload,
  ProviderCallbackReplyPayload,
  SubmitGenerationReplyPayload,
} from './generation.reply-payloads';
import type { PayloadClass, Subject } from './payload-classes';
import { CheckoutReplyPayload, ListPurchasesReplyPayload, PaymentsOverviewPayload, PortalReplyPayload, StripeEventReplyPayload, SubscribeReplyPayload, TopUpViewPayload, ListInvoicesReplyPayload } from './payments.messages';
import { Subjects } from './subjects';
import { ListTestWebhooksReplyPayload, ListWebhookDeliveriesReplyPayload, WebhookDeliveryViewPayload } from './webhooks.reply-payloads';

/**
 * The class of every request's successful reply, by subject (a subject missing here does not
 * compile). Only the message contract reads it (docs/design/messages.asyncapi.yaml): replies are not
 * checked on receipt, since the service that reads one built the request.
 */
export const REPLY_CLASSES: Readonly<Record<Subject, PayloadClass>> = {
  [Subjects.billingReserve]: ReserveCreditsReplyPayload,
  [Subjects.billingRelease]: ReleaseCreditsReplyPayload,
  [Subjects.billingBalance]: BalanceReplyPayload,
  [Subjects.billingAccountOpen]: BalanceReplyPayload,
  [Subjects.billingLedger]: LedgerReplyPayload,
  [Subjects.billingUsage]: UsageReplyPayload,
  [Subjects.billingKeyCapsList]: ListKeyCapsReplyPayload,
  [Subjects.billingKeyCapsSet]: KeyCapViewPayload,
  [Subjects.billingLowBalanceGet]: LowBalanceViewPayload,
  [Subjects.billingLowBalanceSet]: LowBalanceViewPayload,
  [Subjects.billingStripeEvent]: StripeEventReplyPayload,
  [Subjects.billingPaymentsOverview]: PaymentsOverviewPayload,
  [Subjects.billingPaymentsCheckout]: CheckoutReplyPayload,
  [Subjects.billingPaymentsPortal]: PortalReplyPayload,
  [Subjects.billingPaymentsPurchases]: ListPurchasesReplyPayload,
  [Subjects.billingPaymentsSubscribe]: SubscribeReplyPayload,
  [Subjects.billingPaymentsInvoices]: ListInvoicesReplyPayload,
  [Subjects.billingPaymentsTopUpGet]: TopUpViewPayload,
  [Subjects.billingPaymentsTopUpSet]: TopUpViewPayload,
  [Subjects.generationSubmit]: SubmitGenerationReplyPayload,
  [Subjects.generationBatchCreate]: AddBatchLinesReplyPayload,
  [Subjects.generationBatchLines]: AddBatchLinesReplyPayload,
  [Subjects.generationBatchSeal]: BatchViewPayload,
  [Subjects.generationBatchGet]: BatchViewPayload,
  [Subjects.generationBatchList]: ListBatchesReplyPayload,
  [Subjects.generationBatchCancel]: BatchViewPayload,
  [Subjects.generationBatchResults]: BatchLinesReplyPayload,
  [Subjects.generationGet]: GenerationRecordPayload,
  [Subjects.generationList]: ListGenerationsReplyPayload,
  [Subjects.generationCancel]: CancelGenerationReplyPayload,
  [Subjects.generationOutputStatus]: OutputStatusReplyPayload,
  [Subjects.generationProviderCallback]: ProviderCallbackReplyPayload,
  [Subjects.modelsList]: ListModelsReplyPayload,
  [Subjects.modelsGet]: ModelInfoPayload,
  [Subjects.authWebhookSecretGet]: WebhookSecretReplyPayload,
  [Subjects.authAccountWebhooksGet]: AccountWebhooksReplyPayload,
  [Subjects.webhooksDeliveriesList]: ListWebhookDeliveriesReplyPayload,
  [Subjects.webhooksRedeliver]: WebhookDeliveryViewPayload,
  [Subjects.webhooksTestSend]: WebhookDeliveryViewPayload,
  [Subjects.webhooksTestList]: ListTestWebhooksReplyPayload,
  [Subjects.webhooksAccountEventsList]: ListWebhookDeliveriesReplyPayload,
};
