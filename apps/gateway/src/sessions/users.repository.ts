import { Inject, Injectable } from '@nestjs/common';
import { sqlRows } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { AUTH_DB } from '../settings/gateway.tokens';
import type { MemberRole } from '../memberships/member-role';
import { SessionEntity } from './session.entity';
import { UserEntity } from '../users/user.entity';

export type NewSession = Pick<SessionEntity, 'id' | 'tokenHash' | 'userId' | 'accountId' | 'csrfToken' | 'expiresAt' | 'ip' | 'userAgent'>;

/** A session as its user sees it in the list of their sessions. */
export interface SessionInfo {
  id: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  ip: string | null;
  userAgent: string | null;
}

export interface LiveSession {
  id: string;
  userId: string;
  accountId: string;
  /** The user's role on the session's account (docs/guide/dashboard.md, "Members and roles"). */
  role: MemberRole;
  email: string;
  accountName: string;
  csrfToken: string;
  lastSeenAt: Date;
  expiresAt: Date;
  /** The user followed their verification mail's link (or was made by an operator or an invitation). */
  emailVerified: boolean;
  /** The user signs in with a TOTP code after the password. */
  twoFactorEnabled: boolean;
  /** The account wants every member to use two-factor sign-in. */
  accountRequiresTwoFactor: boolean;
}

/** The queries of sign-in and sessions (schema auth); accounts with their users are written by UserAccountsRepository. */
@Injectable()
export class UsersRepository {
  constructor(@Inject(AUTH_DB) private readonly db: DataSource) {}

  findUserByEmailKey(emailKey: string): Promise<UserEntity | null> {
    return this.db.getRepository(UserEntity).findOneBy({ emailKey });
  }

  /**
   * The account a sign-in opens: the one the user last worked on if they still belong to it, else
   * the one they joined first; null when they belong to none.
   */
  async accountToOpen(userId: string): Promise<string | null> {
    const rows = await sqlRows<{ account_id: string }>(
      this.db,
      `SELECT m.account_id FROM account_members m JOIN users u ON u.id = m.user_id
        WHERE m.user_id = $1 ORDER BY (m.account_id = u.account_id) IS TRUE DESC, m.created_at, m.account_id LIMIT 1`,
      [userId],
    );
    return rows[0]?.account_id ?? null;
  }

  async recordSignIn(userId: string, newPasswordHash: string | null): Promise<void> {
    await this.db.getRepository(UserEntity).update(
      { id: userId },
      newPasswordHash ? { lastSignInAt: () => 'now()', passwordHash: newPasswordHash } : { lastSignInAt: () => 'now()' },
    );
  }

  async insertSession(session: NewSession): Promise<void> {
    await this.db.getRepository(SessionEntity).insert({ ...session, lastSeenAt: () => 'now()' });
  }

  /** The session for a token hash, if it has neither expired nor been idle for longer than `idleSeconds`. */
  async findLiveSession(tokenHash: Buffer, idleSeconds: number): Promise<LiveSession | null> {
    const rows = await sqlRows<{
      id: string;
      user_id: string;
      account_id: string;
      email: string;
      account_name: string;
      role: MemberRole;
      csrf_token: string;
      last_seen_at: Date;
      expires_at: Date;
      email_verified: boolean;
      two_factor_enabled: boolean;
      require_two_factor: boolean;
    }>(
      this.db,
      `SELECT s.id, s.user_id, s.account_id, u.email, a.name AS account_name, m.role, s.csrf_token, s.last_seen_at, s.expires_at,
              u.email_verified_at IS NOT NULL AS email_verified, u.totp_enabled_at IS NOT NULL AS two_factor_enabled, a.require_two_factor
         FROM sessions s JOIN users u ON u.id = s.user_id JOIN accounts a ON a.id = s.account_id
         JOIN account_members m ON m.account_id = s.account_id AND m.user_id = s.user_id
        WHERE s.token_hash = $1 AND s.expires_at > now() AND s.last_seen_at > now() - make_interval(secs => $2)`,
      [tokenHash, idleSeconds],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      id: row.id,
      userId: row.user_id,
      accountId: row.account_id,
      email: row.email,
      accountName: row.account_name,
      role: row.role,
      csrfToken: row.csrf_token,
      lastSeenAt: row.last_seen_at,
      expiresAt: row.expires_at,
      emailVerified: row.email_verified,
      twoFactorEnabled: row.two_factor_enabled,
      accountRequiresTwoFactor: row.require_two_factor,
    };
  }

  findUserById(userId: string): Promise<UserEntity | null> {
    return this.db.getRepository(UserEntity).findOneBy({ id: userId });
  }

  /** The user's sessions that can still be used, most recently active first. */
  async listLiveSessions(userId: string, idleSeconds: number): Promise<SessionInfo[]> {
    const rows = await sqlRows<{ id: string; created_at: Date; last_seen_at: Date; expires_at: Date; ip: string | null; user_agent: string | null }>(
      this.db,
      `SELECT id, created_at, last_seen_at, expires_at, ip, user_agent FROM sessions
        WHERE user_id = $1 AND expires_at > now() AND last_seen_at > now() - make_interval(secs => $2)
        ORDER BY last_seen_at DESC, created_at DESC`,
      [userId, idleSeconds],
    );
    return rows.map((r) => ({
      id: r.id,
      createdAt: r.created_at,
      lastSeenAt: r.last_seen_at,
      expiresAt: r.expires_at,
      ip: r.ip,
      userAgent: r.user_agent,
    }));
  }

  /** Ends one of the user's sessions; false when it is not theirs (or already ended). */
  async deleteUserSession(userId: string, sessionId: string): Promise<boolean> {
    const rows = await sqlRows<{ id: string }>(this.db, `DELETE FROM sessions WHERE id = $1 AND user_id = $2 RETURNING id`, [sessionId, userId]);
    return rows.length > 0;
  }

  /** Ends every session of the user but `keepSessionId`; returns how many. */
  async deleteOtherSessions(userId: string, keepSessionId: string): Promise<number> {
    const rows = await sqlRows<{ id: string }>(this.db, `DELETE FROM sessions WHERE user_id = $1 AND id <> $2 RETURNING id`, [userId, keepSessionId]);
    return rows.length;
  }

  /**
   * Sets a new password hash if the stored one is still `expectedHash` (a concurrent change wins
   * once), and ends every other session of the user, in one transaction. Null when the hash had
   * changed meanwhile; otherwise the number of sessions ended.
   */
  async replacePassword(userId: string, expectedHash: string, newHash: string, keepSessionId: string): Promise<number | null> {
    return this.db.transaction(async (tx) => {
      const updated = await sqlRows<{ id: string }>(
        tx,
        `UPDATE users SET password_hash = $3 WHERE id = $1 AND password_hash = $2 RETURNING id`,
        [userId, expectedHash, newHash],
      );
      if (updated.length === 0) return null;
      const ended = await sqlRows<{ id: string }>(tx, `DELETE FROM sessions WHERE user_id = $1 AND id <> $2 RETURNING id`, [userId, keepSessionId]);
      return ended.length;
    });
  }

  async touchSession(sessionId: string): Promise<void> {
    await this.db.query(`UPDATE sessions SET last_seen_at = now() WHERE id = $1`, [sessionId]);
  }

  async deleteSessionByTokenHash(tokenHash: Buffer): Promise<void> {
    await this.db.getRepository(SessionEntity).delete({ tokenHash });
  }

  /** Sessions past their end or idle timeout: they can never be used again. */
  async deleteDeadSessions(idleSeconds: number): Promise<number> {
    const rows = await sqlRows<{ id: string }>(
      this.db,
      `DELETE FROM sessions WHERE expires_at <= now() OR last_seen_at <= now() - make_interval(secs => $1) RETURNING id`,
      [idleSeconds],
    );
    return rows.length;
  }
}
