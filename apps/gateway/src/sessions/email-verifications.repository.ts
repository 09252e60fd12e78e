import { Inject, Injectable } from '@nestjs/common';
import { sqlRows } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { AUTH_DB } from '../settings/gateway.tokens';
import { openMailedLink } from '../users/mailed-links';

/** Sign-up verification links (`auth.email_verifications`, migration 1764970000000). */
@Injectable()
export class EmailVerificationsRepository {
  constructor(@Inject(AUTH_DB) private readonly db: DataSource) {}

  /**
   * Opens a verification for the user with this token hash unless one was mailed less than
   * `windowSeconds` ago (openMailedLink: of concurrent requests exactly one wins a window). Returns
   * 0 when the mail may be sent, else the seconds until the window ends (nothing changed).
   */
  async open(userId: string, tokenHash: Buffer, ttlSeconds: number, windowSeconds: number): Promise<number> {
    if (await openMailedLink(this.db, 'email_verifications', { userId, tokenHash, ttlSeconds, windowSeconds })) return 0;
    const [row] = await sqlRows<{ wait: number }>(
      this.db,
      `SELECT ceil(extract(epoch FROM sent_at + make_interval(secs => $2) - now()))::int AS wait FROM email_verifications WHERE user_id = $1`,
      [userId, windowSeconds],
    );
    return Math.max(1, row?.wait ?? 1);
  }

  /**
   * Uses a verification link: marks the user's email verified if the token is open and unexpired.
   * Single use: the row is deleted by the statement that finds it, so two concurrent uses cannot
   * both succeed.
   */
  async use(tokenHash: Buffer): Promise<{ userId: string; accountId: string; email: string } | null> {
    return this.db.transaction(async (tx) => {
      const [found] = await sqlRows<{ user_id: string }>(
        tx,
        `DELETE FROM email_verifications WHERE token_hash = $1 AND expires_at > now() RETURNING user_id`,
        [tokenHash],
      );
      if (!found) return null;
      const [user] = await sqlRows<{ id: string; account_id: string; email: string }>(
        tx,
        `UPDATE users SET email_verified_at = coalesce(email_verified_at, now()) WHERE id = $1 RETURNING id, account_id, email`,
        [found.user_id],
      );
      return { userId: user.id, accountId: user.account_id, email: user.email };
    });
  }
}
