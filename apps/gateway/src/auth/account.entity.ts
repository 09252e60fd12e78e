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
}
