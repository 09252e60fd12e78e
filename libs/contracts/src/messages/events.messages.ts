import { IsIn, IsInt, IsISO8601, IsNotEmpty, IsOptional, IsString } from 'class-validator';
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
