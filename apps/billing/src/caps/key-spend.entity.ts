import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * Credits one API key has held or been charged on one UTC day (released holds given back).
 * Written only by `reserve_batch` and `settle_batch`. Mirrors migration 1764870000000 (billing-key-caps).
 */
@Entity({ name: 'key_spend' })
@Index('key_spend_by_account_day', ['accountId', 'day'])
@Check('key_spend_credits_check', `"credits" >= 0`)
export class KeySpendEntity {
  @PrimaryColumn('uuid', { name: 'api_key_id', primaryKeyConstraintName: 'key_spend_pkey' })
  apiKeyId!: string;

  @PrimaryColumn('date', { primaryKeyConstraintName: 'key_spend_pkey' })
  day!: string;

  @Column('uuid', { name: 'account_id' })
  accountId!: string;

  @Column('bigint', { default: 0 })
  credits!: string;
}
