import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * An event written in the transaction that caused it (today: `account.low_balance`, by the trigger
 * of migration 1764980000000); `LowBalanceRelay` publishes it. Mirrors that migration, names included.
 */
@Entity({ name: 'outbox' })
@Index('outbox_pending', ['createdAt'], { where: `"published_at" IS NULL` })
export class BillingOutboxEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'outbox_pkey' })
  id!: string;

  @Column('text')
  pattern!: string;

  @Column('jsonb')
  payload!: unknown;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'published_at', nullable: true })
  publishedAt!: Date | null;

  @Column('integer', { name: 'publish_attempts', default: 0 })
  publishAttempts!: number;

  /** The relay publishing it now; another takes it over once `leaseExpiresAt` has passed. */
  @Column('text', { name: 'lease_owner', nullable: true })
  leaseOwner!: string | null;

  @Column('timestamptz', { name: 'lease_expires_at', nullable: true })
  leaseExpiresAt!: Date | null;
}
