import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, Unique } from 'typeorm';
import type { EventName, WebhookDeliveryStatus } from '@gen/contracts';

export type DeliveryStatus = WebhookDeliveryStatus;

/**
 * Where a delivery's URL came from.
 * - `job`: the destination the generation carried, resolved by the gateway at submit (the
 *   request's `webhook_url`, else the key's default URL then). Every generation delivery since
 *   migration 1764600000000; a batch event's too (the batch's destination, resolved at creation).
 * - `request`: a test event's URL (given, or the key's default when it was sent); before that
 *   migration, also a generation's `webhook_url`.
 * - `key`: the key's default URL, read when the event arrived: an account event's (migration
 *   1764980000001); before 1764600000000, also a generation's.
 * A redelivery keeps its original's. Nothing decides on it: it tells the story of a row.
 */
export type DestinationSource = 'job' | 'request' | 'key';

/**
 * One webhook delivery: a body built once, sent up to three times under one delivery id.
 * Mirrors migrations 1763800000000, 1764500000000, 1764600000000, 1764980000001 and 1766200000000 (names of constraints and indexes included).
 */
@Entity({ name: 'deliveries' })
@Unique('deliveries_event_id_unique', ['eventId'])
@Index('deliveries_due', ['nextAttemptAt'], { where: `"status" = 'pending'` })
@Index('deliveries_by_job', ['accountId', 'jobId', 'createdAt'])
@Index('deliveries_one_pending_redelivery', ['jobId'], { unique: true, where: `"status" = 'pending' AND "event_id" IS NULL` })
@Index('deliveries_tests_by_key', ['accountId', 'apiKeyId', 'createdAt'], { where: `"test"` })
@Index('deliveries_one_pending_test', ['apiKeyId'], { unique: true, where: `"status" = 'pending' AND "test"` })
@Check('deliveries_id_format', `"id" ~ '^wh_[0-9A-Za-z]{20,}$'`)
@Index('deliveries_account_events', ['accountId', 'createdAt'], { where: `"job_id" IS NULL AND NOT "test"` })
@Check('deliveries_event_name', `"event" IN ('generation.completed', 'generation.failed', 'account.low_balance', 'batch.completed')`)
@Check('deliveries_url_source', `"url_source" IN ('job', 'request', 'key')`)
@Check('deliveries_status', `"status" IN ('pending', 'succeeded', 'failed')`)
@Check('deliveries_attempts_made', `"attempts_made" BETWEEN 0 AND 3`)
@Check('deliveries_pending_is_scheduled', `("status" = 'pending') = ("next_attempt_at" IS NOT NULL)`)
@Check('deliveries_origin', `("event_id" IS NULL) <> ("redelivery_of" IS NULL)`)
@Check('deliveries_test_has_no_job', `("job_id" IS NULL) = ("test" OR "event" IN ('account.low_balance', 'batch.completed'))`)
export class DeliveryEntity {
  /** `X-Service-Delivery-Id`: `wh_` + 24 base62 characters, the same for every attempt. */
  @PrimaryColumn('text', { primaryKeyConstraintName: 'deliveries_pkey' })
  id!: string;

  /**
   * The event that caused it (for a test event, its `test_` id); null for a redelivery. Unique: an
   * event seen twice makes one delivery.
   */
  @Column('text', { name: 'event_id', nullable: true })
  eventId!: string | null;

  /** For a redelivery, the delivery whose body it resends. */
  @Column('text', { name: 'redelivery_of', nullable: true })
  redeliveryOf!: string | null;

  @ManyToOne(() => DeliveryEntity, { nullable: true, onDelete: 'NO ACTION', onUpdate: 'NO ACTION' })
  @JoinColumn({ name: 'redelivery_of', foreignKeyConstraintName: 'deliveries_redelivery_of_fk' })
  original?: DeliveryEntity | null;

  /** The generation; null for a test event, an account event and a batch event (which have none). */
  @Column('uuid', { name: 'job_id', nullable: true })
  jobId!: string | null;

  @Column('uuid', { name: 'account_id' })
  accountId!: string;

  @Column('uuid', { name: 'api_key_id' })
  apiKeyId!: string;

  @Column('text')
  event!: EventName;

  @Column('text')
  url!: string;

  @Column('text', { name: 'url_source' })
  urlSource!: DestinationSource;

  /** A test event: sent with `X-Service-Test: true`, listed with its key's tests, never with a generation. */
  @Column('boolean', { default: false })
  test!: boolean;

  /** The exact bytes sent (and signed) at every attempt. */
  @Column('bytea')
  body!: Buffer;

  @Column('text', { default: () => `'pending'` })
  status!: DeliveryStatus;

  @Column('smallint', { name: 'attempts_made', default: 0 })
  attemptsMade!: number;

  /** When the next attempt is due; null once the delivery is finished. */
  @Column('timestamptz', { name: 'next_attempt_at', nullable: true })
  nextAttemptAt!: Date | null;

  /** Set while an attempt is in flight: only the holder of the token records its outcome. */
  @Column('uuid', { name: 'lease_token', nullable: true })
  leaseToken!: string | null;

  /** An in-flight attempt older than this was interrupted (the process died) and is not waited for. */
  @Column('timestamptz', { name: 'lease_until', nullable: true })
  leaseUntil!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'finished_at', nullable: true })
  finishedAt!: Date | null;
}
