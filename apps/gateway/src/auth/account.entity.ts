import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A customer (a company). Plans and credits live in billing; keys and sign-in here. */
@Entity({ name: 'accounts' })
export class AccountEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('text')
  name!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
