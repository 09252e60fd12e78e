import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An event written in the same transaction as the state it announces; the relay publishes it. */
@Entity({ name: 'outbox' })
export class OutboxEventEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('text')
  pattern!: string;

  @Column('jsonb')
  payload!: unknown;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'published_at', nullable: true })
  publishedAt!: Date | null;

  @Column('integer', { name: 'publish_attempts', default: 0 })
  publishAttempts!: number;
}
