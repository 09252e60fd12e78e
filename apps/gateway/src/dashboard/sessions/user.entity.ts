import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/** A person who signs in to the dashboard. Owns one account (the account's first and only user for now). */
@Entity({ name: 'users' })
export class UserEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Index('users_by_account')
  @Column('uuid', { name: 'account_id' })
  accountId!: string;

  /** As the user typed it (trimmed), for display. */
  @Column('text')
  email!: string;

  /** Lower-case email: the unique, case-insensitive identity. */
  @Column('text', { name: 'email_key', unique: true })
  emailKey!: string;

  /** `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>` (see password-hasher.ts). */
  @Column('text', { name: 'password_hash' })
  passwordHash!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'last_sign_in_at', nullable: true })
  lastSignInAt!: Date | null;
}
