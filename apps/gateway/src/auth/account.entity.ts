import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * A customer (a company). Plans and credits live in billing; keys and sign-in here.
 * Mirrors migration 1763700000000 (auth-init), names included.
 */
@Entity({ name: 'accounts' })
export class AccountEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'accounts_pkey' })
  id!: string;

  @Column('text')
  name!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  /** Every member must sign in with a second factor (migration 1764970000000); members without one enrol first. */
  @Column('boolean', { name: 'require_two_factor', default: false })
  requireTwoFactor!: boolean;

  /** The caps every new dashboard key gets (migration 1766036000000); null: none. */
  @Column('integer', { name: 'default_key_cap_per_day', nullable: true })
  defaultKeyCapPerDay!: number | null;

  @Column('integer', { name: 'default_key_cap_per_month', nullable: true })
  defaultKeyCapPerMonth!: number | null;
}
