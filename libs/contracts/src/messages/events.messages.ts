import { IsIn, IsInt, IsISO8601, IsNotEmpty, IsObject, IsOptional, IsString } from 'class-validator';
import type { GenerationRecord } from '../shared/generation';
import { Nested } from '../validation';
import { GenerationRecordPayload } from './generation-record.payload';
import { EventName, Events } from './subjects';

/**
 * The durable events (JetStream in distributed mode, the outbox in both), checked on receipt by the
 * transport (PAYLOAD_CLASSES): a malformed event is counted and dropped, never redelivered.
 */
export class GenerationFinishedEvent {
  /** Unique per event; the JetStream message id (deduplication) and the consumers' idempotency key. */
  @IsString() @IsNotEmpty() eventId!: string;
  @IsIn([Events.generationCompleted, Events.generationFailed]) event!: EventName;
  @IsString() accountId!: string;
  @IsString() apiKeyId!: string;
  /** The destination resolved at submit (SubmitGenerationRequest.webhookUrl); null: no webhook. */
  @IsOptional() @IsString() webhookUrl!: string | null;
  @Nested(() => GenerationRecordPayload) record!: GenerationRecord;
}

/**
 * Published once per crossing (billing's outbox, written in the transaction that moved the balance
 * below the threshold; the event id is the outbox row's id, so a copy sent again is a no-op).
 */
export class AccountLowBalanceEvent {
  @IsString() @IsNotEmpty() eventId!: string;
  @IsIn([Events.accountLowBalance]) event!: 'account.low_balance';
  @IsString() accountId!: string;
  @IsInt() threshold!: number;
  @IsInt() available!: number;
  /** ISO 8601: the commit that crossed the threshold. */
  @IsISO8601() crossedAt!: string;
}

/** What a billing notice is about (docs/operations/payments.md, "What happens on each event"). */
export const BILLING_NOTICE_KINDS = ['payment_refunded', 'payment_disputed', 'account_restricted', 'subscription_changed', 'renewal_failed', 'top_up_failed'] as const;
export type BillingNoticeKind = (typeof BILLING_NOTICE_KINDS)[number];

/**
 * Something about an account's payments its owners must hear of (`account.billing_notice`, from
 * billing's outbox): the gateway writes it to the audit log and mails the owners.
 */
export class AccountBillingNoticeEvent {
  @IsString() @IsNotEmpty() eventId!: string;
  @IsIn([Events.accountBillingNotice]) event!: 'account.billing_notice';
  @IsString() accountId!: string;
  @IsIn(BILLING_NOTICE_KINDS) kind!: BillingNoticeKind;
  /** The mail's subject line. */
  @IsString() subject!: string;
  /** What happened and what to do, in plain sentences (the mail's text). */
  @IsString() message!: string;
  /** The Stripe ids and amounts, for the audit log. */
  @IsObject() details!: Record<string, unknown>;
}
