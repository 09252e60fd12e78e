import type { GenerationRecord, GenerationType, JobStatus, ModelInfo, PlanName } from './generation';

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
  generationSubmit: 'generation.submit',
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
} as const;
export type EventName = (typeof Events)[keyof typeof Events];

// ---- billing ----
export interface ReserveCreditsRequest {
  accountId: string;
  jobId: string;
  modelId: string;
  amount: number;
  minimum: number;
  /** The API key of the submit: its spending caps apply (docs/guide/limits.md). Absent: no key, no cap. */
  apiKeyId?: string;
}
export interface ReserveCreditsReply {
  holdId: string;
  available: number;
}
export interface ReleaseCreditsRequest {
  accountId: string;
  jobId: string;
  reason: string;
}
export interface BalanceRequest {
  accountId: string;
}
export interface BalanceReply {
  accountId: string;
  plan: PlanName;
  available: number;
  held: number;
  limits: { requests_per_minute: number; parallel_tasks: number };
}
export interface OpenBillingAccountRequest {
  accountId: string;
  plan: PlanName;
  initialCredits: number;
}

/** An API key's spending caps (credits per UTC day and month; null: none) and its spend so far. */
export interface KeyCapView {
  key_id: string;
  per_day: number | null;
  per_month: number | null;
  /** Credits held or charged today (UTC); refunds of failed generations are given back. */
  spent_today: number;
  spent_this_month: number;
  /** When the day's and the month's spend start again from 0 (ISO 8601, UTC). */
  day_resets_at: string;
  month_resets_at: string;
}
export interface ListKeyCapsRequest {
  accountId: string;
  /** These keys, each with a row even without caps or spend; absent: every key with either. */
  keyIds?: string[];
}
export interface ListKeyCapsReply {
  data: KeyCapView[];
}
/** A number sets a cap, null removes it, an absent field keeps it. Caps are whole credits, at least 1. */
export interface SetKeyCapsRequest {
  accountId: string;
  keyId: string;
  perDay?: number | null;
  perMonth?: number | null;
}

/**
 * An account's low-balance alert setting (docs/guide/limits.md, "Low-balance alerts"): a whole number of
 * credits; null when alerts are off. `below` is true while the current crossing has been alerted.
 */
export interface LowBalanceView {
  threshold: number | null;
  available: number;
  below: boolean;
}
export interface GetLowBalanceRequest {
  accountId: string;
}
/** `threshold`: a whole number of credits from 0 to MAX_LOW_BALANCE_THRESHOLD; 0 or null turns alerts off. */
export interface SetLowBalanceRequest {
  accountId: string;
  threshold: number | null;
}
/** The largest threshold accepted (credits): PostgreSQL's integer. */
export const MAX_LOW_BALANCE_THRESHOLD = 2_147_483_647;
/**
 * Published once per crossing (billing's outbox, written in the transaction that moved the balance
 * below the threshold; the event id is the outbox row's id, so a copy sent again is a no-op).
 */
export interface AccountLowBalanceEvent {
  eventId: string;
  event: 'account.low_balance';
  accountId: string;
  threshold: number;
  available: number;
  /** ISO 8601: the commit that crossed the threshold. */
  crossedAt: string;
}

/** Kinds of ledger rows, as billing stores them. */
export const LEDGER_KINDS = ['grant', 'adjustment', 'hold', 'capture', 'release'] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

/** A page of the account's credit ledger, newest first (`GET /api/v1/credits/ledger`). */
export interface LedgerRequest {
  accountId: string;
  limit: number;
  /** `next_cursor` of the previous page. */
  cursor?: string;
}
/** One ledger row as API clients see it (snake_case: it goes to them as is). */
export interface LedgerEntryView {
  id: string;
  kind: LedgerKind;
  /** Signed change to the available credits (a hold is negative, a release positive, a capture 0). */
  amount: number;
  /** Signed change to the held credits (a hold is positive, a capture or release negative). */
  held_change: number;
  /** Available credits right after this entry. */
  balance_after: number;
  /** The generation it belongs to (holds, captures, releases); null for grants and adjustments. */
  generation_id: string | null;
  /** The model of that generation, when billing knows it (entries made before it was recorded: null). */
  model: string | null;
  created_at: string;
  note: string | null;
}
export interface LedgerReply {
  data: LedgerEntryView[];
  next_cursor: string | null;
}
/** Spending (captured credits) per day and per model over the last `days` days, in UTC. */
export interface UsageRequest {
  accountId: string;
  days: number;
}
export interface UsageDay {
  /** `YYYY-MM-DD` (UTC). */
  date: string;
  credits: number;
  generations: number;
  /** Credits per model that day (models with none are left out; `unknown` for entries without a model). */
  by_model: Record<string, number>;
}
export interface UsageModel {
  model: string;
  credits: number;
  generations: number;
}
export interface UsageReply {
  /** First and last day covered (UTC), `days` days in all, oldest first in `days`. */
  from: string;
  to: string;
  days: UsageDay[];
  /** Most credits first. */
  models: UsageModel[];
  total: { credits: number; generations: number; refunds: number };
}

// ---- generation ----
export interface SubmitGenerationRequest {
  jobId: string;
  accountId: string;
  apiKeyId: string;
  model: string;
  prompt: string;
  type: GenerationType;
  /**
   * Where the generation's webhook goes, decided by the gateway at submit: the request's
   * `webhook_url`, else the key's default webhook URL as it was then; null for none. The job stores
   * it and its finished event carries it, so a default changed later does not redirect it.
   */
  webhookUrl: string | null;
  plan: PlanName;
  /** Credits billing holds for the job (the model's price when the gateway checked it); charged on success. */
  credits: number;
  /** The account's parallel-task limit (from its plan), applied when the job is claimed. */
  parallelLimit: number;
  /** How long the caller waits for a synchronous model before taking the current state (ms). */
  waitMs: number;
  /** `Cancel-After`: the job is canceled if not finished this many seconds after submit; null for none. */
  cancelAfterSeconds: number | null;
  /** The customer's `input` as the gateway applied it (validated, defaults filled, media resolved); absent: `{}`. */
  input?: Record<string, unknown>;
  /** The customer's metadata, checked; absent: `{}`. */
  metadata?: Record<string, string>;
  /**
   * The catalogue version (ListModelsReply.version) the gateway checked the model and held the credits
   * against: a replica whose copy differs reads the catalogue again before admitting the job.
   */
  catalogueVersion?: string;
}
export interface SubmitGenerationReply {
  /** True when the record is final (completed or failed). */
  finished: boolean;
  record: GenerationRecord;
}
export interface GetGenerationRequest {
  accountId: string;
  jobId: string;
}
export interface ListGenerationsRequest {
  accountId: string;
  limit: number;
  cursor?: string;
  status?: JobStatus;
  type?: GenerationType;
}
export interface ListGenerationsReply {
  data: GenerationRecord[];
  next_cursor: string | null;
}
/** `POST /api/v1/generations/{id}/cancel`. */
export interface CancelGenerationRequest {
  accountId: string;
  jobId: string;
}
export interface CancelGenerationReply {
  /** True once the record is final (canceled, or it was already); false while a processing job is being stopped. */
  finished: boolean;
  record: GenerationRecord;
}
/** Whether an output key names an output that existed and was deleted at the end of its retention. */
export interface OutputStatusRequest {
  outputKey: string;
}
export interface OutputStatusReply {
  status: 'expired' | 'unknown';
}
export interface ListModelsRequest {
  plan?: PlanName;
}
export interface ListModelsReply {
  data: ModelInfo[];
  /**
   * Names this content of the catalogue (a digest of every model's definition). The gateway sends it
   * with each submit, so that the hold, the admission and the charge of one job use one catalogue.
   */
  version?: string;
}
export interface GetModelRequest {
  modelId: string;
}

// ---- auth (answered by the gateway) ----
/**
 * `auth.webhook-secret.get`: the webhooks service's one dependency on the gateway. Asked before
 * attempts (never cached), so a renewed secret signs the very next attempt. The destination is not
 * asked: the gateway resolved it at submit, and it comes with the event (`webhookUrl`).
 */
export interface WebhookSecretRequest {
  apiKeyId: string;
}
/** How a key's webhooks are signed: the spec's X-Service-* headers, or Standard Webhooks. */
export type WebhookSignatureScheme = 'service' | 'standard';

export interface WebhookSecretReply {
  /** The key's current signing secret, in clear; null when it has none (then nothing is sent: every delivery is signed). */
  secret: string | null;
  /** The key's scheme; absent from an older gateway: `service`. */
  scheme?: WebhookSignatureScheme;
  /**
   * A `standard` key's previous secret while a rotation's overlap lasts (each attempt then carries both
   * signatures); null or absent otherwise.
   */
  previousSecret?: string | null;
}

export interface AccountEventsListRequest {
  accountId: string;
  limit: number;
}
export interface AccountWebhooksRequest {
  accountId: string;
}
/**
 * Where an account's events go: each distinct default webhook URL of its live keys that can sign,
 * with the key whose secret signs it (the oldest key with that URL).
 */
export interface AccountWebhooksReply {
  data: Array<{ apiKeyId: string; url: string }>;
}

// ---- broadcasts ----
export interface GenerationChangedBroadcast {
  accountId: string;
  record: GenerationRecord;
}
export interface ApiKeyChangedBroadcast {
  apiKeyId: string;
  /** The key's public lookup id (what gateways cache it by). */
  lookupId: string;
}
export interface AccountChangedBroadcast {
  accountId: string;
}

// ---- events ----
export interface GenerationFinishedEvent {
  /** Unique per event; the JetStream message id (deduplication) and the consumers' idempotency key. */
  eventId: string;
  event: EventName;
  accountId: string;
  apiKeyId: string;
  /** The destination resolved at submit (SubmitGenerationRequest.webhookUrl); null: no webhook. */
  webhookUrl: string | null;
  record: GenerationRecord;
}

// ---- webhooks (delivery log; answered by the webhooks service) ----
/** The deliveries of one generation of one account (`GET /api/v1/generations/{id}/deliveries`). */
export interface ListWebhookDeliveriesRequest {
  accountId: string;
  jobId: string;
}
export interface ListWebhookDeliveriesReply {
  /** Oldest first: the original delivery, then any redeliveries. Empty when none was made. */
  data: WebhookDeliveryView[];
}
/** Sends the generation's event again, as a new delivery (`POST /api/v1/generations/{id}/redeliver`). */
export interface RedeliverWebhookRequest {
  accountId: string;
  jobId: string;
}
export type RedeliverWebhookReply = WebhookDeliveryView;
/**
 * Sends a test event (`POST /api/v1/webhooks/test`): a `generation.completed`-shaped body with a
 * `test_` id, signed with the key's current secret, through the dispatcher like any delivery. The
 * gateway has checked the key (the account's, active, with a secret) and the URL.
 */
export interface SendTestWebhookRequest {
  accountId: string;
  apiKeyId: string;
  url: string;
}
export type SendTestWebhookReply = WebhookDeliveryView;
/** The latest test events of one key of one account, newest first. */
export interface ListTestWebhooksRequest {
  accountId: string;
  apiKeyId: string;
  limit: number;
}
export interface ListTestWebhooksReply {
  data: WebhookDeliveryView[];
}

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed';
export type WebhookAttemptErrorClass =
  | 'http_status'
  | 'timeout'
  | 'connection'
  | 'forbidden_destination'
  | 'no_secret'
  | 'interrupted';

/** A delivery as the delivery log shows it (snake_case: it goes to API clients as is). */
export interface WebhookDeliveryView {
  /** The `X-Service-Delivery-Id` of every attempt. */
  id: string;
  event: EventName;
  url: string;
  status: WebhookDeliveryStatus;
  attempts_made: number;
  max_attempts: number;
  /** ISO 8601; null once finished. */
  next_attempt_at: string | null;
  created_at: string;
  finished_at: string | null;
  /** For a redelivery, the id of the delivery whose body it resends. */
  redelivery_of: string | null;
  /** A test event (`POST /api/v1/webhooks/test`), sent with `X-Service-Test: true`. */
  test: boolean;
  attempts: WebhookAttemptView[];
}
export interface WebhookAttemptView {
  number: number;
  started_at: string;
  /** Null while the attempt is in flight. */
  duration_ms: number | null;
  outcome: 'in_flight' | 'succeeded' | 'failed';
  status_code: number | null;
  error_class: WebhookAttemptErrorClass | null;
  /** Sanitised, user-facing. */
  error: string | null;
}
