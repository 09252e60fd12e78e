import { Inject, Injectable } from '@nestjs/common';
import { sqlRows } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { AUTH_DB } from '../../gateway.tokens';

/** Password reset links (`auth.password_resets`, migration 1764870000002). */
@Injectable()
export class PasswordResetsRepository {
  constructor(@Inject(AUTH_DB) private readonly db: DataSource) {}

  /**
   * Opens a reset for the user with this token hash, unless a mail for one was sent less than
   * `windowSeconds` ago: one statement, so of any number of concurrent requests exactly one wins a
   * window (true: send the mail), the others change nothing (false). A new reset replaces the last.
   */
  async open(userId: string, tokenHash: Buffer, ttlSeconds: number, windowSeconds: number): Promise<boolean> {
    const rows = await sqlRows<{ user_id: string }>(
      this.db,
      `INSERT INTO password_resets (user_id, token_hash, sent_at, expires_at)
       VALUES ($1, $2, now(), now() + make_interval(secs => $3))
       ON CONFLICT (user_id) DO UPDATE SET token_hash = EXCLUDED.token_hash, sent_at = EXCLUDED.sent_at, expires_at = EXCLUDED.expires_at
       WHERE password_resets.sent_at <= now() - make_interval(secs => $4)
       RETURNING user_id`,
      [userId, tokenHash, ttlSeconds, windowSeconds],
    );
    return rows.length === 1;
  }

  /**
   * Uses a reset: sets the new password and ends every session of the user, in one transaction, if
   * the token is open and unexpired. Single use: the reset row is deleted by the same statement that
   * finds it, so two concurrent uses cannot both succeed. Returns the user and how many sessions ended.
   */
  async use(tokenHash: Buffer, newPasswordHash: string): Promise<{ userId: string; accountId: string | null; email: string; endedSessions: number } | null> {
    return this.db.transaction(async (tx) => {
      const [reset] = await sqlRows<{ user_id: string }>(
        tx,
        `DELETE FROM password_resets WHERE token_hash = $1 AND expires_at > now() RETURNING user_id`,
        [tokenHash],
      );
      if (!reset) return null;
      const [user] = await sqlRows<{ id: string; account_id: string | null; email: string }>(
        tx,
        `UPDATE users SET password_hash = $2 WHERE id = $1 RETURNING id, account_id, email`,
        [reset.user_id, newPasswordHash],
      );
      const ended = await sqlRows<{ id: string }>(tx, `DELETE FROM sessions WHERE user_id = $1 RETURNING id`, [reset.user_id]);
      return { userId: user.id, accountId: user.account_id, email: user.email, endedSessions: ended.length };
    });
  }
}
