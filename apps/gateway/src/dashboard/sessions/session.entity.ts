import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A signed-in dashboard session. The cookie carries a random token; only its SHA-256 is stored, so
 * a copy of this table cannot be used to sign in. The CSRF token is bound to the session.
 */
@Entity({ name: 'sessions' })
export class SessionEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('bytea', { name: 'token_hash', unique: true })
  tokenHash!: Buffer;

  @Index('sessions_by_user')
  @Column('uuid', { name: 'user_id' })
  userId!: string;

  @Column('uuid', { name: 'account_id' })
  accountId!: string;

  @Column('text', { name: 'csrf_token' })
  csrfToken!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  /** Updated at most once a minute; a session idle for longer than the idle timeout is over. */
  @Column('timestamptz', { name: 'last_seen_at' })
  lastSeenAt!: Date;

  /** Absolute end of the session, whatever its activity. */
  @Index('sessions_by_expiry')
  @Column('timestamptz', { name: 'expires_at' })
  expiresAt!: Date;

  @Column('text', { name: 'ip', nullable: true })
  ip!: string | null;

  @Column('text', { name: 'user_agent', nullable: true })
  userAgent!: string | null;
}
