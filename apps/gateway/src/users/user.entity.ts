import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, Unique } from 'typeorm';
import { AccountEntity } from '../auth/account.entity';

/**
 * A person who signs in to the dashboard. Which accounts they belong to, and with which role, is in
 * `account_members` (AccountMemberEntity); `accountId` is only the account sign-in opens (the one
 * last used; null when they belong to none), kept from when a user had exactly one account.
 * Mirrors migration 1764100000000 (dashboard-users-sessions) and 1764960000000 (account-members), constraint and index names included.
 */
@Entity({ name: 'users' })
@Unique('users_email_key_key', ['emailKey'])
@Index('users_by_account', ['accountId'])
@Check('users_email_key_check', `"email_key" = lower("email_key")`)
export class UserEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'users_pkey' })
  id!: string;

  @Column('uuid', { name: 'account_id', nullable: true })
  accountId!: string | null;

  @ManyToOne(() => AccountEntity, { onDelete: 'SET NULL', onUpdate: 'NO ACTION' })
  @JoinColumn({ name: 'account_id', referencedColumnName: 'id', foreignKeyConstraintName: 'users_account_id_fkey' })
  account?: AccountEntity;

  /** As the user typed it (trimmed), for display. */
  @Column('text')
  email!: string;

  /** Lower-case email: the unique, case-insensitive identity. */
  @Column('text', { name: 'email_key' })
  emailKey!: string;

  /** `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>` (see password-hasher.ts). */
  @Column('text', { name: 'password_hash' })
  passwordHash!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'last_sign_in_at', nullable: true })
  lastSignInAt!: Date | null;

  /** When the user followed the link of their verification mail; null: not yet (docs/guide/dashboard.md, "Sign-up"). */
  @Column('timestamptz', { name: 'email_verified_at', nullable: true })
  emailVerifiedAt!: Date | null;

  /** The TOTP secret, encrypted like webhook secrets (WebhookSecretCipher, the user id as associated data); null: none. */
  @Column('text', { name: 'totp_secret', nullable: true })
  totpSecret!: string | null;

  /** When the secret was confirmed with a code; null while enrolment is unconfirmed (or without TOTP). */
  @Column('timestamptz', { name: 'totp_enabled_at', nullable: true })
  totpEnabledAt!: Date | null;

  /** The last 30-second time step a code was accepted for: a code of that step or an earlier one is refused (replay). */
  @Column('bigint', { name: 'totp_last_step', nullable: true })
  totpLastStep!: string | null;
}
