import { Inject, Injectable } from '@nestjs/common';
import { readRows, sqlRows } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { AUTH_DB } from '../settings/gateway.tokens';
import { openMailedLink } from '../users/mailed-links';

/** Password reset links (`auth.password_resets`, migration 1764870000002). */
@Injectable()
export class PasswordResetsRepository {
  constructor(@Inject(AUTH_DB) private readonly db: DataSource) {}

  /** Opens a reset (a new one replaces the last) unless a mail was sent within the window: true, send the mail (openMailedLink). */
  open(userId: string, tokenHash: Buffer, ttlSeconds: number, windowSeconds: number): Promise<boolean> {
    return openMailedLink(this.db, 'password_resets', { userId, tokenHash, ttlSeconds, windowSeconds });
  }

  /**
   * The user an open, unexpired reset belongs to, without using it: checked before the new password
   * is hashed (a slow hash), so a wrong or stale token costs one indexed read. Read-only: `use` still
   * decides, under its own statement, which of two concurrent uses wins.
   */
  async findOpen(tokenHash: Buffer): Promise<{ userId: string; emailKey: string } | null> {
    const [row] = await readRows<{ user_id: string; email_key: string }>(
      this.db,
      `SELECT r.user_id, u.email_key FROM password_resets r JOIN users u ON u.id = r.user_id WHERE r.token_hash = $1 AND r.expires_at > now()`,
      [tokenHash],
    );
    return row ? { userId: row.user_id, emailKey: row.email_key } : null;
  }

  /**
   * Uses a reset: sets the new password and ends every session (and pending two-factor sign-in) of the user, in one transaction, if
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
      // A sign-in half done with the old password (waiting for its code) ends too.
      await tx.query(`DELETE FROM two_factor_challenges WHERE user_id = $1`, [reset.user_id]);
      return { userId: user.id, accountId: user.account_id, email: user.email, endedSessions: ended.length };
    });
  }
}
