import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * An event written in the same transaction as the state it announces; `OutboxRelay` publishes it.
 * One shape for every service that has an outbox, in its own schema (its DataSource's): generation
 * (migrations 1763700000000 and 1764730000000) and billing (migration 1764980000000) create the
 * same table, index names included.
 */
@Entity({ name: 'outbox' })
@Index('outbox_pending', ['createdAt'], { where: `"published_at" IS NULL` })
// What the relay prunes once its retention has passed (generation 1766400000000, billing 1766400000000).
@Index('outbox_published', ['publishedAt'], { where: `"published_at" IS NOT NULL` })
export class OutboxEventEntity {
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

  /** The relay (process) publishing it now; another relay takes it over once `leaseExpiresAt` has passed. */
  @Column('text', { name: 'lease_owner', nullable: true })
  leaseOwner!: string | null;

  @Column('timestamptz', { name: 'lease_expires_at', nullable: true })
  leaseExpiresAt!: Date | null;
}
