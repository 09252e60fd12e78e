import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, Unique } from 'typeorm';
import { AccountMemberEntity } from '../memberships/account-member.entity';
import { UserEntity } from '../users/user.entity';

/**
 * A signed-in dashboard session. The cookie carries a random token; only its SHA-256 is stored, so
 * a copy of this table cannot be used to sign in. The CSRF token is bound to the session.
 * Mirrors migrations 1764100000000 (dashboard-users-sessions) and 1764960000000 (account-members), constraint and index names included.
 */
@Entity({ name: 'sessions' })
@Unique('sessions_token_hash_key', ['tokenHash'])
@Index('sessions_by_user', ['userId'])
@Index('sessions_by_expiry', ['expiresAt'])
export class SessionEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'sessions_pkey' })
  id!: string;

  @Column('bytea', { name: 'token_hash' })
  tokenHash!: Buffer;

  @Column('uuid', { name: 'user_id' })
  userId!: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE', onUpdate: 'NO ACTION' })
  @JoinColumn({ name: 'user_id', referencedColumnName: 'id', foreignKeyConstraintName: 'sessions_user_id_fkey' })
  user?: UserEntity;

  /**
   * The account the session works on (the user may belong to several and switch). Its key with
   * `user_id` is a membership: removing the member ends the session at once.
   */
  @Column('uuid', { name: 'account_id' })
  accountId!: string;

  @ManyToOne(() => AccountMemberEntity, { onDelete: 'CASCADE', onUpdate: 'NO ACTION' })
  @JoinColumn([
    { name: 'account_id', referencedColumnName: 'accountId', foreignKeyConstraintName: 'sessions_membership_fkey' },
    { name: 'user_id', referencedColumnName: 'userId', foreignKeyConstraintName: 'sessions_membership_fkey' },
  ])
  membership?: AccountMemberEntity;

  @Column('text', { name: 'csrf_token' })
  csrfToken!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  /** Updated at most once a minute; a session idle for longer than the idle timeout is over. */
  @Column('timestamptz', { name: 'last_seen_at' })
  lastSeenAt!: Date;

  /** Absolute end of the session, whatever its activity. */
  @Column('timestamptz', { name: 'expires_at' })
  expiresAt!: Date;

  @Column('text', { name: 'ip', nullable: true })
  ip!: string | null;

  @Column('text', { name: 'user_agent', nullable: true })
  userAgent!: string | null;
}
