import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { AccountEntity } from '../auth/account.entity';
import { UserEntity } from '../users/user.entity';
import type { MemberRole } from './member-role';

/**
 * A user's membership of an account, with their role there (member-role.ts).
 * Mirrors migration 1764960000000 (auth-account-members), constraint and index names included.
 */
@Entity({ name: 'account_members' })
@Index('account_members_by_user', ['userId'])
@Check('account_members_role_check', `"role" IN ('owner', 'admin', 'developer', 'viewer')`)
export class AccountMemberEntity {
  @PrimaryColumn('uuid', { name: 'account_id', primaryKeyConstraintName: 'account_members_pkey' })
  accountId!: string;

  @PrimaryColumn('uuid', { name: 'user_id', primaryKeyConstraintName: 'account_members_pkey' })
  userId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE', onUpdate: 'NO ACTION' })
  @JoinColumn({ name: 'account_id', referencedColumnName: 'id', foreignKeyConstraintName: 'account_members_account_id_fkey' })
  account?: AccountEntity;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE', onUpdate: 'NO ACTION' })
  @JoinColumn({ name: 'user_id', referencedColumnName: 'id', foreignKeyConstraintName: 'account_members_user_id_fkey' })
  user?: UserEntity;

  @Column('text')
  role!: MemberRole;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
