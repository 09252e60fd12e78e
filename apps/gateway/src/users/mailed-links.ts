import { Queryable, sqlRows } from '@gen/persistence';

/**
 * Opens a mailed single-use link for a user (`password_resets`, `email_verifications`: one row per
 * user, the token's hash) unless a mail for one was sent less than `windowSeconds` ago. One statement:
 * of any number of concurrent requests exactly one wins a window (true: send the mail), the others
 * change nothing (false). A new link replaces the last.
 */
export async function openMailedLink(
  db: Queryable,
  table: 'password_resets' | 'email_verifications',
  link: { userId: string; tokenHash: Buffer; ttlSeconds: number; windowSeconds: number },
): Promise<boolean> {
  const rows = await sqlRows<{ user_id: string }>(
    db,
    `INSERT INTO ${table} (user_id, token_hash, sent_at, expires_at)
     VALUES ($1, $2, now(), now() + make_interval(secs => $3))
     ON CONFLICT (user_id) DO UPDATE SET token_hash = EXCLUDED.token_hash, sent_at = EXCLUDED.sent_at, expires_at = EXCLUDED.expires_at
     WHERE ${table}.sent_at <= now() - make_interval(secs => $4)
     RETURNING user_id`,
    [link.userId, link.tokenHash, link.ttlSeconds, link.windowSeconds],
  );
  return rows.length === 1;
}
