import { Check, Column, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/**
 * An API key's spending caps in credits, per UTC day and per UTC month (null: none).
 * Mirrors migration 1764870000000 (billing-key-caps), names included.
 */
@Entity({ name: 'key_caps' })
@Index('key_caps_by_account', ['accountId'])
@Check('key_caps_per_day_check', `"per_day" > 0`)
@Check('key_caps_per_month_check', `"per_month" > 0`)
export class KeyCapEntity {
  @PrimaryColumn('uuid', { name: 'api_key_id', primaryKeyConstraintName: 'key_caps_pkey' })
  apiKeyId!: string;

  @Column('uuid', { name: 'account_id' })
  accountId!: string;

  @Column('integer', { name: 'per_day', nullable: true })
  perDay!: number | null;

  @Column('integer', { name: 'per_month', nullable: true })
  perMonth!: number | null;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
