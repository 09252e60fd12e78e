import { Check, Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { WebhookAttemptErrorClass } from '@gen/contracts';
import { DeliveryEntity } from './delivery.entity';

/**
 * Why an attempt failed. Stable values, shown in the delivery log:
 * - `http_status`: the receiver answered, but not with a 2xx (a 3xx included: redirects are not followed);
 * - `timeout`: no complete answer (headers and body) within 5 s;
 * - `connection`: refused, reset, DNS failure, TLS failure;
 * - `forbidden_destination`: the URL or the address it resolved to is not allowed (SSRF policy);
 * - `no_secret`: the key has no signing secret, so nothing was sent (every delivery is signed);
 * - `interrupted`: the service stopped during the attempt; it may or may not have reached the receiver.
 */
export type AttemptErrorClass = WebhookAttemptErrorClass;

/** One attempt of a delivery. `duration_ms` and the outcome columns are null while it is in flight. */
@Entity({ name: 'attempts' })
@Check('attempts_number', `"number" BETWEEN 1 AND 3`)
@Check('attempts_duration', `"duration_ms" IS NULL OR "duration_ms" >= 0`)
export class AttemptEntity {
  @PrimaryColumn('text', { name: 'delivery_id', primaryKeyConstraintName: 'attempts_pkey' })
  deliveryId!: string;

  /** 1, 2 or 3. */
  @PrimaryColumn('smallint', { primaryKeyConstraintName: 'attempts_pkey' })
  number!: number;

  @ManyToOne(() => DeliveryEntity, { onDelete: 'CASCADE', onUpdate: 'NO ACTION' })
  @JoinColumn({ name: 'delivery_id', foreignKeyConstraintName: 'attempts_delivery_fk' })
  delivery?: DeliveryEntity;

  @Column('timestamptz', { name: 'started_at' })
  startedAt!: Date;

  @Column('integer', { name: 'duration_ms', nullable: true })
  durationMs!: number | null;

  /** The receiver's HTTP status, when it answered. */
  @Column('smallint', { name: 'status_code', nullable: true })
  statusCode!: number | null;

  @Column('text', { name: 'error_class', nullable: true })
  errorClass!: AttemptErrorClass | null;

  /** Sanitised, user-facing: no stack trace, no secret, at most 300 characters. */
  @Column('text', { nullable: true })
  error!: string | null;
}
